package ctx_test

import (
	"encoding/json"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
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
	// result is the toolUseResult Claude Code writes of the call, where it
	// shows the file (nil: none, as for an editor's insert).
	result map[string]any
}

// fileCalls are a write, then an edit, of one file per spelling of each
// write and edit tool (agenttool.Builtins) and each spelling of the path
// (agenttool.FilePathKeys): every call whose result a converter
// normalises into replay's sentence. The editors also insert, at the top
// and past it, on a file whose last line has its newline and on one whose
// last line has none.
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
			wrote := fileCall{"Write", map[string]any{"file_path": f, "content": "hello\n"}, map[string]any{"type": "create", "filePath": f, "content": "hello\n"}}
			edited := map[string]any{"filePath": f, "oldString": "hello", "newString": "HELLO", "originalFile": "hello\n", "replaceAll": false}
			switch agenttool.Builtins()[name] {
			case agenttool.Write:
				calls = append(calls, fileCall{name, map[string]any{key: f, "content": "hello\n"}, wrote.result})
			case agenttool.Edit:
				calls = append(calls, wrote, fileCall{name, map[string]any{key: f, "old_string": "hello", "new_string": "HELLO"}, edited})
			case agenttool.MultiEdit:
				edits := []any{map[string]any{"old_string": "hello", "new_string": "HELLO"}}
				calls = append(calls, wrote, fileCall{name, map[string]any{key: f, "edits": edits},
					map[string]any{"filePath": f, "edits": edits, "originalFile": "hello\n"}})
			case agenttool.Editor:
				text := "hello\n"
				if n%2 == 0 {
					text = "hello" // no newline after the last line
				}
				calls = append(calls,
					fileCall{name, map[string]any{"command": "create", key: f, "file_text": text}, map[string]any{"type": "create", "filePath": f, "content": text}},
					fileCall{name, map[string]any{"command": "str_replace", key: f, "old_str": "hello", "new_str": "HELLO\nthere"},
						map[string]any{"filePath": f, "oldString": "hello", "newString": "HELLO\nthere", "originalFile": text}},
					fileCall{name, map[string]any{"command": "insert", key: f, "insert_line": 0, "new_str": "top"}, nil},
					fileCall{name, map[string]any{"command": "insert", key: f, "insert_line": 2, "new_str": "after two"}, nil},
					fileCall{name, map[string]any{"command": "insert", key: f, "insert_line": 4, "new_str": "at the end\n"}, nil})
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
// "done", with the toolUseResult that shows the file where the call has
// one.
func claudeSession(t *testing.T, calls []fileCall) string {
	env := `"sessionId":"s","cwd":"/w","timestamp":"2026-01-01T00:00:02Z"`
	lines := []string{fmt.Sprintf(`{"type":"user",%s,"uuid":"u","message":{"role":"user","content":"go"}}`, env)}
	for i, c := range calls {
		use := map[string]any{"type": "tool_use", "id": fmt.Sprint("t", i), "name": c.tool, "input": c.params}
		result := ""
		if c.result != nil {
			result = `,"toolUseResult":` + jsonOf(t, c.result)
		}
		lines = append(lines,
			fmt.Sprintf(`{"type":"assistant",%s,"uuid":"a%d","message":{"id":"m%d","model":"x","role":"assistant","content":[%s]}}`, env, i, i, jsonOf(t, use)),
			fmt.Sprintf(`{"type":"user",%s,"uuid":"r%d","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"done"}]}%s}`, env, i, i, result))
	}
	return strings.Join(lines, "\n") + "\n"
}

// openHandsEvents is an OpenHands event stream of the calls of its
// editor (str_replace_editor's create, str_replace and insert), each
// answered as OpenHands answers, without the whole file: the converter
// works the file out from the calls.
func openHandsEvents(t *testing.T, calls []fileCall) string {
	events := []map[string]any{{"id": 0, "source": "user", "action": "message", "args": map[string]any{"content": "go"}, "timestamp": "2026-01-01T10:00:00"}}
	for i, c := range calls {
		p, _ := c.params["path"].(string)
		p = strings.Replace(p, "/w/", "/workspace/", 1)
		args := map[string]any{}
		for k, v := range c.params {
			args[k] = v
		}
		args["path"] = p
		tcm := map[string]any{"function_name": c.tool, "tool_call_id": fmt.Sprint("call", i)}
		events = append(events,
			map[string]any{"id": 2*i + 1, "source": "agent", "action": "edit", "args": args, "tool_call_metadata": tcm, "timestamp": "2026-01-01T10:00:01"},
			map[string]any{"id": 2*i + 2, "cause": 2*i + 1, "source": "agent", "observation": "edit", "content": "The file " + p + " has been edited.",
				"extras": map[string]any{"path": p}, "tool_call_metadata": tcm, "timestamp": "2026-01-01T10:00:02"})
	}
	return jsonOf(t, events)
}

// recorded is a file a converted log gives as an output: its content and
// the step that last wrote it.
type recorded struct {
	content string
	step    int
}

// outputsOf reads the outputs of a converted log.
func outputsOf(t *testing.T, log string) map[string]recorded {
	t.Helper()
	out := map[string]recorded{}
	for _, line := range strings.Split(log, "\n") {
		var o struct {
			Event    string `json:"event"`
			Name     string `json:"name"`
			Content  string `json:"content"`
			Metadata struct {
				Step int `json:"written_by_step"`
			} `json:"metadata"`
		}
		if json.Unmarshal([]byte(line), &o) == nil && o.Event == "output" {
			out[o.Name] = recorded{o.Content, o.Metadata.Step}
		}
	}
	return out
}

// replayLog packs a converted log into the store of the current
// directory and replays it into the empty directory ws: the steps as
// replay reports them.
func replayLog(t *testing.T, log, ws string) []replaystream.Step {
	t.Helper()
	if err := os.WriteFile("run.ndjson", []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	p := strings.TrimSpace(ctxtest.Run(t, packcmd.Run, nil, "--no-sidecars", "run.ndjson"))
	out := ctxtest.Run(t, replaycmd.Run, nil, "--json", "--workdir", ws, p)
	var steps []replaystream.Step
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var s replaystream.Step
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("replay: %v: %s", err, line)
		}
		if s.Event == "step" {
			steps = append(steps, s)
		}
	}
	return steps
}

