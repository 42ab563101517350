package agenttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextsubstrate/ctx/internal/modelstub"
)

// The standard task of the interop tests and the corpus: in a directory
// holding a.txt, the model reads a.txt, writes b.txt, runs a shell command
// that prints b.txt and ShellMark, and ends with FinalText; with a
// sub-agent (Claude Code only), it first hands SubPrompt to one, which
// reads a.txt and runs a shell command of its own.
const (
	TaskPrompt = "ctx-task: read a.txt, write b.txt, then run a shell command"
	SubPrompt  = "ctx-subtask: read a.txt and say what it holds"
	AText      = "hello from a\n"
	BText      = "written by the agent\n"
	ShellMark  = "shell-ran"
	SubMark    = "subagent-ran"
	FinalText  = "All done: read a.txt, wrote b.txt, ran the shell."
	SubText    = "a.txt holds: hello from a"
	// ResumePrompt continues a session; ResumeText answers it.
	ResumePrompt = "ctx-resume: go on from where the session stopped"
	ResumeText   = "Resumed: the history is here."
)

// ResumeScript answers ResumePrompt with ResumeText, whatever history
// comes before it.
func ResumeScript() modelstub.Script {
	return modelstub.Script{Conversations: []modelstub.Conversation{{Match: ResumePrompt, Turns: []modelstub.Turn{{Text: ResumeText}}}}}
}

// PrepareTaskDir writes a.txt into dir.
func PrepareTaskDir(t testing.TB, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte(AText), 0o644); err != nil {
		t.Fatal(err)
	}
}

// call is a scripted call with arguments marshalled from v.
func call(name string, v any) modelstub.Call {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return modelstub.Call{Name: name, Args: b}
}

type args = map[string]any

// TaskScript is the stand-in's script of the standard task for agent in
// dir, each call spelled as the agent's own tool (Codex reads with its
// shell, having no read tool, and writes with apply_patch). With subagent,
// Claude Code's session first runs a sub-agent (its Agent tool, in the
// foreground) on SubPrompt.
func TaskScript(agent, dir string, subagent bool) modelstub.Script {
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	shell := "cat b.txt; echo " + ShellMark
	var read, write, run modelstub.Call
	switch agent {
	case ClaudeCode:
		read = call("Read", args{"file_path": a})
		write = call("Write", args{"file_path": b, "content": BText})
		run = call("Bash", args{"command": shell, "description": "Show b.txt"})
	case Codex:
		read = call("exec_command", args{"cmd": "cat a.txt"})
		write = call("apply_patch", "*** Begin Patch\n*** Add File: b.txt\n+"+BText+"*** End Patch\n")
		run = call("exec_command", args{"cmd": shell})
	case Gemini:
		read = call("read_file", args{"file_path": a})
		write = call("write_file", args{"file_path": b, "content": BText})
		run = call("run_shell_command", args{"command": shell, "description": "Show b.txt"})
	case OpenCode:
		read = call("read", args{"filePath": a})
		write = call("write", args{"filePath": b, "content": BText})
		run = call("bash", args{"command": shell, "description": "Show b.txt"})
	}
	main := modelstub.Conversation{Match: TaskPrompt, Turns: []modelstub.Turn{
		{Text: "I will read a.txt first.", Calls: []modelstub.Call{read}},
		{Text: "Now I write b.txt.", Calls: []modelstub.Call{write}},
		{Calls: []modelstub.Call{run}},
		{Text: FinalText},
	}}
	s := modelstub.Script{}
	if subagent && agent == ClaudeCode {
		s.Conversations = append(s.Conversations, modelstub.Conversation{Match: SubPrompt, Turns: []modelstub.Turn{
			{Text: "Reading a.txt for the parent.", Calls: []modelstub.Call{read}},
			{Calls: []modelstub.Call{call("Bash", args{"command": "echo " + SubMark, "description": "Say the sub-agent ran"})}},
			{Text: SubText},
		}})
		main.Turns = append([]modelstub.Turn{{Text: "I hand the reading to a sub-agent.", Calls: []modelstub.Call{
			call("Agent", args{"description": "Read a.txt", "prompt": SubPrompt, "subagent_type": "general-purpose", "run_in_background": false}),
		}}}, main.Turns...)
	}
	s.Conversations = append(s.Conversations, main)
	return s
}
