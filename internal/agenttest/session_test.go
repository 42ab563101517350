package agenttest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/interop"
	"github.com/contextsubstrate/ctx/lib/agentstore"
)

// The tests of ctx capture and ctx restore with the real agents
// (docs/RESTORE.md): a session an agent wrote in one home is captured
// into a store, restored into another home for a directory whose name
// has "_" and ".", and the agent's own resume there sends its history to
// the model: the proof that the agent read what restore wrote.

// ctxName is ctx's name of an agent of this package.
func ctxName(agent string) string {
	switch agent {
	case ClaudeCode:
		return agentstore.ClaudeCode
	case Codex:
		return agentstore.Codex
	}
	return agentstore.Gemini
}

// versionOf is the pinned version of agent.
func versionOf(agent string) string {
	switch agent {
	case ClaudeCode:
		return interop.ClaudeCodeVersion
	case Codex:
		return interop.CodexVersion
	}
	return interop.GeminiCLIVersion
}

// source is a session an agent wrote for the standard task, captured.
type source struct {
	agent   string
	home    *Home
	dir     string
	session string // the session id
	tag     string
	calls   []string // the ids of its calls, as the stand-in's script made them
	tools   []string // the names of its tools
}

// captured runs the standard task with agent (Claude Code with a
// sub-agent) and captures its session into ctx's store.
func captured(t *testing.T, c *ctxTool, agent string) source {
	t.Helper()
	home, dir, res := runTask(t, agent, versionOf(agent), agent == ClaudeCode)
	s := source{agent: agent, home: home, dir: dir}
	switch agent {
	case ClaudeCode:
		s.session = sessionID(t, res.Lines(), "session_id")
		// The sub-agent's conversation is the script's first.
		s.calls = []string{"toolu_stub_c1_t0_0", "toolu_stub_c1_t1_0", "toolu_stub_c1_t2_0", "toolu_stub_c1_t3_0"}
		s.tools = []string{"Agent", "Read", "Write", "Bash"}
	case Codex:
		s.session = sessionID(t, res.Lines(), "thread_id")
		s.calls = []string{"call_stub_c0_t0_0", "call_stub_c0_t1_0", "call_stub_c0_t2_0"}
		s.tools = []string{"exec_command", "apply_patch"}
	case Gemini:
		s.session = sessionID(t, res.Lines(), "session_id")
		s.tools = []string{"read_file", "write_file", "run_shell_command"}
	}
	rep := c.capture(t, home, dir, ctxName(agent))
	got := rep.Captured[0]
	if agent == Gemini {
		// Gemini CLI makes its call ids of the time: read them back.
		for _, l := range jsonLines(t, got.File) {
			calls, _ := l["toolCalls"].([]any)
			for _, c := range calls {
				if id, _ := c.(map[string]any)["id"].(string); id != "" && !contains(s.calls, id) {
					s.calls = append(s.calls, id)
				}
			}
		}
		if len(s.calls) != 3 {
			t.Fatalf("%s: %d call ids, want the task's 3: %v", got.File, len(s.calls), s.calls)
		}
	}
	s.tag = got.Tag
	if got.Session != s.session || got.Tag != ctxName(agent)+"."+s.session {
		t.Fatalf("ctx capture packed session %s as %s, want the agent's session %s", got.Session, got.Tag, s.session)
	}
	return s
}

// resumeIn restores s into a fresh home of agent in a fresh directory
// named with "_" and ".", and runs the agent's resume there (by id, or
// the directory's latest session when byID is false); it returns what
// restore printed and the request that carried ResumePrompt.
func (s source) resumeIn(t *testing.T, c *ctxTool, agent string, byID bool) (restored, []byte) {
	t.Helper()
	dir := restoredDir(t)
	stub := StartStub(t, ResumeScript())
	home := NewHome(t, agent, stub)
	var got restored
	c.json(t, home, dir, &got, "restore", "--to", ctxName(agent), "--cwd", dir, s.tag)
	if got.Agent != ctxName(agent) || got.Cwd != dir || !strings.HasPrefix(got.File, home.ConfigDir()+"/") {
		t.Fatalf("ctx restore: %+v, want a session of %s in %s under %s", got, agent, dir, home.ConfigDir())
	}
	id := ""
	if byID {
		id = got.Session
	}
	home.Run(t, dir, home.ResumeArgs(id, ResumePrompt)...)
	stub.CheckNothingLeft(t)
	return got, resumed(t, stub).Body
}

