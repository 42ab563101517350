//go:build !unix

package ctxcmd

import (
	"context"
	"io"
)

// run runs the program at path as a child on the given streams and passes
// its exit status on: without exec(2) this is the closest to handing over.
func run(ctx context.Context, path, argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runChild(ctx, path, argv0, args, stdin, stdout, stderr)
}

// noExec reports whether err says the file is not a program; the system
// says so in its own words elsewhere.
func noExec(error) bool { return false }
