package ctx_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/cmd/ctx-convert/convertcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-init/initcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-pack/packcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-replay/replaycmd"
	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
)

// fileCall is a write or an edit an agent called, and what it wrote.
type fileCall struct {
	tool   string
	params map[string]any
}

// fileCalls are a write, then an edit, of one file per spelling of each
// write and edit tool (agenttool.Builtins) and each spelling of the path
// (agenttool.FilePathKeys): every call whose result a converter
// normalises into replay's sentence.
func fileCalls() []fileCall {
	var calls []fileCall
	var names []string
	for name := range agenttool.Builtins() {
		names = append(names, name)
	}
	slices.Sort(names)
	n := 0
	for _, name := range names {
		for _, key := range agenttool.FilePathKeys() {
			n++
			f := fmt.Sprintf("/w/f%03d.txt", n)
			write := map[string]any{key: f, "content": "hello\n"}
			edit := map[string]any{key: f, "old_string": "hello", "new_string": "HELLO"}
			switch agenttool.Builtins()[name] {
			case agenttool.Write:
				calls = append(calls, fileCall{name, write})
			case agenttool.Edit:
				calls = append(calls, fileCall{"Write", map[string]any{"file_path": f, "content": "hello\n"}}, fileCall{name, edit})
			case agenttool.MultiEdit:
				calls = append(calls, fileCall{"Write", map[string]any{"file_path": f, "content": "hello\n"}},
					fileCall{name, map[string]any{key: f, "edits": []any{map[string]any{"old_string": "hello", "new_string": "HELLO"}}}})
			case agenttool.Editor:
				calls = append(calls,
					fileCall{name, map[string]any{"command": "create", key: f, "file_text": "hello\n"}},
					fileCall{name, map[string]any{"command": "str_replace", key: f, "old_str": "hello", "new_str": "HELLO"}},
					fileCall{name, map[string]any{"command": "insert", key: f, "insert_line": 0, "new_str": "top"}})
			}
		}
	}
	return calls
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// piSession is a pi session of the calls, each answered "done".
func piSession(t *testing.T, calls []fileCall) string {
	lines := []string{`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T10:00:00.000Z","cwd":"/w"}`,
		`{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T10:00:00.000Z","message":{"role":"user","content":"go"}}`}
	parent := "u"
	for i, c := range calls {
		call := map[string]any{"type": "toolCall", "id": fmt.Sprint("c", i), "name": c.tool, "arguments": c.params}
		lines = append(lines,
			fmt.Sprintf(`{"type":"message","id":"a%d","parentId":%q,"timestamp":"2026-01-01T10:00:01.000Z","message":{"role":"assistant","content":[%s],"provider":"p","model":"m","stopReason":"toolUse"}}`, i, parent, jsonOf(t, call)),
			fmt.Sprintf(`{"type":"message","id":"r%d","parentId":"a%d","timestamp":"2026-01-01T10:00:02.000Z","message":{"role":"toolResult","toolCallId":"c%d","toolName":%q,"content":[{"type":"text","text":"done"}],"isError":false}}`, i, i, i, c.tool))
		parent = fmt.Sprint("r", i)
	}
	return strings.Join(lines, "\n") + "\n"
}

// claudeSession is a Claude Code session of the calls, each answered
// "done".
func claudeSession(t *testing.T, calls []fileCall) string {
	env := `"sessionId":"s","cwd":"/w","timestamp":"2026-01-01T00:00:02Z"`
	lines := []string{fmt.Sprintf(`{"type":"user",%s,"uuid":"u","message":{"role":"user","content":"go"}}`, env)}
	for i, c := range calls {
		use := map[string]any{"type": "tool_use", "id": fmt.Sprint("t", i), "name": c.tool, "input": c.params}
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant",%s,"uuid":"a%d","message":{"id":"m%d","model":"x","role":"assistant","content":[%s]}}`, env, i, i, jsonOf(t, use)),
			fmt.Sprintf(`{"type":"user",%s,"uuid":"r%d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"done"}]}}`, env, i, i))
	}
	return strings.Join(lines, "\n") + "\n"
}

// TestConvertedWritesAndEditsReplayAlike converts a transcript of every
// write and edit tool under every spelling of its path, packs it and
// replays it: each step must match, which it can only through its
// normalised output (the transcript answers "done"). The converter's
// sentence and replay's come from agenttool; this holds them equal.
func TestConvertedWritesAndEditsReplayAlike(t *testing.T) {
	calls := fileCalls()
	for _, format := range []struct {
		name    string
		session func(*testing.T, []fileCall) string
	}{{"pi", piSession}, {"claude-code", claudeSession}} {
		t.Run(format.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			transcript := filepath.Join(dir, "session.jsonl")
			if err := os.WriteFile(transcript, []byte(format.session(t, calls)), 0o644); err != nil {
				t.Fatal(err)
			}
			log := run(t, convertcmd.Run, nil, "--from", format.name, transcript)
			if err := os.WriteFile("run.ndjson", []byte(log), 0o644); err != nil {
				t.Fatal(err)
			}
			normalized := 0
			for _, line := range strings.Split(log, "\n") {
				if strings.Contains(line, `"normalized_output":"File `) {
					normalized++
				}
			}
			if normalized != len(calls) {
				t.Errorf("%d of %d steps have the normalised sentence", normalized, len(calls))
			}
			run(t, initcmd.Run, nil)
			p := strings.TrimSpace(run(t, packcmd.Run, nil, "--no-sidecars", "run.ndjson"))
			out := run(t, replaycmd.Run, nil, "--json", p)
			steps := 0
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var s replaystream.Step
				if err := json.Unmarshal([]byte(line), &s); err != nil {
					t.Fatalf("replay: %v: %s", err, line)
				}
				if s.Event != "step" {
					continue
				}
				steps++
				if s.Status != replaystream.Matched {
					c := calls[s.Index]
					t.Errorf("step %d: %s %v: %s %s", s.Index, c.tool, c.params, s.Status, s.Reason)
				}
			}
			if steps != len(calls) {
				t.Errorf("replay gave %d steps of %d", steps, len(calls))
			}
		})
	}
}
