package agenttest

import (
	"os/exec"
	"syscall"
)

// procAttr puts the agent in a process group of its own (its shells and
// helpers with it) that dies with the test.
func procAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the agent and every process of its group.
func killGroup(cmd *exec.Cmd) error {
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