// checkHistory checks that the resumed request holds s's history: the
// task, each call and its result, the final answer.
func (s source) checkHistory(t *testing.T, target string, body []byte) {
	t.Helper()
	holds(t, "the resumed request", json.RawMessage(body), TaskPrompt, ShellMark, FinalText)
	if target == Gemini {
		// Gemini's requests name a call and its response by the tool.
		for _, tool := range s.tools {
			if n := bytes.Count(body, []byte(`"name":"`+tool+`"`)); n < 2 {
				t.Errorf("the resumed request names %s %d times, want its call and its result", tool, n)
			}
		}
		return
	}
	sentTwice(t, body, s.calls...)
}

// TestInteropCaptureRestoreClaudeCode: a Claude Code session with a
// sub-agent, captured from one home (its sub-agent's transcript with it),
// a second capture storing nothing, restored exactly into another home
// for a directory whose name has "_" and ".", is continued there by
// claude -p --continue with its whole history; restoring again changes
// nothing.
func TestInteropCaptureRestoreClaudeCode(t *testing.T) {
	Need(t, ClaudeCode)
	c := newCtxTool(t)
	s := captured(t, c, ClaudeCode)
	var again captureReport
	c.json(t, s.home, s.dir, &again, "capture", s.dir)
	if len(again.Captured) != 0 || again.Unchanged != 1 {
		t.Errorf("a second ctx capture: %+v, want nothing captured and 1 unchanged", again)
	}
	if r := c.try(t, s.home, s.dir, "capture"); r.code != 0 || len(r.stdout) != 0 {
		t.Errorf("a third ctx capture printed %q (exit %d), want nothing", r.stdout, r.code)
	}

	got, body := s.resumeIn(t, c, ClaudeCode, false)
	if got.Mode != "exact" || got.Status != "written" || got.Session != s.session {
		t.Errorf("ctx restore: %+v, want session %s written exactly", got, s.session)
	}
	s.checkHistory(t, ClaudeCode, body)
	holds(t, "the resumed request", json.RawMessage(body), SubText)

	// The files: where Claude Code's rule puts them, 0600 in 0700, the
	// session's lines as recorded but for their cwd.
	folder := filepath.Dir(got.File)
	if filepath.Base(folder) != agentstore.ClaudeProjectFolder(got.Cwd) {
		t.Errorf("restored into %s, want the folder %s", folder, agentstore.ClaudeProjectFolder(got.Cwd))
	}
	subs, _ := filepath.Glob(filepath.Join(folder, s.session, "subagents", "agent-*.jsonl"))
	if len(subs) != 1 {
		t.Errorf("the sub-agent's transcript was not restored: %v", subs)
	}
	for _, p := range append(subs, got.File) {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v, want mode 0600", p, fi.Mode())
		}
	}
	if fi, err := os.Stat(folder); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: %v, want mode 0700", folder, fi.Mode())
	}
	orig := read(t, filepath.Join(s.home.ConfigDir(), "projects", agentstore.ClaudeProjectFolder(s.dir), s.session+".jsonl"))
	want := bytes.ReplaceAll(orig, []byte(`"cwd":"`+s.dir+`"`), []byte(`"cwd":"`+got.Cwd+`"`))
	// The resume appended the new exchange: what was restored is its start.
	if now := read(t, got.File); !bytes.HasPrefix(now, want) {
		t.Errorf("the restored session is not the recorded one with only its cwd changed")
	}
}

// TestInteropCaptureRestoreCodex: a Codex rollout, captured and restored
// exactly into another home and directory, is resumed by codex exec
// resume ID with every function_call and its output; restored into a
// home that does not configure its model provider, restore says so.
func TestInteropCaptureRestoreCodex(t *testing.T) {
	Need(t, Codex)
	c := newCtxTool(t)
	s := captured(t, c, Codex)
	got, body := s.resumeIn(t, c, Codex, true)
	if got.Mode != "exact" || got.Session != s.session || got.Provider != "stub" || got.ProviderConfigured == nil || !*got.ProviderConfigured {
		t.Errorf("ctx restore: %+v, want session %s exactly, its provider stub configured", got, s.session)
	}
	s.checkHistory(t, Codex, body)
	holds(t, "the resumed request", json.RawMessage(body), `"type":"function_call"`, `"type":"custom_tool_call"`,
		`"type":"function_call_output"`, `"type":"custom_tool_call_output"`)

	t.Run("provider not configured", func(t *testing.T) {
		other := NewHome(t, Codex, s.home.Stub)
		cfg := strings.NewReplacer(`model_provider = "stub"`, `model_provider = "other"`,
			"[model_providers.stub]", "[model_providers.other]").Replace(CodexConfig(s.home.Stub.URL))
		writeStoreFile(t, filepath.Join(other.ConfigDir(), "config.toml"), []byte(cfg))
		dir := restoredDir(t)
		r := c.try(t, other, dir, "restore", "--cwd", dir, s.tag)
		if r.code != 0 || !bytes.Contains(r.stderr, []byte(`model provider "stub"`)) || !bytes.Contains(r.stderr, []byte("[model_providers.stub]")) {
			t.Errorf("ctx restore into a home without the provider stub: exit %d\n%s", r.code, r.stderr)
		}
		res := other.Try(t, dir, other.ResumeArgs(s.session, ResumePrompt)...)
		if res.Err == nil || !bytes.Contains(res.Stderr, []byte("no longer configured")) {
			t.Errorf("codex exec resume: %v, want Codex's refusal of the provider", res.Err)
		}
	})
}

