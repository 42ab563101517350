package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/convert"
)

// corpus is a file of testdata/corpus.
func corpus(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// head is what ctx pack keeps of an input.
func head(b []byte) []byte { return b[:min(len(b), HeadSize)] }

// Real transcripts are named by the format ctx convert reads them as,
// from their head: line-based ones whole or cut, documents that fit.
func TestFormatOfTranscripts(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		{"claude-code-jsonl/claude-reliability/hello-world-script__20260120T1119__301716b2.jsonl", "claude-code"},
		{"codex-rollout/acidicsoil__rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl.gz", "codex"},
		{"openai-chat/tau-bench-airline/gpt-4o-airline_task41_trial0_reward0.json", "openai"},
		{"swe-agent-traj/mm1867_default__marshmallow-code__marshmallow-1867.traj", "swe-agent"},
	} {
		if got := Format(head(corpus(t, tt.file))); got != tt.want {
			t.Errorf("Format(%s) = %q, want %q", tt.file, got, tt.want)
		}
	}
	// A line-based transcript cut anywhere past its first line.
	b := corpus(t, "claude-code-jsonl/claude-reliability/coverage-test-fix__20260120T0958__bf8e343e.jsonl")
	first := strings.IndexByte(string(b), '\n') + 1
	if got := Format(b[:first+7]); got != "claude-code" {
		t.Errorf("Format of a cut Claude Code session = %q", got)
	}
}

// Execution logs, whole, cut or broken, are no transcript: ctx pack's
// own error stands.
func TestFormatOfLogs(t *testing.T) {
	logs := [][]byte{
		corpus(t, "contextsubstrate-examples/claude-code.json"),
		corpus(t, "contextsubstrate-examples/crewai.json"),
		corpus(t, "contextsubstrate-examples/langchain.json"),
		[]byte(`{"event":"run","created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"bogus":1}` + "\n" + `{"event":"step","tool":"x"`),
		[]byte(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompt":[]}`),
		[]byte(`{"event": "run", "model": {"identifier": "m"}}` + "\n" + `{"event": "prompt", "content": "hi"}` + "\n"),
		[]byte("not json at all\n"),
		nil,
	}
	runs, _ := filepath.Glob(filepath.Join("..", "..", "examples", "runs", "*", "run.json"))
	if len(runs) < 2 {
		t.Fatalf("found %d example runs", len(runs))
	}
	for _, r := range runs {
		b, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, b)
	}
	// What ctx convert writes is a log.
	for _, f := range []string{"claude-code-jsonl/claude-reliability/hello-world-script__20260120T1119__301716b2.jsonl",
		"swe-agent-traj/mm1867_default__marshmallow-code__marshmallow-1867.traj"} {
		var log bytes.Buffer
		if _, err := convert.Convert(bytes.NewReader(corpus(t, f)), nil, &log, convert.Options{}); err != nil {
			t.Fatal(err)
		}
		logs = append(logs, log.Bytes())
	}
	for _, b := range logs {
		if f := Format(head(b)); f != "" {
			t.Errorf("Format(%.80q) = %q; want none", b, f)
		}
	}
}

// NotALog names the format and how to convert, and lets through every
// error of an input that is not a transcript.
func TestNotALog(t *testing.T) {
	cause := errors.New("invalid JSON at line 2")
	l := NewLook(corpus(t, "claude-code-jsonl/claude-reliability/hello-world-script__20260120T1119__301716b2.jsonl"))
	err := l.NotALog(cause, "s.jsonl", "s.jsonl")
	var te *Error
	if !errors.As(err, &te) || !errors.Is(err, cause) {
		t.Fatalf("NotALog = %v", err)
	}
	if want := "s.jsonl is a transcript, not an execution log (ctx convert reads it as claude-code)"; err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if h := te.ErrorHints(); len(h) != 2 || h[0] != "convert it first: ctx convert s.jsonl | ctx pack -" {
		t.Errorf("hints %q", h)
	}
	var warned []string
	l.Warn(func(s string) { warned = append(warned, s) })("traj: unknown field")
	if len(warned) != 0 {
		t.Errorf("a transcript's warnings as a log were passed on: %q", warned)
	}

	l = NewLook([]byte(`{"event":"run"}`))
	if err := l.NotALog(cause, "-", "standard input"); err != cause {
		t.Errorf("NotALog of a log = %v; want the error as it is", err)
	}
	l.Warn(func(s string) { warned = append(warned, s) })("run.bogus: unknown field")
	if len(warned) != 1 {
		t.Errorf("a log's warning was not passed on")
	}
	if err := NewLook(nil).NotALog(nil, "-", "standard input"); err != nil {
		t.Errorf("NotALog(nil) = %v", err)
	}
}

// known reports whether name is a format of ctx convert.
func known(name string) bool {
	for _, n := range convert.FormatNames() {
		if n == name {
			return true
		}
	}
	return false
}
