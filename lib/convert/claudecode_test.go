package convert

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
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
	// The summary line (the session's title) is bookkeeping: no step, but
	// kept in the metadata of the step after it.
	want := []string{
		"model_call claude-x plan it",
		"model_call claude-x First.\n\nSecond.",
		"tool_call MultiEdit edited",
		"tool_call Read part",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("steps\n%q\nwant\n%q", got, want)
	}
	steps := ofEvent(evs, "step")
	if recs, _ := steps[0]["metadata"].(map[string]any)["harness_records"].([]any); len(recs) != 1 || recs[0].(map[string]any)["type"] != "summary" || recs[0].(map[string]any)["text"] != "Earlier work" {
		t.Errorf("the summary is not in the metadata of the step after it: %v", steps[0]["metadata"])
	}
	if steps[0]["parameters"].(map[string]any)["thinking"] != true || steps[0]["metadata"].(map[string]any)["signature"] != "sig" {
		t.Errorf("thinking step %v", steps[0])
	}
	// The turn's usage is the last line's, on its first step.
	if u := steps[0]["metadata"].(map[string]any)["usage"].(map[string]any); u["output_tokens"] != float64(9) {
		t.Errorf("usage %v", u)
	}
	if p := steps[2]["parameters"].(map[string]any)["file_path"]; p != "a.txt" {
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

// withoutTicks is a Claude Code transcript as it would be had Claude Code
// written no progress records: their lines gone, and each line whose
// parent was one naming that record's nearest ancestor instead.
func withoutTicks(t *testing.T, data []byte) []byte {
	t.Helper()
	parent := map[string]string{} // progress uuid -> its nearest non-progress ancestor
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var head struct {
			Type   string  `json:"type"`
			UUID   string  `json:"uuid"`
			Parent *string `json:"parentUuid"`
		}
		if err := json.Unmarshal(line, &head); err != nil {
			t.Fatal(err)
		}
		p := ""
		if head.Parent != nil {
			p = *head.Parent
		}
		if r, ok := parent[p]; ok {
			if r == "" {
				line = bytes.Replace(line, []byte(`"parentUuid":"`+p+`"`), []byte(`"parentUuid":null`), 1)
			} else {
				line = bytes.Replace(line, []byte(`"parentUuid":"`+p+`"`), []byte(`"parentUuid":"`+r+`"`), 1)
			}
			p = r
		}
		if head.Type == "progress" {
			parent[head.UUID] = p
			continue
		}
		out.Write(line)
	}
	return out.Bytes()
}

