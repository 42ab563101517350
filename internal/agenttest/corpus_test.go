package agenttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/interop"
	"github.com/contextsubstrate/ctx/lib/agentstore"
)

// RemakeEnv is the variable that lets TestRemakeCorpus rewrite the
// corpus files the real agents made (never set by make test or make
// interop).
const RemakeEnv = "CTX_REMAKE_CORPUS"

// corpusWork is where the agents run when they make the corpus: fixed
// paths (a project directory whose name has "_" and "."), so that a remade
// file differs from the last only where the agent's own output does.
const corpusWork = "/tmp/ctx-corpus"

// corpusProject is the project directory the agents work in.
const corpusProject = corpusWork + "/demo_project.v1"

// TestRemakeCorpus remakes the corpus files no public source has, with the
// real agents against the stand-in (testdata/corpus/*/SOURCE.txt say
// which): run it with
//
//	CTX_RUN_AGENTS=1 CTX_REMAKE_CORPUS=1 go test -run TestRemakeCorpus ./internal/agenttest
func TestRemakeCorpus(t *testing.T) {
	if os.Getenv(RemakeEnv) == "" {
		t.Skipf("rewrites testdata/corpus: set %s=1 to run it", RemakeEnv)
	}
	npm, err := interop.NPMDir()
	if err != nil {
		t.Fatal(err)
	}
	corpus := filepath.Join(filepath.Dir(npm), "corpus")
	for _, agent := range Agents() {
		t.Run(agent, func(t *testing.T) { remake(t, agent, corpus) })
	}
}

// made is what one agent's run left: files to copy into the corpus,
// by their name there.
type made struct {
	folder  string            // the corpus folder (format/subfolder)
	files   map[string][]byte // name in the folder -> bytes
	command string            // the command that ran, as a person types it
	notes   string            // what the files are, how they were taken
}

