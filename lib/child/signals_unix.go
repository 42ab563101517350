//go:build unix

package child

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
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

// newGroup makes cmd the leader of a process group of its own.
func newGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// signalGroup sends sig to the process group pgid; false when there is no
// such group (every member has exited) or sig is no Unix signal.
func signalGroup(pgid int, sig os.Signal) bool {
	s, ok := sig.(syscall.Signal)
	return ok && syscall.Kill(-pgid, s) == nil
}

// endGroup ends what is left of the process group pgid, its leader gone:
// SIGTERM, then SIGKILL to those still there after grace. Members are
// not children of ctx and cannot be waited for: whether any is left is
// asked of the kernel (signal 0) until none is, at most grace after
// SIGTERM and a second after SIGKILL (which ends a program at once, but
// not in the instant it is sent).
func endGroup(pgid int, grace time.Duration) {
	if !signalGroup(pgid, syscall.SIGTERM) {
		return
	}
	if groupLeft(pgid, grace) {
		signalGroup(pgid, syscall.SIGKILL)
		groupLeft(pgid, time.Second)
	}
}

// groupLeft waits at most d for the group pgid to be empty, and reports
// whether anyone is still in it.
func groupLeft(pgid int, d time.Duration) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(10 * time.Millisecond) {
		if !groupRunning(pgid) {
			return false
		}
		if !time.Now().Before(deadline) {
			return true
		}
	}
}

// groupRunning reports whether a program of the group pgid still runs.
// The kernel counts zombies (ended, not yet reaped by whoever inherited
// them, which may take a while) as members; where /proc says which
// members are zombies (Linux), they do not count.
func groupRunning(pgid int) bool {
	if !signalGroup(pgid, syscall.Signal(0)) {
		return false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	member := false
	for _, p := range procs {
		if c := p.Name()[0]; c < '0' || c > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		i := bytes.LastIndexByte(b, ')')
		if err != nil || i < 0 {
			continue
		}
		// PID (COMM) STATE PPID PGRP ...
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			if f[0] != "Z" {
				return true
			}
			member = true
		}
	}
	// Members the kernel knows and /proc does not show: trust the kernel.
	return !member
}
