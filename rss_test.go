package ctx_test

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// maxRSS runs a program as exec does and fails the script unless it exits 0
// with a peak resident set size of at most LIMIT MiB: `maxrss LIMIT PROG
// ARGS...`. The figure is the kernel's: the rusage of the process, over
// every program it exec'd, and of the largest child it waited for, so a
// shell script that runs several ctx programs is held to the bound by
// each. Its stdout and stderr become the script's stdout and stderr.
func maxRSS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: maxrss LIMIT_MIB PROG [ARGS...]")
	}
	limit, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		ts.Fatalf("maxrss: %q is not a number of MiB", args[0])
	}
	cmd := exec.Command(args[1], args[2:]...)
	cmd.Dir = ts.MkAbs(".")
	cmd.Env = os.Environ()
	for _, k := range []string{"PATH", "HOME", "WORK", "TMPDIR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	ts.Stdout().Write([]byte(stdout.String()))
	ts.Stderr().Write([]byte(stderr.String()))
	if runErr != nil {
		ts.Fatalf("maxrss: %s: %v\n%s", args[1], runErr, stderr.String())
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		ts.Fatalf("maxrss: no resource usage on %s", runtime.GOOS)
	}
	kib := int64(ru.Maxrss)
	if runtime.GOOS == "darwin" {
		kib /= 1024 // bytes there, KiB on Linux
	}
	ts.Logf("peak resident set: %d KiB (limit %d MiB)", kib, limit)
	if kib > limit<<10 {
		ts.Fatalf("maxrss: peak resident set %d KiB is over %d MiB", kib, limit)
	}
}
