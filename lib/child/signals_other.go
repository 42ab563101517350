//go:build !unix

package child

import (
	"os"
	"os/exec"
	"time"
)

// Forwarded are the signals a child is passed on (Options.Forward).
func Forwarded() []os.Signal { return []os.Signal{os.Interrupt} }

// fromTerminal reports a signal the console sends the child as well.
func fromTerminal(sig os.Signal) bool { return sig == os.Interrupt }

// terminate is the closest to SIGTERM: the process is killed.
func terminate() os.Signal { return os.Kill }

// signalled: no signal ends a program here.
func signalled(*exec.ExitError) (int, bool) { return 0, false }

// newGroup: process groups are a Unix notion; the child runs as it is.
func newGroup(*exec.Cmd) {}

// signalGroup: no group to signal here.
func signalGroup(int, os.Signal) bool { return false }

// endGroup: nothing is left to end here.
func endGroup(int, time.Duration) {}
