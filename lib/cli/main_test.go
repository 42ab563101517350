package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestReport(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		code   int
		stderr string
	}{
		{"success", nil, 0, ""},
		{"help", flag.ErrHelp, 0, ""},
		{"wrapped help", fmt.Errorf("parsing: %w", flag.ErrHelp), 0, ""},
		{"plain error is trouble", errors.New("cannot read log run.json: permission denied"), 2,
			"ctx-pack: error: cannot read log run.json: permission denied\n"},
		{"typed code", Errorf(ExitFailed, "step 3 bash: no executor"), 3,
			"ctx-pack: error: step 3 bash: no executor\n"},
		{"finding with a message", Errorf(ExitFinding, "artifact result.md was modified"), 1,
			"ctx-pack: error: artifact result.md was modified\n"},
		{"every line prefixed", Errorf(ExitTrouble, "steps[0].tool: missing\nsteps[2].tool: not a string\n"), 2,
			"ctx-pack: error: steps[0].tool: missing\nctx-pack: error: steps[2].tool: not a string\n"},
		{"hints after the error", Errorf(ExitTrouble, "no pack matches \"abcd\"").WithHint("'ctx log' lists the packs").WithHint("second %s", "hint"), 2,
			"ctx-pack: error: no pack matches \"abcd\"\nctx-pack: hint: 'ctx log' lists the packs\nctx-pack: hint: second hint\n"},
		{"usage error points at help", Usagef("ctx pack takes one log file"), 2,
			"ctx-pack: error: ctx pack takes one log file\nctx-pack: hint: see 'ctx pack --help'\n"},
		{"usage error with a hint", Usagef("bad --tag").WithHint("tags are names"), 2,
			"ctx-pack: error: bad --tag\nctx-pack: hint: tags are names\nctx-pack: hint: see 'ctx pack --help'\n"},
		{"wrapped typed error keeps its code", fmt.Errorf("context: %w", Errorf(ExitFailed, "boom")), 3,
			"ctx-pack: error: context: boom\n"},
		{"Wrap", Wrap(ExitFinding, errors.New("drift")), 1, "ctx-pack: error: drift\n"},
		{"silent finding", Exit(ExitFinding), 1, ""},
		{"silent failure", Exit(ExitFailed), 3, ""},
		{"silent wrapped", fmt.Errorf("x: %w", Exit(ExitFinding)), 1, ""},
		{"broken pipe is quiet", &fs.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.EPIPE}, 0, ""},
		{"broken pipe inside a typed error", Wrap(ExitTrouble, fmt.Errorf("writing: %w", syscall.EPIPE)), 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			if code := Report("ctx-pack", tt.err, &stderr); code != tt.code {
				t.Errorf("Report code = %d, want %d", code, tt.code)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("Report wrote\n%q\nwant\n%q", stderr.String(), tt.stderr)
			}
		})
	}
}

func TestReportDispatcherName(t *testing.T) {
	var stderr bytes.Buffer
	Report("ctx", Usagef("unknown flag --store"), &stderr)
	want := "ctx: error: unknown flag --store\nctx: hint: see 'ctx --help'\n"
	if stderr.String() != want {
		t.Errorf("got %q, want %q", stderr.String(), want)
	}
}

func TestExitAndWrapNil(t *testing.T) {
	if err := Exit(ExitOK); err != nil {
		t.Errorf("Exit(0) = %v, want nil", err)
	}
	if err := Wrap(ExitFinding, nil); err != nil {
		t.Errorf("Wrap(1, nil) = %v, want nil", err)
	}
	if code := ExitCode(nil); code != ExitOK {
		t.Errorf("ExitCode(nil) = %d", code)
	}
	if msg := Exit(ExitFailed).Error(); msg != "exit status 3" {
		t.Errorf("Exit(3).Error() = %q", msg)
	}
}

func TestMessenger(t *testing.T) {
	var b bytes.Buffer
	m := Messenger{Name: "ctx-pack", W: &b}
	m.Warnf("unknown field %s", "steps[0].extra")
	m.Hintf("use --strict")
	m.Notef("a store already exists")
	m.Errorf("x")
	want := "ctx-pack: warning: unknown field steps[0].extra\nctx-pack: hint: use --strict\nctx-pack: note: a store already exists\nctx-pack: error: x\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestMainExitCodes runs Main the way a verb's main does, with a RunFunc
// for each outcome.
func TestMainExitCodes(t *testing.T) {
	saved := os.Args
	defer func() { os.Args = saved }()
	os.Args = []string{"ctx-test", "a"}
	var gotArgs []string
	code := Main("ctx-test", func(_ context.Context, args []string, _ io.Reader, _, _ io.Writer) error {
		gotArgs = args
		return Exit(ExitFailed)
	})
	if code != ExitFailed || len(gotArgs) != 1 || gotArgs[0] != "a" {
		t.Errorf("Main = %d with args %q, want 3 with [a]", code, gotArgs)
	}
}
