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

// The demonstrations of docs/RESTORE.md, "Each agent's store": a session
// the agent wrote (the corpus file TestRemakeCorpus made, in
// /tmp/ctx-corpus/demo_project.v1) is copied, its working directory
// edited, into a fresh store for another directory whose name has "_" and
// ".", and the agent's own resume sends its whole history to the model.

// corpusFile is the one file matching pattern under testdata/corpus.
func corpusFile(t *testing.T, pattern string) string {
	t.Helper()
	npm, err := interop.NPMDir()
	if err != nil {
		t.Fatal(err)
	}
	return mustGlob(t, filepath.Join(filepath.Dir(npm), "corpus", pattern))
}

// restoredDir is a fresh working directory named with "_" and ".".
func restoredDir(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "restored_project.v2")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeStoreFile writes a session file as the agents do: 0600 in
// folders 0700.
func writeStoreFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// resumed returns the request that answered ResumePrompt.
func resumed(t *testing.T, stub *Stub) modelstub.Record {
	t.Helper()
	for _, r := range stub.Turns(t) {
		if strings.Contains(r.Prompt, ResumePrompt) {
			return r
		}
	}
	t.Fatalf("the agent sent no request with the prompt %q", ResumePrompt)
	return modelstub.Record{}
}

// sentTwice checks that each id is in the body at least twice: the call
// and its result.
func sentTwice(t *testing.T, body []byte, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if n := bytes.Count(body, []byte(`"`+id+`"`)); n < 2 {
			t.Errorf("the resumed request holds %q %d times, want the call and its result", id, n)
		}
	}
}

// TestInteropClaudeCodeContinuesAWrittenSession: Claude Code's session,
// each record's cwd set to the new directory, put in the project folder
// ClaudeProjectFolder names for it, is what claude -p --continue there
// continues: the same session id, every tool_use and tool_result sent.
func TestInteropClaudeCodeContinuesAWrittenSession(t *testing.T) {
	Need(t, ClaudeCode)
	src := corpusFile(t, "claude-code-jsonl/modelstub-runs/*.jsonl")
	id := strings.TrimSuffix(filepath.Base(src), ".jsonl")
	dir := restoredDir(t)
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(read(t, src), []byte("\n")) {
		var rec map[string]any
		if json.Unmarshal(line, &rec) != nil {
			out.Write(line)
			continue
		}
		if _, ok := rec["cwd"]; ok {
			rec["cwd"] = dir
		}
		b, _ := json.Marshal(rec)
		out.Write(append(b, '\n'))
	}
	stub := StartStub(t, ResumeScript())
	home := NewHome(t, ClaudeCode, stub)
	writeStoreFile(t, filepath.Join(home.ConfigDir(), "projects", agentstore.ClaudeProjectFolder(dir), id+".jsonl"), out.Bytes())
	res := home.Run(t, dir, home.ResumeArgs("", ResumePrompt)...)
	if got := sessionID(t, res.Lines(), "session_id"); got != id {
		t.Errorf("claude --continue went on with session %s, want the written one %s", got, id)
	}
	r := resumed(t, stub)
	// The written session's calls: the Agent, Read, Write and Bash of the
	// standard task (conversation 1 of its script: the sub-agent's is 0).
	sentTwice(t, r.Body, "toolu_stub_c1_t0_0", "toolu_stub_c1_t1_0", "toolu_stub_c1_t2_0", "toolu_stub_c1_t3_0")
	holds(t, "the resumed request", json.RawMessage(r.Body), TaskPrompt, SubText, ShellMark, FinalText)
	stub.CheckNothingLeft(t)
}

// codexRollout is the corpus rollout with the recorded working directory
// replaced by dir wherever it is written (session_meta, turn_context, the
// environment_context message), its file name, and its id.
func codexRollout(t *testing.T, dir string) (name, id string, b []byte) {
	src := corpusFile(t, "codex-rollout/modelstub-runs/*.jsonl")
	name = strings.TrimPrefix(filepath.Base(src), "codex-"+interop.CodexVersion+"__")
	const uuidLen = 36 // rollout-<timestamp>-<uuid>.jsonl
	base := strings.TrimSuffix(name, ".jsonl")
	id = base[len(base)-uuidLen:]
	return name, id, bytes.ReplaceAll(read(t, src), []byte(corpusProject), []byte(dir))
}

