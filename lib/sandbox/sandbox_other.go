//go:build !linux

package sandbox

import (
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

// probe: no namespaces here.
func (s *Sandbox) probe() bool { return false }

// Launch refuses: there is no sandbox to apply here.
func Launch([]string) int {
	fmt.Fprintf(os.Stderr, "ctx-replay: error: sandbox: no sandbox on %s\n", runtime.GOOS)
	return 126
}
