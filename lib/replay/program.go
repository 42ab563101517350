package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/sandbox"
)

// A program run: one ctx-tool-NAME program, config tool or shell command.
type programRun struct {
	argv    []string
	dir     string
	stdin   []byte // nil: empty standard input
	stdout  io.Writer
	stderr  io.Writer
	env     []string
	timeout time.Duration // 0: no limit
	// sb confines the program (nil: it runs with the user's rights).
	sb *sandbox.Sandbox
}

// sandboxed is the command line that runs argv under sb: its program
// found on PATH as exec would, and readable in the sandbox wherever it
// lies (a ctx-tool-NAME program, a config tool).
func sandboxed(sb *sandbox.Sandbox, argv []string) ([]string, error) {
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	if prog, err = filepath.Abs(prog); err != nil {
		return nil, err
	}
	return sb.Argv(append([]string{prog}, argv[1:]...), prog)
}

// errTimeout is a program that ran past the step timeout.
type errTimeout struct{ d time.Duration }

func (e errTimeout) Error() string {
	return fmt.Sprintf("timed out after %s (see --step-timeout)", e.d)
}

// run runs the program in its own process group and returns its exit
// status. A status other than 0 is not an error here: whether it is one is
// the caller's to say. When the program ends, whatever it left running in
// its group is killed, so no step outlives itself; in the sandbox, its
// launcher ends everything the program started, in the group or not (a
// setsid'd daemon), and dies with this thread, which is kept until then.
func (p programRun) run(ctx context.Context) (int, error) {
	cctx, cancel := ctx, context.CancelFunc(func() {})
	if p.timeout > 0 {
		cctx, cancel = context.WithTimeout(ctx, p.timeout)
	}
	defer cancel()
	argv := p.argv
	if p.sb != nil {
		var err error
		if argv, err = sandboxed(p.sb, argv); err != nil {
			return -1, err
		}
	}
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.Dir = p.dir
	if p.stdin != nil {
		cmd.Stdin = bytes.NewReader(p.stdin)
	}
	cmd.Stdout, cmd.Stderr, cmd.Env = p.stdout, p.stderr, p.env
	// A background process that keeps the output pipe open must not hold
	// the replay: after the program exits, its pipes get this long.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	if p.sb != nil {
		p.sb.Prepare(cmd)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	err := cmd.Run()
	killGroup(cmd)
	if p.sb != nil {
		p.sb.Finish()
	}
	switch {
	case errors.Is(cctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		return -1, errTimeout{p.timeout}
	case ctx.Err() != nil:
		return -1, ctx.Err()
	}
	var ee *exec.ExitError
	switch {
	case err == nil, errors.Is(err, exec.ErrWaitDelay):
		return 0, nil
	case errors.As(err, &ee):
		if ee.ExitCode() < 0 {
			return -1, fmt.Errorf("was killed (%v)", ee.ProcessState)
		}
		return ee.ExitCode(), nil
	}
	return -1, err
}

// tail keeps the last bytes written to it: a program's stderr, for the
// reason of a failed step, in bounded memory.
type tail struct {
	b   []byte
	max int
}

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	if len(p) > t.max {
		p = p[len(p)-t.max:]
	}
	if over := len(t.b) + len(p) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	t.b = append(t.b, p...)
	return n, nil
}

// lastLine returns the last non-empty line, trimmed.
func (t *tail) lastLine() string {
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// firstLine returns the first line of b, trimmed: a program's --version.
func firstLine(b []byte) string {
	s := string(b)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
