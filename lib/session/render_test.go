package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/storetest"
)

// A run of two parallel calls (one model message) and then one more, with
// a reasoning step and an event step, rendered into each agent.
const renderLog = `{"model": {"identifier": "m-1"}, "created": "2026-05-01T10:00:00Z",
 "system_prompt": "be brief",
 "metadata": {"session_id": "s-1", "source_format": "openai"},
 "prompts": [{"content": "look at a and b", "metadata": {"at_step": 0}}, {"content": "thanks", "metadata": {"at_step": 6}}],
 "steps": [
  {"type": "model_call", "tool": "m-1", "parameters": {"thinking": true}, "output": "hmm"},
  {"type": "tool_call", "tool": "read", "parameters": {"path": "a"}, "output": "A", "metadata": {"message_id": "m1", "tool_call_id": "c1"}},
  {"type": "tool_call", "tool": "read", "parameters": {"path": "b"}, "output": "B", "metadata": {"message_id": "m1", "tool_call_id": "c2"}},
  {"type": "tool_call", "tool": "shell cmd", "parameters": {"cmd": "ls"}, "output": "x", "metadata": {"tool_call_id": "bad id!"}},
  {"type": "event", "tool": "usage", "parameters": {}},
  {"type": "model_call", "tool": "m-1", "output": "a is A, b is B"}
 ]}`

func TestRendered(t *testing.T) {
	st := storetest.New(t)
	m := packtest.Pack(t, st, renderLog)
	h := packtest.Hash(t, m)
	cwd := t.TempDir()
	for _, c := range []struct {
		to   string
		want string // the records, summarised
	}{
		{"claude-code", `user:look at a and b | assistant:tool_use c1 read,tool_use c2 read | user:tool_result c1,tool_result c2 | ` +
			`assistant:tool_use call_ctx_3 shell_cmd | user:tool_result call_ctx_3 | assistant:text | user:thanks`},
		{"codex", `session_meta | message user | user_message | turn_context | function_call c1 read | function_call_output c1 | ` +
			`function_call c2 read | function_call_output c2 | function_call call_ctx_3 shell_cmd | function_call_output call_ctx_3 | ` +
			`message assistant | agent_message | message user | user_message`},
		{"gemini", `meta | user | gemini c1 read,c2 read | user response | gemini call_ctx_3 shell_cmd | user response | gemini text | user | set`},
	} {
		var warned []string
		res, err := Restore(st, h, RestoreOptions{To: c.to, Cwd: cwd, Env: envOf(t.TempDir()), Warn: func(s string) { warned = append(warned, s) }})
		if err != nil {
			t.Fatalf("Restore --to %s: %v", c.to, err)
		}
		if res.Mode != "rendered" || res.Session == "" || len(res.Lost) != 3 || len(warned) != 3 {
			t.Errorf("Restore --to %s: %+v, warned %q; want rendered, the reasoning, the event and the system prompt lost", c.to, res, warned)
		}
		if got := summarise(t, c.to, res.File); got != c.want {
			t.Errorf("--to %s:\n%s\nwant\n%s", c.to, got, c.want)
		}
	}
}

// summarise names each record of a rendered session file.
func summarise(t *testing.T, agent, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("%s: %v", filepath.Base(path), err)
		}
		out = append(out, summary(agent, r))
	}
	return strings.Join(out, " | ")
}

func summary(agent string, r map[string]any) string {
	str := func(v any) string { s, _ := v.(string); return s }
	obj := func(v any) map[string]any { m, _ := v.(map[string]any); return m }
	switch agent {
	case "claude-code":
		msg := obj(r["message"])
		if s, ok := msg["content"].(string); ok {
			return str(r["type"]) + ":" + s
		}
		var parts []string
		for _, b := range msg["content"].([]any) {
			b := obj(b)
			p := str(b["type"])
			if id := str(b["id"]) + str(b["tool_use_id"]); id != "" {
				p += " " + id
			}
			if n := str(b["name"]); n != "" {
				p += " " + n
			}
			parts = append(parts, p)
		}
		return str(r["type"]) + ":" + strings.Join(parts, ",")
	case "codex":
		p := obj(r["payload"])
		if r["type"] == "session_meta" || r["type"] == "turn_context" {
			return str(r["type"])
		}
		s := str(p["type"])
		for _, k := range []string{"role", "call_id", "name"} {
			if v := str(p[k]); v != "" {
				s += " " + v
			}
		}
		return s
	}
	switch {
	case r["sessionId"] != nil:
		return "meta"
	case r["$set"] != nil:
		return "set"
	case r["type"] == "gemini":
		var calls []string
		for _, c := range anyList(r["toolCalls"]) {
			c := obj(c)
			calls = append(calls, str(c["id"])+" "+str(c["name"]))
		}
		if len(calls) == 0 {
			return "gemini text"
		}
		return "gemini " + strings.Join(calls, ",")
	}
	if parts := anyList(r["content"]); len(parts) > 0 && obj(parts[0])["functionResponse"] != nil {
		return "user response"
	}
	return str(r["type"])
}

func anyList(v any) []any { l, _ := v.([]any); return l }
