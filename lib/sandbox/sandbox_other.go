//go:build !linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// landlockABI: Landlock is Linux's.
func landlockABI() (int, error) {
	return 0, fmt.Errorf("no sandbox on %s (replay confines programs with Linux's Landlock)", runtime.GOOS)
}

// Prepare has nothing to do where New never succeeds.
func (s *Sandbox) Prepare(*exec.Cmd) {}

// Finish has nothing to end where New never succeeds.
func (s *Sandbox) Finish() {}

// RefusedForks: no cgroups here.
func (s *Sandbox) RefusedForks() int { return 0 }

// probe: no namespaces here.
func (s *Sandbox) probe() bool { return false }

// seccompHere: no seccomp here.
func seccompHere() bool { return false }

// nprocExempt: no RLIMIT_NPROC to rely on here.
func nprocExempt() bool { return false }

// pidsCgroup: no cgroups here.
type pidsCgroup struct{ dir string }

func newPidsCgroup(int) (*pidsCgroup, error) { return nil, errors.New("no cgroups here") }
func (c *pidsCgroup) remove()                {}

// Launch refuses: there is no sandbox to apply here.
func Launch([]string) int {
	fmt.Fprintf(os.Stderr, "ctx-replay: error: sandbox: no sandbox on %s\n", runtime.GOOS)
	return 126
}