func remake(t *testing.T, agent, corpus string) {
	Need(t, agent)
	os.RemoveAll(corpusWork)
	home := filepath.Join(corpusWork, "home-"+agent)
	if err := os.MkdirAll(corpusProject, 0o755); err != nil {
		t.Fatal(err)
	}
	PrepareTaskDir(t, corpusProject)
	script := TaskScript(agent, corpusProject, agent == ClaudeCode)
	stub := StartStub(t, script)
	h := NewHomeAt(t, agent, stub, home)
	version := h.Version(t)
	res := h.Prompt(t, corpusProject, TaskPrompt)
	stub.CheckNothingLeft(t)
	var outs []made
	switch agent {
	case ClaudeCode:
		outs = claudeCorpus(t, h, res)
	case Codex:
		outs = codexCorpus(t, h, res)
	case Gemini:
		outs = geminiCorpus(t, h, res)
	case OpenCode:
		outs = openCodeCorpus(t, h, res)
	}
	scriptJSON, _ := json.MarshalIndent(script, "", "  ")
	for _, m := range outs {
		dir := filepath.Join(corpus, m.folder)
		os.RemoveAll(dir)
		for name, b := range m.files {
			p := filepath.Join(dir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		source := fmt.Sprintf(`Made for this project by the real program against a local stand-in of its model API
(internal/modelstub), because no public file of this format and version exists.

Program:  %s (npm %s), run headless in a home of its own (internal/agenttest: configuration
          and environment in home.go; nothing left 127.0.0.1: the stand-in is also the proxy and
          logged no request for elsewhere)
Command:  in %s (holding a.txt: %q)
          %s
Made by:  CTX_RUN_AGENTS=1 CTX_REMAKE_CORPUS=1 go test -run TestRemakeCorpus/%s ./internal/agenttest
          (internal/agenttest/corpus_test.go; paths under %s are the same at every remake)

%s

The stand-in's script (internal/agenttest/task.go, TaskScript), each turn answered to the request
whose latest prompt holds "match", at the number of model turns after that prompt:
%s
`, version, npmPackage(agent), corpusProject, AText, m.command, agent, corpusWork, m.notes, scriptJSON)
		if err := os.WriteFile(filepath.Join(dir, "SOURCE.txt"), []byte(source), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d files)", dir, len(m.files))
	}
}

func npmPackage(agent string) string {
	switch agent {
	case ClaudeCode:
		return "@anthropic-ai/claude-code@" + interop.ClaudeCodeVersion
	case Codex:
		return "@openai/codex@" + interop.CodexVersion
	case Gemini:
		return "@google/gemini-cli@" + interop.GeminiCLIVersion
	}
	return "opencode-ai@" + interop.OpenCodeVersion
}

func command(h *Home, args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " ,:") {
			a = "'" + a + "'"
		}
		q[i] = a
	}
	return h.Agent + " " + strings.Join(q, " ")
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func claudeCorpus(t *testing.T, h *Home, res Result) []made {
	id := sessionID(t, res.Lines(), "session_id")
	folder := filepath.Join(h.ConfigDir(), "projects", agentstore.ClaudeProjectFolder(corpusProject))
	store := map[string][]byte{id + ".jsonl": read(t, filepath.Join(folder, id+".jsonl"))}
	subs, _ := filepath.Glob(filepath.Join(folder, id, "subagents", "*"))
	for _, p := range subs {
		store[filepath.Join(id, "subagents", filepath.Base(p))] = read(t, p)
	}
	cmd := command(h, res.Args)
	return []made{
		{folder: "claude-stream-json/modelstub-runs", command: cmd,
			files: map[string][]byte{"claude-code-" + interop.ClaudeCodeVersion + "__task-subagent.stream.jsonl": res.Stdout},
			notes: `claude-code-` + interop.ClaudeCodeVersion + `__task-subagent.stream.jsonl   the command's standard output, verbatim:
   system init, the assistant and user messages (the sub-agent's with parent_tool_use_id and agent_id),
   system task_started/task_progress/task_updated/task_notification of the sub-agent, result.
   Tool steps: 6: the session's Agent, Read, Write, Bash; the sub-agent's Read, Bash.`},
		{folder: "claude-code-jsonl/modelstub-runs", command: cmd, files: store,
			notes: fmt.Sprintf(`The session as Claude Code keeps it, copied from $CLAUDE_CONFIG_DIR/projects/%s/
(the folder name is Claude Code's rule for %s):
%s.jsonl   the session
%s/subagents/agent-*.jsonl   the sub-agent's own transcript (and its .meta.json), started by the
   session's Agent call (run_in_background false); the parent's tool result names it (toolUseResult.agentId).`,
				agentstore.ClaudeProjectFolder(corpusProject), corpusProject, id, id)},
	}
}

func codexCorpus(t *testing.T, h *Home, res Result) []made {
	id := sessionID(t, res.Lines(), "thread_id")
	rollout := mustGlob(t, filepath.Join(h.ConfigDir(), "sessions", "*", "*", "*", "rollout-*-"+id+".jsonl"))
	rel, _ := filepath.Rel(h.ConfigDir(), rollout)
	name := "codex-" + interop.CodexVersion + "__" + filepath.Base(rollout)
	return []made{{folder: "codex-rollout/modelstub-runs", command: command(h, res.Args),
		files: map[string][]byte{name: read(t, rollout)},
		notes: name + `   the rollout, verbatim, from $CODEX_HOME/` + rel + `
   (config.toml: model_provider "stub", wire_api "responses", model ` + CodexModel + `).
   Tool steps: 3 (exec_command 2, apply_patch 1 as a custom tool call).`}}
}

func geminiCorpus(t *testing.T, h *Home, res Result) []made {
	id := sessionID(t, res.Lines(), "session_id")
	projects := read(t, filepath.Join(h.ConfigDir(), "projects.json"))
	var p struct {
		Projects map[string]string `json:"projects"`
	}
	json.Unmarshal(projects, &p)
	session := mustGlob(t, filepath.Join(h.ConfigDir(), "tmp", p.Projects[corpusProject], "chats", "session-*-"+id[:8]+".jsonl"))
	rel, _ := filepath.Rel(h.ConfigDir(), session)
	name := "gemini-cli-" + interop.GeminiCLIVersion + "__" + filepath.Base(session)
	return []made{{folder: "gemini-cli/modelstub-runs", command: command(h, res.Args),
		files: map[string][]byte{name: read(t, session)},
		notes: name + `   the session, verbatim, from ~/.gemini/` + rel + `:
   a metadata line, then messages (a message re-appended when its tool call completes) and {"$set": ...}.
   Tool steps: 3 (read_file, write_file, run_shell_command).
~/.gemini/projects.json beside it (not a transcript, so quoted here):
` + string(projects)}}
}

func openCodeCorpus(t *testing.T, h *Home, res Result) []made {
	id := sessionID(t, res.Lines(), "sessionID")
	export := h.Run(t, corpusProject, "export", id)
	files := map[string][]byte{"opencode-" + interop.OpenCodeVersion + "__export-" + id + ".json": export.Stdout}
	notes := "opencode-" + interop.OpenCodeVersion + "__export-" + id + `.json   the output of opencode export ` + id + `, verbatim:
   {info: the session, messages: [{info: the message, parts: [step-start, text, tool, step-finish, ...]}]}.
   OpenCode ` + interop.OpenCodeVersion + ` keeps its sessions in a SQLite database ($XDG_DATA_HOME/opencode/opencode.db: tables
   session, message, part, each row's data a JSON object), no longer in storage/session|message|part/*.json.
   Tool steps: 3 (read, write, bash).`
	db := filepath.Join(h.ConfigDir(), "opencode.db")
	if sqlite, err := exec.LookPath("sqlite3"); err == nil {
		var rows []byte
		for _, q := range []string{
			"select 'session' as tbl, * from session",
			"select 'message' as tbl, * from message order by time_created, id",
			"select 'part' as tbl, * from part order by time_created, id",
		} {
			out, err := exec.Command(sqlite, "-readonly", "-json", db, q).Output()
			if err != nil {
				t.Fatalf("sqlite3 %s: %v", q, err)
			}
			var list []map[string]any
			json.Unmarshal(out, &list)
			for _, row := range list {
				b, _ := json.Marshal(row)
				rows = append(rows, append(b, '\n')...)
			}
		}
		name := "opencode-" + interop.OpenCodeVersion + "__db-rows-" + id + ".jsonl"
		files[name] = rows
		notes += "\n" + name + `   the rows of the tables session, message and part of opencode.db, one JSON object a row
   ({"tbl": table, column: value...}; the data column is the JSON text OpenCode stored), read with
   sqlite3 -readonly -json, in the order of time_created.`
	}
	return []made{{folder: "opencode", command: command(h, res.Args), files: files, notes: notes}}
}