// TestConvertedWritesAndEditsReplayAlike converts a transcript of every
// write and edit tool under every spelling of its path, packs it and
// replays it. Each step must match, which it can only through its
// normalised output (the transcript answers "done"): the converter's
// sentence and replay's come from agenttool. And each file the converter
// followed to the run's last change of it (every file, where the
// transcript shows it) must be the bytes the replay wrote: the converter
// works the file out with agenttool, as replay changes it.
func TestConvertedWritesAndEditsReplayAlike(t *testing.T) {
	calls := fileCalls()
	var editor []fileCall // the editor's calls OpenHands makes: path
	for _, c := range calls {
		if k, _ := agenttool.Lookup(c.tool); k == agenttool.Editor && c.params["path"] != nil {
			editor = append(editor, c)
		}
	}
	for _, format := range []struct {
		name    string
		calls   []fileCall
		session func(*testing.T, []fileCall) string
		// follows says whether the converter knows the file a call
		// leaves; sentences, whether every step is normalised.
		follows   func(fileCall) bool
		sentences bool
	}{
		{"pi", calls, piSession, func(c fileCall) bool { _, _, _, ok := agenttool.WrittenFile(c.tool, c.params); return ok }, true},
		{"claude-code", calls, claudeSession, func(c fileCall) bool { return c.result != nil }, true},
		{"openhands", editor, openHandsEvents, func(fileCall) bool { return true }, false},
	} {
		t.Run(format.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			transcript := filepath.Join(dir, "session.json")
			if err := os.WriteFile(transcript, []byte(format.session(t, format.calls)), 0o644); err != nil {
				t.Fatal(err)
			}
			log := ctxtest.Run(t, convertcmd.Run, nil, "--from", format.name, transcript)
			if format.sentences {
				normalized := strings.Count(log, `"normalized_output":"File `)
				if normalized != len(format.calls) {
					t.Errorf("%d of %d steps have the normalised sentence", normalized, len(format.calls))
				}
			}
			ctxtest.Run(t, initcmd.Run, nil)
			steps := replayLog(t, log, "ws")
			if len(steps) != len(format.calls) {
				t.Errorf("replay gave %d steps of %d", len(steps), len(format.calls))
			}
			for _, s := range steps {
				if want := replaystream.Matched; format.sentences && s.Status != want || s.Status == replaystream.Failed {
					c := format.calls[s.Index]
					t.Errorf("step %d: %s %v: %s %s", s.Index, c.tool, c.params, s.Status, s.Reason)
				}
			}
			// Every file the converter can follow to its last change: the
			// same bytes after the replay.
			outputs := outputsOf(t, log)
			last := map[string]int{} // each file's last call
			for i, c := range format.calls {
				_, p, _ := agenttool.Param(c.params, agenttool.FilePathKeys())
				last[filepath.Base(p)] = i
			}
			compared, want := 0, 0
			for i, c := range format.calls {
				_, p, _ := agenttool.Param(c.params, agenttool.FilePathKeys())
				name := filepath.Base(p)
				if last[name] != i || !format.follows(c) {
					continue
				}
				want++
				o, ok := outputs[name]
				if !ok || o.step != i {
					t.Errorf("%s: the converted log has no output written by step %d (%v)", name, i, o)
					continue
				}
				b, err := os.ReadFile(filepath.Join("ws", name))
				if err != nil || string(b) != o.content {
					t.Errorf("%s: the converted run recorded %q, its replay wrote %q (%v)", name, o.content, b, err)
				}
				compared++
			}
			if compared == 0 || compared != want {
				t.Errorf("compared %d files of the %d the converter follows", compared, want)
			}
		})
	}
}

