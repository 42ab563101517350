package ctxcmd

import (
	"context"
	"io"
	"os/exec"

	"github.com/contextsubstrate/ctx/lib/child"
	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/text"
)

// runChild runs the program at path with argv[0] set to argv0 on the given
// streams and returns its exit status as the dispatcher's own.
func runChild(ctx context.Context, path, argv0 string, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Args[0] = argv0
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	// An interrupt from the terminal reaches the child too, and the
	// dispatcher's other signals are passed on; it stays to pass on the
	// exit status the child chooses.
	c, err := child.Start(cmd, child.Options{Forward: true, Interactive: true})
	if err != nil {
		return execError(path, err)
	}
	code, err := c.Wait()
	if err != nil {
		return execError(path, err)
	}
	return cli.Exit(code)
}

// execError says why a program that was found could not be started.
func execError(path string, err error) error {
	e := cli.Errorf(cli.ExitTrouble, "cannot run %s: %v", path, text.UnwrapPath(err))
	if noExec(err) {
		e.WithHint("a script needs a first line such as #!/bin/sh")
	}
	return e
}