// TestProgressTicksMakeNoDifference converts a real session with 103
// progress records (86 bash_progress ticks) and the same session without
// them: the same pack, and the note counts what was dropped.
func TestProgressTicksMakeNoDifference(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(corpusDir(), "claude-code-jsonl", "entire-cli", "entire-9b_04c3d92e38_1.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	with, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	without := withoutTicks(t, with)
	if len(without) >= len(with) {
		t.Fatal("no progress records were taken out")
	}
	hash := func(in []byte) (string, []string) {
		var out bytes.Buffer
		var notes []string
		if _, err := Convert(bytes.NewReader(in), nil, &out, Options{Note: func(s string) { notes = append(notes, s) }}); err != nil {
			t.Fatal(err)
		}
		_, h, err := pack.Encode(checkPacks(t, "session", out.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		return h.String(), notes
	}
	a, notes := hash(with)
	b, none := hash(without)
	if a != b {
		t.Errorf("with ticks %s, without %s: want one pack", a, b)
	}
	booked := "8 record(s) of the harness kept out of the steps, in the metadata (harness_records) of the step after each: 1 interrupt, 2 system, 5 file-history-snapshot"
	if want := []string{"103 progress records dropped (bash_progress 86, hook_progress 17): ticks of running tools, hooks and subagents are not steps", booked}; strings.Join(notes, "|") != strings.Join(want, "|") {
		t.Errorf("notes %q, want %q", notes, want)
	}
	if len(none) != 1 || none[0] != booked {
		t.Errorf("without ticks, notes %q", none)
	}
}

// TestClaudeCodeRefusals covers the shapes the corpus does not show: a
// call interrupted before it answered (no result at all), one whose result
// is the interrupt marker itself, one that ran (its progress shown) and was
// cut short, and the older wording of a refusal.
func TestClaudeCodeRefusals(t *testing.T) {
	env := `"sessionId":"s","cwd":"/w"`
	use := func(n int, name string) string {
		return fmt.Sprintf(`{"type":"assistant",%s,"uuid":"a%d","message":{"id":"m%d","model":"x","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"%s","input":{"command":"make"}}]}}`, env, n, n, n, name)
	}
	result := func(n int, text string, isErr bool) string {
		return fmt.Sprintf(`{"type":"user",%s,"uuid":"r%d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%q,"is_error":%v}]}}`, env, n, n, text, isErr)
	}
	in := strings.Join([]string{
		`{"type":"user",` + env + `,"uuid":"u0","message":{"role":"user","content":"build it"}}`,
		use(1, "Bash"),
		`{"type":"user",` + env + `,"uuid":"i1","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user for tool use]"}]}}`,
		use(2, "Bash"),
		result(2, "[Request interrupted by user for tool use]", true),
		use(3, "Bash"),
		`{"type":"progress",` + env + `,"uuid":"p3","parentUuid":"a3","data":{"type":"bash_progress","output":"cc -c"},"parentToolUseID":"t3","toolUseID":"b3"}`,
		result(3, "[Request interrupted by user for tool use]", true),
		use(4, "Write"),
		result(4, "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed.", true),
		use(5, "Bash"),
		result(5, "Exit code 2\nmake: *** No rule to make target", true),
	}, "\n")
	evs, warns := events(t, "", in)
	if len(warns) > 0 {
		t.Errorf("warnings %q", warns)
	}
	var got []string
	for _, s := range ofEvent(evs, "step") {
		out, _ := s["output"].(string)
		o, _ := s["outcome"].(string)
		got = append(got, fmt.Sprintf("%s %s %s %q", s["type"], s["tool"], o, out))
	}
	want := []string{
		`tool_call Bash rejected ""`, // the interrupt marker after it is bookkeeping: no step
		`tool_call Bash rejected "[Request interrupted by user for tool use]"`,
		`tool_call Bash  "[Request interrupted by user for tool use]"`,
		`tool_call Write rejected "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed."`,
		`tool_call Bash  "Exit code 2\nmake: *** No rule to make target"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("steps\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if p := ofEvent(evs, "prompt"); len(p) != 1 || p[0]["content"] != "build it" {
		t.Errorf("prompts %v, want only what the user typed", p)
	}
}

// TestSubagentFiles holds what SubagentFiles lists for a session: the
// subagents/ folder of 2.1 and later, and the older agent-ID.jsonl files
// beside the session that name it (not those of another session).
func TestSubagentFiles(t *testing.T) {
	dir := filepath.Join(corpusDir(), "claude-code-subagents", "spotter")
	got, err := SubagentFiles(filepath.Join(dir, "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "ae4a77f8-aedd-4bc1-888f-c94edc91af04", "subagents")
	want := []string{filepath.Join(sub, "agent-aac57f5.jsonl"), filepath.Join(sub, "agent-acompact-946d2b.jsonl")}
	if !slices.Equal(got, want) {
		t.Errorf("spotter: %v, want %v", got, want)
	}
	old := t.TempDir()
	session := filepath.Join(old, "s-1.jsonl")
	for name, sid := range map[string]string{"s-1.jsonl": "s-1", "agent-a1.jsonl": "s-1", "agent-b2.jsonl": "s-2"} {
		line := `{"type":"user","sessionId":"` + sid + `","isSidechain":true,"message":{"role":"user","content":"Warmup"}}` + "\n"
		if err := os.WriteFile(filepath.Join(old, name), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err = SubagentFiles(session)
	if err != nil || !slices.Equal(got, []string{filepath.Join(old, "agent-a1.jsonl")}) {
		t.Errorf("older layout: %v (%v), want agent-a1.jsonl alone", got, err)
	}
	if got, err := SubagentFiles(filepath.Join(old, "none.jsonl")); err != nil || got != nil {
		t.Errorf("a session with no sub-agents: %v, %v", got, err)
	}
}

// TestSubagentsGiven reads a session from a stream with its sub-agent's
// transcript given (Options.Subagents, a file or its folder): the same
// log as the session read from its file, which finds it beside it.
func TestSubagentsGiven(t *testing.T) {
	dir := filepath.Join(corpusDir(), "claude-code-jsonl", "modelstub-runs")
	path := filepath.Join(dir, "e6aab877-4103-471e-ac8a-9b0b75066ef0.jsonl")
	_, want, _, err := convertFile(t, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(dir, "e6aab877-4103-471e-ac8a-9b0b75066ef0", "subagents", "agent-afcd148203892e95a.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, given := range [][]string{{agent}, {filepath.Dir(agent)}} {
		var out bytes.Buffer
		var warns []string
		if _, err := Convert(bytes.NewReader(data), nil, &out, Options{Subagents: given, Warn: func(s string) { warns = append(warns, s) }}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), want) || len(warns) > 0 {
			t.Errorf("given %v: another log (warnings %v)", given, warns)
		}
	}
	var out bytes.Buffer
	var warns []string
	if _, err := Convert(bytes.NewReader(data), nil, &out, Options{Warn: func(s string) { warns = append(warns, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "afcd148203892e95a of steps[1]") {
		t.Errorf("none given: warnings %q, want the sub-agent not found", warns)
	}
}

// TestSubagentsBesideOlderSession reads a session of the older layout:
// the Task call's sub-agent in agent-ID.jsonl beside the session, read
// after the call; the warm-up side-chain beside it ("Warmup", no call
// names it) is no work and is not read.
func TestSubagentsBesideOlderSession(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"s-1.jsonl": `{"type":"user","sessionId":"s-1","cwd":"/w","uuid":"u1","message":{"role":"user","content":"look at a"}}
{"type":"assistant","sessionId":"s-1","uuid":"u2","message":{"id":"m1","model":"opus","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"description":"d","prompt":"read a","subagent_type":"Explore"}}]}}
{"type":"user","sessionId":"s-1","uuid":"u3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a says hi"}]},"toolUseResult":{"status":"completed","agentId":"b2","totalToolUseCount":1}}
{"type":"assistant","sessionId":"s-1","uuid":"u4","message":{"id":"m2","model":"opus","content":[{"type":"text","text":"It says hi."}]}}
`,
		"agent-b2.jsonl": `{"type":"user","sessionId":"s-1","isSidechain":true,"agentId":"b2","uuid":"v1","message":{"role":"user","content":"read a"}}
{"type":"assistant","sessionId":"s-1","isSidechain":true,"agentId":"b2","uuid":"v2","message":{"id":"n1","model":"haiku","content":[{"type":"tool_use","id":"t2","name":"Read","input":{"file_path":"/w/a"}}]}}
{"type":"user","sessionId":"s-1","isSidechain":true,"agentId":"b2","uuid":"v3","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t2","content":"hi"}]}}
`,
		"agent-a1.jsonl": `{"type":"user","sessionId":"s-1","isSidechain":true,"agentId":"a1","uuid":"w1","message":{"role":"user","content":"Warmup"}}
{"type":"assistant","sessionId":"s-1","isSidechain":true,"agentId":"a1","uuid":"w2","message":{"id":"o1","model":"haiku","content":[{"type":"tool_use","id":"t3","name":"Glob","input":{"pattern":"*"}}]}}
`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, log, warns, err := convertFile(t, filepath.Join(dir, "s-1.jsonl"), Options{})
	if err != nil || len(warns) > 0 {
		t.Fatalf("%v %q", err, warns)
	}
	m := checkPacks(t, "older", log)
	var got []string
	for _, s := range m.Steps {
		var md struct {
			Subagent struct {
				AgentID string `json:"agent_id"`
				Type    string `json:"type"`
			} `json:"subagent"`
		}
		_ = json.Unmarshal(s.Metadata, &md)
		got = append(got, s.Tool+"/"+md.Subagent.AgentID+"/"+md.Subagent.Type)
	}
	want := []string{"Task//", "Read/b2/Explore", "opus//"}
	if !slices.Equal(got, want) || len(m.Prompts) != 1 {
		t.Errorf("steps %q and %d prompts, want %q and 1", got, len(m.Prompts), want)
	}
	files2, _ := SubagentFiles(filepath.Join(dir, "s-1.jsonl"))
	if len(files2) != 2 {
		t.Errorf("SubagentFiles lists %v, want both side-chains", files2)
	}
}
