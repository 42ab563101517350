//go:build !unix

package child

import (
	"os"
	"os/exec"
)

// Forwarded are the signals a child is passed on (Options.Forward).
func Forwarded() []os.Signal { return []os.Signal{os.Interrupt} }

// fromTerminal reports a signal the console sends the child as well.
func fromTerminal(sig os.Signal) bool { return sig == os.Interrupt }

// terminate is the closest to SIGTERM: the process is killed.
func terminate() os.Signal { return os.Kill }

// signalled: no signal ends a program here.
func signalled(*exec.ExitError) (int, bool) { return 0, false }
