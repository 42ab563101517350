//go:build unix

package child

import (
	"os"
	"os/exec"
	"syscall"
)

// Forwarded are the signals a child is passed on (Options.Forward).
func Forwarded() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2}
}

// fromTerminal reports a signal a terminal sends to its whole foreground
// process group (Ctrl-C, Ctrl-\): the child has it already.
func fromTerminal(sig os.Signal) bool { return sig == syscall.SIGINT || sig == syscall.SIGQUIT }

// terminate is the signal that asks a program to end.
func terminate() os.Signal { return syscall.SIGTERM }

// signalled is the signal that ended the program, if one did.
func signalled(ee *exec.ExitError) (int, bool) {
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return int(ws.Signal()), true
	}
	return 0, false
}
