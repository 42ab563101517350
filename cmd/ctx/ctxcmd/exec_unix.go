//go:build unix

package ctxcmd

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"
)

// run replaces the process with the program at path, argv[0] set to
// argv0, so stdin, stdout, stderr, signals and the exit status are the
// verb's own and ctx leaves no trace. When the streams are not the
// process's own (Run called from a test or another program) it runs the
// program as a child on them instead.
func run(ctx context.Context, path, argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if stdin != io.Reader(os.Stdin) || stdout != io.Writer(os.Stdout) || stderr != io.Writer(os.Stderr) {
		return runChild(ctx, path, argv0, args, stdin, stdout, stderr)
	}
	err := syscall.Exec(path, append([]string{argv0}, args...), os.Environ())
	return execError(path, err) // Exec returns only when it failed
}

// noExec reports whether err says the file is not a program the kernel can
// start: a script without a #! line, a binary for another machine.
func noExec(err error) bool { return errors.Is(err, syscall.ENOEXEC) }
