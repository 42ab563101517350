package agenttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/interop"
	"github.com/contextsubstrate/ctx/internal/modelstub"
	"github.com/contextsubstrate/ctx/lib/agentstore"
)

// runTask runs the standard task with agent in a fresh directory and
// checks what the agent did and sent: b.txt written, and each request
// after a call carrying that call's result back to the model.
func runTask(t *testing.T, agent, version string, subagent bool) (*Home, string, Result) {
	t.Helper()
	Need(t, agent)
	dir := t.TempDir()
	PrepareTaskDir(t, dir)
	stub := StartStub(t, TaskScript(agent, dir, subagent))
	home := NewHome(t, agent, stub)
	if got := home.Version(t); !strings.Contains(got, version) {
		t.Fatalf("%s --version = %q, want version %s (testdata/npm/package.json)", agent, got, version)
	}
	res := home.Prompt(t, dir, TaskPrompt)
	if b, err := os.ReadFile(filepath.Join(dir, "b.txt")); err != nil || string(b) != BText {
		t.Errorf("b.txt = %q, %v; want the scripted write %q", b, err, BText)
	}
	// The main loop's request for each turn; each after the first carries
	// the result of the call before it.
	byTurn := map[int]modelstub.Record{}
	for _, r := range stub.Turns(t) {
		if strings.Contains(r.Prompt, TaskPrompt) {
			byTurn[r.Turn] = r
		}
	}
	offset := 0
	if subagent {
		offset = 1
		if !bytes.Contains(byTurn[1].Body, []byte(SubText)) {
			t.Errorf("the request after the sub-agent does not carry its answer %q", SubText)
		}
	}
	wants := []string{"hello from a", "b.txt", ShellMark}
	for i, want := range wants {
		r, ok := byTurn[offset+i+1]
		if !ok {
			t.Errorf("no request for turn %d of the task (turns seen: %v)", offset+i+1, keys(byTurn))
			continue
		}
		if !bytes.Contains(r.Body, []byte(want)) {
			t.Errorf("request %d (turn %d) does not carry the previous call's result %q", r.Seq, r.Turn, want)
		}
	}
	stub.CheckNothingLeft(t)
	return home, dir, res
}

func keys(m map[int]modelstub.Record) []int {
	var out []int
	for k := range m {
		out = append(out, k)
	}
	return out
}

// jsonLines reads a JSON-lines file.
func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Result{Stdout: b}.Lines()
}

// mustGlob returns the one file matching pattern.
func mustGlob(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) != 1 {
		t.Fatalf("%s: %d matches, want 1: %v", pattern, len(m), m)
	}
	return m[0]
}

// holds reports whether the JSON text of v contains each of subs.
func holds(t *testing.T, what string, v any, subs ...string) {
	t.Helper()
	b, _ := json.Marshal(v)
	for _, s := range subs {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("%s does not hold %q", what, s)
		}
	}
}

// sessionID is the first value of field among the lines.
func sessionID(t *testing.T, lines []map[string]any, field string) string {
	t.Helper()
	for _, l := range lines {
		if s, ok := l[field].(string); ok && s != "" {
			return s
		}
	}
	t.Fatalf("no %q in the agent's output", field)
	return ""
}

// TestInteropClaudeCode runs Claude Code on the task with a sub-agent and
// checks its session in its store: projects/<folder>/<id>.jsonl with
// every call and result, and the sub-agent's own transcript under
// <id>/subagents/.
func TestInteropClaudeCode(t *testing.T) {
	home, dir, res := runTask(t, ClaudeCode, interop.ClaudeCodeVersion, true)
	id := sessionID(t, res.Lines(), "session_id")
	session := filepath.Join(home.ConfigDir(), "projects", agentstore.ClaudeProjectFolder(dir), id+".jsonl")
	lines := jsonLines(t, session)
	holds(t, session, lines, `"name":"Read"`, `"name":"Write"`, `"name":"Bash"`, `"name":"Agent"`,
		`"tool_result"`, ShellMark, SubText, FinalText, `"cwd":"`+dir+`"`)
	sub := mustGlob(t, filepath.Join(home.ConfigDir(), "projects", agentstore.ClaudeProjectFolder(dir), id, "subagents", "agent-*.jsonl"))
	holds(t, sub, jsonLines(t, sub), SubPrompt, `"name":"Read"`, SubMark, SubText)
}

// TestInteropCodex runs Codex on the task and checks its rollout in its
// store: sessions/YYYY/MM/DD/rollout-*-<id>.jsonl, its session_meta's cwd,
// each function call and its output.
func TestInteropCodex(t *testing.T) {
	home, dir, res := runTask(t, Codex, interop.CodexVersion, false)
	id := sessionID(t, res.Lines(), "thread_id")
	rollout := mustGlob(t, filepath.Join(home.ConfigDir(), "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
	lines := jsonLines(t, rollout)
	if len(lines) == 0 || lines[0]["type"] != "session_meta" {
		t.Fatalf("%s does not start with session_meta", rollout)
	}
	holds(t, rollout+" session_meta", lines[0], `"cwd":"`+dir+`"`, `"model_provider":"stub"`)
	holds(t, rollout, lines, `"type":"function_call"`, `"name":"exec_command"`, `"type":"custom_tool_call"`,
		`"name":"apply_patch"`, `"type":"function_call_output"`, `"type":"custom_tool_call_output"`, ShellMark, FinalText)
}

// TestInteropGeminiCLI runs Gemini CLI on the task and checks its session
// in its store: tmp/<project>/chats/session-*.jsonl named by projects.json,
// with each tool call and its result.
func TestInteropGeminiCLI(t *testing.T) {
	home, dir, res := runTask(t, Gemini, interop.GeminiCLIVersion, false)
	id := sessionID(t, res.Lines(), "session_id")
	var projects struct {
		Projects map[string]string `json:"projects"`
	}
	b, err := os.ReadFile(filepath.Join(home.ConfigDir(), "projects.json"))
	if err != nil || json.Unmarshal(b, &projects) != nil || projects.Projects[dir] == "" {
		t.Fatalf("projects.json names no project for %s: %s %v", dir, b, err)
	}
	session := mustGlob(t, filepath.Join(home.ConfigDir(), "tmp", projects.Projects[dir], "chats", "session-*-"+id[:8]+".jsonl"))
	lines := jsonLines(t, session)
	holds(t, session, lines, `"sessionId":"`+id+`"`, `"name":"read_file"`, `"name":"write_file"`,
		`"name":"run_shell_command"`, `"$set"`, ShellMark, FinalText)
}

// TestInteropOpenCode runs OpenCode on the task and reads its session back
// with opencode export (its store is a SQLite database): each tool part
// with its input and output.
func TestInteropOpenCode(t *testing.T) {
	home, dir, res := runTask(t, OpenCode, interop.OpenCodeVersion, false)
	id := sessionID(t, res.Lines(), "sessionID")
	export := home.Run(t, dir, "export", id)
	var doc map[string]any
	if err := json.Unmarshal(export.Stdout, &doc); err != nil {
		t.Fatalf("opencode export %s: %v\n%s", id, err, tail(export.Stdout))
	}
	holds(t, "opencode export", doc, `"tool":"read"`, `"tool":"write"`, `"tool":"bash"`, ShellMark, FinalText, dir)
}