// TestInteropCodexResumesAWrittenRollout: Codex's rollout, in a dated
// folder of a fresh CODEX_HOME (another date than its own: the folder does
// not matter, the canonical file name does), is what codex exec resume ID
// continues: every function_call and custom_tool_call with its output sent.
// A home that does not configure the rollout's model provider refuses it.
func TestInteropCodexResumesAWrittenRollout(t *testing.T) {
	Need(t, Codex)
	dir := restoredDir(t)
	name, id, rollout := codexRollout(t, dir)
	stub := StartStub(t, ResumeScript())
	home := NewHome(t, Codex, stub)
	writeStoreFile(t, filepath.Join(home.ConfigDir(), "sessions", "2030", "01", "02", name), rollout)
	home.Run(t, dir, home.ResumeArgs(id, ResumePrompt)...)
	r := resumed(t, stub)
	sentTwice(t, r.Body, "call_stub_c0_t0_0", "call_stub_c0_t1_0", "call_stub_c0_t2_0")
	holds(t, "the resumed request", json.RawMessage(r.Body), `"type":"function_call"`, `"type":"custom_tool_call"`,
		`"type":"function_call_output"`, `"type":"custom_tool_call_output"`, ShellMark, FinalText)
	stub.CheckNothingLeft(t)

	t.Run("provider not configured", func(t *testing.T) {
		other := NewHome(t, Codex, stub)
		cfg := strings.NewReplacer(`model_provider = "stub"`, `model_provider = "other"`,
			"[model_providers.stub]", "[model_providers.other]").Replace(CodexConfig(stub.URL))
		writeStoreFile(t, filepath.Join(other.ConfigDir(), "config.toml"), []byte(cfg))
		writeStoreFile(t, filepath.Join(other.ConfigDir(), "sessions", "2030", "01", "02", name), rollout)
		res := other.Try(t, dir, other.ResumeArgs(id, ResumePrompt)...)
		if res.Err == nil || !bytes.Contains(res.Stderr, []byte("no longer configured")) {
			t.Errorf("codex exec resume with the provider stub not configured: %v\n%s", res.Err, tail(res.Stderr))
		}
	})
}

// TestInteropGeminiCLIResumesAWrittenSession: Gemini CLI's session, in
// tmp/<slug>/chats/ of a fresh ~/.gemini whose projects.json maps the new
// directory to slug, is listed by gemini --list-sessions there and
// continued by gemini --resume latest: every functionCall and
// functionResponse sent.
func TestInteropGeminiCLIResumesAWrittenSession(t *testing.T) {
	Need(t, Gemini)
	src := corpusFile(t, "gemini-cli/modelstub-runs/*.jsonl")
	name := strings.TrimPrefix(filepath.Base(src), "gemini-cli-"+interop.GeminiCLIVersion+"__")
	var meta struct {
		SessionID string `json:"sessionId"`
	}
	first, _, _ := bytes.Cut(read(t, src), []byte("\n"))
	if err := json.Unmarshal(first, &meta); err != nil || meta.SessionID == "" {
		t.Fatalf("%s: no session id on its first line: %v", src, err)
	}
	dir := restoredDir(t)
	stub := StartStub(t, ResumeScript())
	home := NewHome(t, Gemini, stub)
	slug := agentstore.GeminiSlug(dir)
	projects, _ := json.MarshalIndent(map[string]any{"projects": map[string]string{dir: slug}}, "", "  ")
	writeStoreFile(t, filepath.Join(home.ConfigDir(), "projects.json"), projects)
	writeStoreFile(t, filepath.Join(home.ConfigDir(), "tmp", slug, "chats", name), read(t, src))
	list := home.Run(t, dir, "--list-sessions")
	if !bytes.Contains(list.Stdout, []byte(meta.SessionID)) {
		t.Errorf("gemini --list-sessions does not list %s:\n%s", meta.SessionID, list.Stdout)
	}
	home.Run(t, dir, home.ResumeArgs("", ResumePrompt)...)
	r := resumed(t, stub)
	for _, tool := range []string{"read_file", "write_file", "run_shell_command"} {
		// its declaration, its functionCall and its functionResponse
		if n := bytes.Count(r.Body, []byte(`"name":"`+tool+`"`)); n < 3 {
			t.Errorf("the resumed request names %s %d times, want its declaration, functionCall and functionResponse", tool, n)
		}
	}
	holds(t, "the resumed request", json.RawMessage(r.Body), `"functionCall"`, `"functionResponse"`, TaskPrompt, ShellMark, FinalText)
	stub.CheckNothingLeft(t)
}
