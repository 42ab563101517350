package ctx_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
)

// runMaxRSS is the maxrss program of the scripts: `maxrss LIMIT_MIB PROG
// [ARGS...]` runs PROG with the same streams and exits 1 unless it exits 0
// with a peak resident set size of at most LIMIT MiB, which it prints on
// stderr. The figure is the kernel's rusage of the process, over every
// program it exec'd, and of the largest child it waited for, so a shell
// script running several ctx programs holds each of them to the bound.
//
// It is a program of its own, not a script command, because a child
// started by vfork (as Go starts them) carries the resident set of its
// parent into its peak: measured from the test process, with every script
// running, the peak would be the test's. This small process is the parent
// instead, so the figure is at least its own few MiB.
func runMaxRSS(args []string) int {
	if len(args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: maxrss LIMIT_MIB PROG [ARGS...]")
		return 2
	}
	limit, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		fmt.Fprintf(os.Stderr, "maxrss: %q is not a number of MiB\n", args[0])
		return 2
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			fmt.Fprintf(os.Stderr, "maxrss: %s: %v\n", args[1], err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "maxrss: %v\n", err)
		return 2
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		fmt.Fprintf(os.Stderr, "maxrss: no resource usage on %s\n", runtime.GOOS)
		return 2
	}
	kib := int64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		kib /= 1024 // bytes there, KiB on Linux
	}
	fmt.Fprintf(os.Stderr, "maxrss: peak resident set %d KiB (limit %d MiB)\n", kib, limit)
	if kib > limit<<10 {
		if builtWithCgo() {
			fmt.Fprintln(os.Stderr, "maxrss: these programs were built with cgo, which links the C library into each (about 10 MiB more); run go test with CGO_ENABLED=0, as the Makefile does")
		}
		return 1
	}
	return 0
}

// builtWithCgo reports whether this test binary, every program of the
// scripts, was built with cgo.
func builtWithCgo() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "CGO_ENABLED" {
			return s.Value == "1"
		}
	}
	return false
}
