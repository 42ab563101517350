package agenttest

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
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

// oldGeminiSession puts a Gemini CLI session file more than 30 days old
// (the corpus file at pattern, gunzipped when it ends in .gz) into a
// fresh home's store as a session of a fresh directory, as Gemini CLI
// keeps it (projects.json names the directory's slug), captures it, and
// returns its tag and session id.
func oldGeminiSession(t *testing.T, c *ctxTool, pattern string) (tag, id string) {
	t.Helper()
	src := corpusFile(t, pattern)
	b := read(t, src)
	name := filepath.Base(src)
	if strings.HasSuffix(name, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
		name = strings.TrimSuffix(name, ".gz")
	}
	_, name, _ = strings.Cut(name, "__")
	dir := filepath.Join(t.TempDir(), "old_project")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	home := NewHome(t, Gemini, StartStub(t, ResumeScript()))
	projects, _ := json.Marshal(map[string]any{"projects": map[string]string{dir: "old-project"}})
	writeStoreFile(t, filepath.Join(home.ConfigDir(), "projects.json"), projects)
	writeStoreFile(t, filepath.Join(home.ConfigDir(), "tmp", "old-project", "chats", name), b)
	rep := c.capture(t, home, dir, agentstore.Gemini)
	return rep.Captured[0].Tag, rep.Captured[0].Session
}

// TestInteropGeminiCLIKeepsARestoredOldSession: Gemini CLI deletes, at
// every start, the sessions whose lastUpdated is older than
// general.sessionRetention.maxAge (on by default, 30 days). A session
// last used months ago (a .json one and a .jsonl one), captured and
// restored into a home with the default settings, is listed by gemini
// --list-sessions, and its file is still there afterwards: restore
// stamps it with the time it was restored.
func TestInteropGeminiCLIKeepsARestoredOldSession(t *testing.T) {
	Need(t, Gemini)
	c := newCtxTool(t)
	for _, pattern := range []string{
		"gemini-cli/codemie__session-2026-01-16T11-01-file-ops-37b7abef.json.gz",
		"gemini-cli/written__session-2026-04-20T10-00-ab12cd34.jsonl",
	} {
		t.Run(filepath.Ext(strings.TrimSuffix(pattern, ".gz")), func(t *testing.T) {
			tag, id := oldGeminiSession(t, c, pattern)
			dir := restoredDir(t)
			home := NewHome(t, Gemini, StartStub(t, ResumeScript()))
			var got restored
			c.json(t, home, dir, &got, "restore", "--cwd", dir, tag)
			if got.Mode != "exact" {
				t.Errorf("ctx restore: %+v, want an exact restore", got)
			}
			list := home.Run(t, dir, "--list-sessions")
			if !bytes.Contains(list.Stdout, []byte(id)) {
				t.Errorf("gemini --list-sessions does not list the restored session %s:\n%s%s", id, list.Stdout, list.Stderr)
			}
			if _, err := os.Stat(got.File); err != nil {
				t.Errorf("after gemini --list-sessions, the restored session's file: %v", err)
			}
		})
	}
}

// TestInteropGeminiCLIListsAndDeletesARenderedSession: a run that
// recorded no time, rendered into Gemini CLI, is listed as used just now
// (not two thousand years ago), and gemini --delete-session deletes it:
// Gemini CLI finds the file by the short id after the last "-" of its
// name, which restore names as Gemini CLI does.
func TestInteropGeminiCLIListsAndDeletesARenderedSession(t *testing.T) {
	Need(t, Gemini)
	c := newCtxTool(t)
	dir := restoredDir(t)
	home := NewHome(t, Gemini, StartStub(t, ResumeScript()))
	run := filepath.Join(t.TempDir(), "run.json")
	writeStoreFile(t, run, []byte(`{"model": {"identifier": "m"}, "prompts": [{"content": "`+TaskPrompt+`"}], "steps": [{"type": "model_call", "tool": "m", "output": "`+FinalText+`"}]}`))
	if r := c.try(t, home, dir, "pack", run); r.code != 0 {
		t.Fatalf("ctx pack: exit %d", r.code)
	}
	var got restored
	c.json(t, home, dir, &got, "restore", "--to", "gemini", "--cwd", dir, "latest")
	list := home.Run(t, dir, "--list-sessions")
	if !bytes.Contains(list.Stdout, []byte(got.Session)) || !bytes.Contains(list.Stdout, []byte("Just now")) {
		t.Errorf("gemini --list-sessions, want session %s used just now:\n%s", got.Session, list.Stdout)
	}
	del := home.Run(t, dir, "--delete-session", "1")
	if !bytes.Contains(del.Stdout, []byte("Deleted session 1")) {
		t.Errorf("gemini --delete-session 1:\n%s%s", del.Stdout, del.Stderr)
	}
	if _, err := os.Stat(got.File); !os.IsNotExist(err) {
		t.Errorf("after gemini --delete-session 1, %s: %v, want it gone", got.File, err)
	}
}

// TestInteropCaptureDivergedBranch: a Claude Code session captured (P1),
// continued in its home and captured again (P2), while P1 is restored
// into another home and continued there by claude --continue: Claude
// Code appends to the file restore wrote, so a capture from the second
// home finds the session extends P1, not P2: diverged, its parent P1, a
// branch tag of its own, the session's tag left on P2.
func TestInteropCaptureDivergedBranch(t *testing.T) {
	Need(t, ClaudeCode)
	c := newCtxTool(t)
	s := captured(t, c, ClaudeCode)
	packs := c.log(t, s.home, s.dir)
	if len(packs) != 1 {
		t.Fatalf("ctx log after the first capture: %+v", packs)
	}
	p1 := strings.Replace(packs[0].Hash, "sha256:", "ctx://", 1)

	s.home.Stub = StartStub(t, ResumeScript())
	s.home.Run(t, s.dir, s.home.ResumeArgs("", ResumePrompt)...)
	var grown captureReport
	c.json(t, s.home, s.dir, &grown, "capture", "--from", "claude-code", s.dir)
	if len(grown.Captured) != 1 || grown.Captured[0].Status != "grown" || *grown.Captured[0].Parent != p1 {
		t.Fatalf("the session continued in its home: %+v, want grown from %s", grown, p1)
	}
	p2 := grown.Captured[0].Pack

	dir := restoredDir(t)
	other := NewHome(t, ClaudeCode, StartStub(t, ResumeScript()))
	var got restored
	c.json(t, other, dir, &got, "restore", "--cwd", dir, p1)
	other.Run(t, dir, other.ResumeArgs("", ResumePrompt)...)
	var branch captureReport
	c.json(t, other, dir, &branch, "capture", "--from", "claude-code", dir)
	if len(branch.Captured) != 1 {
		t.Fatalf("capture in the second home: %+v", branch)
	}
	b := branch.Captured[0]
	if b.Status != "diverged" || b.Parent == nil || *b.Parent != p1 || b.Tag != s.tag+".2" {
		t.Errorf("the session continued from P1 elsewhere: %+v, want diverged from %s, tagged %s.2", b, p1, s.tag)
	}
	var again captureReport
	c.json(t, s.home, s.dir, &again, "capture", "--from", "claude-code", s.dir)
	if again.Unchanged != 1 || len(again.Captured) != 0 {
		t.Errorf("the first home again: %+v, want unchanged", again)
	}
	for _, p := range c.log(t, s.home, s.dir) {
		if strings.Replace(p.Hash, "sha256:", "ctx://", 1) == p2 && !contains(p.Refs, s.tag) {
			t.Errorf("the session's tag %s left P2 %s: %v", s.tag, p2, p.Refs)
		}
	}
}