// FuzzConvertedEditsReplayAlike feeds one edit of a file to two
// converters that work out the file a run left (OpenHands' editor,
// create then str_replace or insert; Claude Code's Write then Edit or
// MultiEdit with the file before them) and to replay, which re-executes
// the calls: the converted run records the edited file exactly when the
// replayed edit succeeds, and then with the bytes the replay wrote.
func FuzzConvertedEditsReplayAlike(f *testing.F) {
	f.Add("a\nb\n", "b", "B", 1, uint8(0))
	f.Add("a\nb\n", "", "X\n", 1, uint8(1))
	f.Add("a", "", "X", 1, uint8(1))
	f.Add("a\nb", "", "X", 3, uint8(1))
	f.Add("x x", "x", "y", 0, uint8(0))   // not unique: refused
	f.Add("x x", "x", "y", 0, uint8(8))   // replace_all (Claude Code)
	f.Add("x y", "y", "z", 0, uint8(2))   // a multi-edit
	f.Add("a\n", "a", "", 0, uint8(4))    // str_replace without new_str
	f.Add("a\n", "", "top", -1, uint8(1)) // a negative line
	f.Fuzz(func(t *testing.T, before, old, new string, line int, flags uint8) {
		dir := t.TempDir()
		t.Chdir(dir)
		ctxtest.Run(t, initcmd.Run, nil)
		oh := []fileCall{{"str_replace_editor", map[string]any{"command": "create", "path": "/w/f.txt", "file_text": before}, nil}}
		switch {
		case flags&1 != 0:
			oh = append(oh, fileCall{"str_replace_editor", map[string]any{"command": "insert", "path": "/w/f.txt", "insert_line": line, "new_str": new}, nil})
		case flags&4 != 0:
			oh = append(oh, fileCall{"str_replace_editor", map[string]any{"command": "str_replace", "path": "/w/f.txt", "old_str": old}, nil})
		default:
			oh = append(oh, fileCall{"str_replace_editor", map[string]any{"command": "str_replace", "path": "/w/f.txt", "old_str": old, "new_str": new}, nil})
		}
		all := flags&8 != 0
		cc := []fileCall{{"Write", map[string]any{"file_path": "/w/f.txt", "content": before}, map[string]any{"type": "create", "filePath": "/w/f.txt", "content": before}}}
		if flags&2 == 0 {
			cc = append(cc, fileCall{"Edit", map[string]any{"file_path": "/w/f.txt", "old_string": old, "new_string": new, "replace_all": all},
				map[string]any{"filePath": "/w/f.txt", "oldString": old, "newString": new, "originalFile": before, "replaceAll": all}})
		} else {
			edits := []any{map[string]any{"old_string": old, "new_string": new, "replace_all": all}, map[string]any{"old_string": new, "new_string": old}}
			cc = append(cc, fileCall{"MultiEdit", map[string]any{"file_path": "/w/f.txt", "edits": edits},
				map[string]any{"filePath": "/w/f.txt", "edits": edits, "originalFile": before}})
		}
		for i, format := range []struct {
			name    string
			calls   []fileCall
			session func(*testing.T, []fileCall) string
		}{{"openhands", oh, openHandsEvents}, {"claude-code", cc, claudeSession}} {
			transcript := filepath.Join(dir, format.name+".json")
			if err := os.WriteFile(transcript, []byte(format.session(t, format.calls)), 0o644); err != nil {
				t.Fatal(err)
			}
			log := ctxtest.Run(t, convertcmd.Run, nil, "--from", format.name, transcript)
			ws := fmt.Sprint("ws", i)
			steps := replayLog(t, log, ws)
			if len(steps) != 2 {
				t.Fatalf("%s: replay gave %d steps", format.name, len(steps))
			}
			made := steps[1].Status != replaystream.Failed
			o, ok := outputsOf(t, log)["f.txt"]
			recordedEdit := ok && o.step == 1
			if made != recordedEdit {
				t.Fatalf("%s: the replayed edit %s (%s), the converted run records the edit: %v", format.name, steps[1].Status, steps[1].Reason, recordedEdit)
			}
			if !made {
				continue
			}
			b, err := os.ReadFile(filepath.Join(ws, "f.txt"))
			if err != nil || string(b) != o.content {
				t.Fatalf("%s: the converted run recorded %q, its replay wrote %q (%v)", format.name, o.content, b, err)
			}
		}
	})
}

