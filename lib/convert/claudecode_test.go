package convert

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// events converts a transcript and returns its events, decoded.
func events(t *testing.T, from, in string) ([]map[string]any, []string) {
	t.Helper()
	var out bytes.Buffer
	var warns []string
	if _, err := Convert(strings.NewReader(in), nil, &out, Options{From: from, Warn: func(s string) { warns = append(warns, s) }}); err != nil {
		t.Fatal(err)
	}
	checkPacks(t, "log", out.Bytes())
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs, warns
}

func ofEvent(evs []map[string]any, kind string) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		if e["event"] == kind {
			out = append(out, e)
		}
	}
	return out
}

// TestClaudeCodeTurns covers what the corpus does not show: one message
// spread over lines with thinking, two text blocks and a tool call, a
// MultiEdit replayed onto the file it started from, a partial Read (not an
// input), a summary line, and a model named only after a few lines.
func TestClaudeCodeTurns(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"summary","summary":"Earlier work","leafUuid":"l0"}`,
		`{"type":"user","sessionId":"s","uuid":"u1","cwd":"/w","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"go"}}`,
		`{"type":"assistant","sessionId":"s","uuid":"a1","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"thinking","thinking":"plan it","signature":"sig"}],"usage":{"output_tokens":1}}}`,
		`{"type":"assistant","sessionId":"s","uuid":"a2","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"text","text":"First."}]}}`,
		`{"type":"assistant","sessionId":"s","uuid":"a3","timestamp":"2026-01-01T00:00:01Z","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"text","text":"Second."}]}}`,
		`{"type":"assistant","sessionId":"s","uuid":"a4","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"MultiEdit","input":{"file_path":"/w/a.txt","edits":[{"old_string":"one","new_string":"1"},{"old_string":"two","new_string":"2"}]}}],"usage":{"output_tokens":9}}}`,
		`{"type":"assistant","sessionId":"s","uuid":"a5","timestamp":"2026-01-01T00:00:02Z","message":{"id":"m1","model":"claude-x","role":"assistant","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/w/big.txt","offset":10}}]}}`,
		`{"type":"user","sessionId":"s","uuid":"r2","timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"part"}]},"toolUseResult":{"type":"text","file":{"filePath":"/w/big.txt","content":"part","startLine":10,"numLines":1,"totalLines":90}}}`,
		`{"type":"user","sessionId":"s","uuid":"r1","timestamp":"2026-01-01T00:00:03Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"edited"}]},"toolUseResult":{"filePath":"/w/a.txt","edits":[{"old_string":"one","new_string":"1","replace_all":false},{"old_string":"two","new_string":"2","replace_all":false}],"originalFile":"one two three\n"}}`,
	}, "\n")
	evs, warns := events(t, "", in)
	if len(warns) > 0 {
		t.Errorf("warnings: %q", warns)
	}
	if run := evs[0]; run["event"] != "run" || run["model"].(map[string]any)["identifier"] != "claude-x" {
		t.Fatalf("first event %v, want the run naming claude-x", run)
	}
	var got []string
	for _, s := range ofEvent(evs, "step") {
		out, _ := s["output"].(string)
		got = append(got, s["type"].(string)+" "+s["tool"].(string)+" "+out)
	}
	want := []string{
		"event summary Earlier work",
		"model_call claude-x plan it",
		"model_call claude-x First.\n\nSecond.",
		"tool_call MultiEdit edited",
		"tool_call Read part",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("steps\n%q\nwant\n%q", got, want)
	}
	steps := ofEvent(evs, "step")
	if steps[1]["parameters"].(map[string]any)["thinking"] != true || steps[1]["metadata"].(map[string]any)["signature"] != "sig" {
		t.Errorf("thinking step %v", steps[1])
	}
	// The turn's usage is the last line's, on its first step.
	if u := steps[1]["metadata"].(map[string]any)["usage"].(map[string]any); u["output_tokens"] != float64(9) {
		t.Errorf("usage %v", u)
	}
	if p := steps[3]["parameters"].(map[string]any)["file_path"]; p != "a.txt" {
		t.Errorf("file_path %v, want a.txt", p)
	}
	ins, outs := ofEvent(evs, "input"), ofEvent(evs, "output")
	if len(ins) != 1 || ins[0]["name"] != "a.txt" || ins[0]["content"] != "one two three\n" {
		t.Errorf("inputs %v: want a.txt as it was (big.txt was read in part)", ins)
	}
	if len(outs) != 1 || outs[0]["name"] != "a.txt" || outs[0]["content"] != "1 2 three\n" {
		t.Errorf("outputs %v: want a.txt after both edits", outs)
	}
}