// TestInteropCaptureRestoreGeminiCLI: a Gemini CLI session, captured and
// restored exactly for another directory, is listed by gemini
// --list-sessions there and continued by --resume latest.
func TestInteropCaptureRestoreGeminiCLI(t *testing.T) {
	Need(t, Gemini)
	c := newCtxTool(t)
	s := captured(t, c, Gemini)
	dir := restoredDir(t)
	stub := StartStub(t, ResumeScript())
	home := NewHome(t, Gemini, stub)
	var got restored
	c.json(t, home, dir, &got, "restore", "--cwd", dir, s.tag)
	if got.Mode != "exact" || got.Session != s.session {
		t.Errorf("ctx restore: %+v, want session %s exactly", got, s.session)
	}
	list := home.Run(t, dir, "--list-sessions")
	if !bytes.Contains(list.Stdout, []byte(s.session)) {
		t.Errorf("gemini --list-sessions does not list %s:\n%s", s.session, list.Stdout)
	}
	home.Run(t, dir, home.ResumeArgs("", ResumePrompt)...)
	s.checkHistory(t, Gemini, resumed(t, stub).Body)
	stub.CheckNothingLeft(t)
}

// TestInteropRestoreIntoAnotherAgent: each agent's run restored into each
// other agent (rendered from its steps) is continued there with its
// calls and their results: a Codex run in Claude Code as tool_use and
// tool_result, a Claude Code run in Codex as function_call and
// function_call_output, either in Gemini CLI as functionCall and
// functionResponse.
func TestInteropRestoreIntoAnotherAgent(t *testing.T) {
	if os.Getenv(RunsEnv) == "" {
		t.Skipf("a run of a real agent takes seconds: set %s=1 to run it (make interop does)", RunsEnv)
	}
	c := newCtxTool(t)
	for _, from := range []string{Codex, ClaudeCode, Gemini} {
		t.Run(from, func(t *testing.T) {
			Need(t, from)
			s := captured(t, c, from)
			for _, to := range []string{ClaudeCode, Codex, Gemini} {
				if to == from {
					continue
				}
				t.Run("to "+to, func(t *testing.T) {
					Need(t, to)
					got, body := s.resumeIn(t, c, to, to == Codex)
					if got.Mode != "rendered" {
						t.Errorf("ctx restore --to %s: mode %s, want rendered", ctxName(to), got.Mode)
					}
					s.checkHistory(t, to, body)
				})
			}
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestInteropClaudeCodeSessionEndHookCaptures: the SessionEnd hook of
// docs/RESTORE.md, in the home's settings.json, runs ctx capture as
// claude -p ends: the session is in the store, tagged, with its files.
func TestInteropClaudeCodeSessionEndHookCaptures(t *testing.T) {
	Need(t, ClaudeCode)
	c := newCtxTool(t)
	dir := t.TempDir()
	PrepareTaskDir(t, dir)
	stub := StartStub(t, TaskScript(ClaudeCode, dir, false))
	home := NewHome(t, ClaudeCode, stub)
	hook := filepath.Join(c.bin, "ctx-capture") + " --all --from claude-code --store " + c.store + " >/dev/null 2>&1 || true"
	settings, _ := json.Marshal(map[string]any{"hooks": map[string]any{
		"SessionEnd": []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": hook}}}},
	}})
	writeStoreFile(t, filepath.Join(home.ConfigDir(), "settings.json"), settings)
	res := home.Prompt(t, dir, TaskPrompt)
	id := sessionID(t, res.Lines(), "session_id")
	var rep captureReport
	c.json(t, home, dir, &rep, "capture", "--from", "claude-code", dir)
	if rep.Unchanged != 1 || len(rep.Captured) != 0 {
		t.Errorf("after the hook, ctx capture found %+v, want the session captured already (1 unchanged)", rep)
	}
	var log struct{ Refs []string }
	r := c.try(t, home, dir, "log", "--json")
	if json.Unmarshal(bytes.TrimSpace(r.stdout), &log) != nil || !contains(log.Refs, "claude-code."+id) {
		t.Errorf("ctx log after the hook: %s, want the pack tagged claude-code.%s", r.stdout, id)
	}
}