// FuzzConvertedSWEActionsReplayAlike feeds a SWE-agent text action (after
// "open f.py") to the converter, which reads it into the command and the
// arguments a function-calling run gives (agenttool.ReadSWELine), and
// replays the converted run; and replays the same action as the shell
// step a function-calling run records, which replay reads as a command
// line. Both replays leave f.py the same bytes, and fail or not alike.
func FuzzConvertedSWEActionsReplayAlike(f *testing.F) {
	for _, action := range []string{
		"edit 1:1\nX\nend_of_edit", "edit 1:1\nX\n\nend_of_edit\n", "edit 2:2\nend_of_edit", "edit 1_0:+1\nY\nend_of_edit",
		"insert 'x\ny' 1", "insert end", "edit 'b' 'B'", "edit b B True", "open f.py;ls", "goto 1_0", "edit 1:1\nX\nend_of_edit\nls",
	} {
		f.Add("a\nb\nc\n", action)
	}
	f.Fuzz(func(t *testing.T, file, action string) {
		dir := t.TempDir()
		t.Chdir(dir)
		ctxtest.Run(t, initcmd.Run, nil)
		text := map[string]any{"trajectory": []any{
			map[string]any{"action": "open f.py", "observation": "", "response": ""},
			map[string]any{"action": action, "observation": "", "response": ""},
		}}
		call := func(id, name string, args map[string]any) map[string]any {
			return map[string]any{"role": "assistant", "content": "", "agent": "main", "tool_calls": []any{
				map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": jsonOf(t, args)}}}}
		}
		answer := func(id string) map[string]any {
			return map[string]any{"role": "tool", "content": "", "agent": "main", "message_type": "observation", "tool_call_ids": []any{id}}
		}
		shell := map[string]any{"history": []any{
			map[string]any{"role": "user", "content": "go", "agent": "main", "message_type": "observation"},
			call("c1", "open", map[string]any{"path": "f.py"}), answer("c1"),
			call("c2", "bash", map[string]any{"command": action}), answer("c2"),
		}}
		var files []string
		var failed []bool
		for i, traj := range []map[string]any{text, shell} {
			p := filepath.Join(dir, fmt.Sprint("run", i, ".traj"))
			if err := os.WriteFile(p, []byte(jsonOf(t, traj)), 0o644); err != nil {
				t.Fatal(err)
			}
			log := ctxtest.Run(t, convertcmd.Run, nil, "--from", "swe-agent", p)
			ws := fmt.Sprint("ws", i)
			ctxtest.WriteFile(t, filepath.Join(ws, "f.py"), []byte(file))
			steps := replayLog(t, log, ws)
			var last replaystream.Step
			for _, s := range steps {
				if s.Deterministic {
					last = s
				}
			}
			b, err := os.ReadFile(filepath.Join(ws, "f.py"))
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, string(b))
			failed = append(failed, last.Status == replaystream.Failed)
		}
		if files[0] != files[1] || failed[0] != failed[1] {
			t.Fatalf("%q: the converted action leaves %q (failed: %v), the shell step %q (failed: %v)", action, files[0], failed[0], files[1], failed[1])
		}
	})
}
