//go:build !unix

package replay

import "os/exec"

// ownGroup has no process groups to use here; cancellation kills the
// program itself.
func ownGroup(*exec.Cmd) {}

// killGroup has nothing to do without process groups.
func killGroup(*exec.Cmd) {}
