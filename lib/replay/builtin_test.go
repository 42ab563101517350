package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
)

// testWorkspace is a workspace holding files (name -> content; a name
// ending in / is a directory).
func testWorkspace(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := OpenWorkspace(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// runTool runs the built-in tool with the parameters; it returns the output
// or the error.
func runTool(t *testing.T, ws *Workspace, tool, paramsJSON string) (string, error) {
	t.Helper()
	k, ok := agenttool.Builtins()[tool]
	if !ok {
		t.Fatalf("no built-in %q", tool)
	}
	p, err := parseParams(json.RawMessage(paramsJSON))
	if err != nil {
		t.Fatalf("parameters %s: %v", paramsJSON, err)
	}
	var out bytes.Buffer
	c := &call{ctx: context.Background(), ws: ws, p: p, out: &out, buf: make([]byte, 7), timeout: 5 * time.Second, env: os.Environ()}
	err = runBuiltin(k, c)
	return out.String(), err
}

func readWS(t *testing.T, ws *Workspace, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(ws.Dir(), filepath.FromSlash(name)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return string(b)
}

func TestBuiltins(t *testing.T) {
	files := map[string]string{
		"a.txt":            "one\ntwo\nthree\nfour\n",
		"noeol.txt":        "x\ny",
		"src/main.go":      "package main\n",
		"src/lib/b.go":     "package lib\n",
		"src/lib/c.txt":    "c\n",
		"src/empty/":       "",
		".ctx/config.json": "{}",
		"dup.txt":          "ab ab ab\n",
	}
	tests := []struct {
		tool, params string
		want         string // output, or the error's text after "error: "
	}{
		{"read_file", `{"path":"a.txt"}`, "one\ntwo\nthree\nfour\n"},
		{"Read", `{"file_path":"./a.txt","offset":2,"limit":2}`, "two\nthree\n"},
		{"Read", `{"file_path":"a.txt","offset":0,"limit":1}`, "one\n"},
		{"read", `{"path":"a.txt","offset":"3"}`, "three\nfour\n"},
		{"view", `{"path":"a.txt","view_range":[2,-1]}`, "two\nthree\nfour\n"},
		{"view_file", `{"path":"a.txt","start_line":4,"end_line":9}`, "four\n"},
		{"cat", `{"filename":"noeol.txt","offset":2}`, "y"},
		{"read_file", `{"target_file":"missing.txt"}`, "error: missing.txt: no such file in the workspace"},
		{"read_file", `{"path":"src"}`, "error: src is a directory"},
		{"read_file", `{"path":"../a.txt"}`, "error: parameter path: ../a.txt leaves the workspace"},
		{"read_file", `{"path":"/etc/passwd"}`, "error: parameter path: /etc/passwd is absolute; paths are relative to the workspace"},
		{"read_file", `{"path":".ctx/config.json"}`, "error: parameter path: .ctx/config.json enters a .ctx store"},
		{"read_file", `{"path":"a.txt","file_path":"b.txt"}`, "error: parameters path and file_path name the same thing; give one"},
		{"read_file", `{"path":3}`, "error: parameter path: must be a string, not a number"},
		{"read_file", `{}`, "error: parameters: no file path (give path, file_path, filePath, filepath, filename, file, target_file or absolute_path)"},
		{"view", `{"path":"a.txt","view_range":[3,1]}`, "error: parameter view_range: must be [first, last] lines from 1, last -1 for the end"},
		{"view", `{"path":"src"}`, "empty/\nlib/\nmain.go\n"},

		{"ls", `{}`, "a.txt\ndup.txt\nnoeol.txt\nsrc/\n"},
		{"list_directory", `{"dir_path":"src/lib"}`, "b.go\nc.txt\n"},
		{"list_files", `{"path":"src","recursive":true}`, "empty/\nlib/\nlib/b.go\nlib/c.txt\nmain.go\n"},
		{"LS", `{"path":"a.txt"}`, "error: a.txt: not a directory"},
		{"list_dir", `{"relative_workspace_path":"nope"}`, "error: nope: no such file in the workspace"},

		{"Glob", `{"pattern":"**/*.go"}`, "src/lib/b.go\nsrc/main.go\n"},
		{"glob", `{"pattern":"*.go","path":"src/lib"}`, "src/lib/b.go\n"},
		{"glob", `{"pattern":"src/**/*.{go,txt}"}`, "src/lib/b.go\nsrc/lib/c.txt\nsrc/main.go\n"},
		{"glob_file_search", `{"glob_pattern":"nothere/**/*.go"}`, ""},
		{"glob", `{"pattern":"*.md"}`, ""},
		{"glob", `{"pattern":"../*"}`, "error: parameter pattern: ../* leaves the workspace"},
		{"glob", `{"pattern":"*","path":"../"}`, "error: parameter path: ../ leaves the workspace"},

		{"write_file", `{"file_path":"new/dir/x.txt","text":"hello"}`, "File written: new/dir/x.txt (5 bytes)"},
		{"write_file", `{"file_path":"a.txt","text":"five\n","append":true}`, "File appended: a.txt (5 bytes)"},
		{"Write", `{"file_path":"src","content":"x"}`, "error: src is a directory"},
		{"write", `{"path":"z.txt"}`, "error: parameters: no content (give content, text, file_text or contents)"},

		{"edit_file", `{"file_path":"src/main.go","old_string":"main","new_string":"app"}`, "File edited: src/main.go"},
		{"Edit", `{"file_path":"dup.txt","old_string":"ab","new_string":"cd"}`, "error: dup.txt: old_string occurs 3 times; give more context or replace_all"},
		{"Edit", `{"file_path":"dup.txt","old_string":"zz","new_string":"cd"}`, "error: dup.txt: old_string not found"},
		{"str_replace", `{"path":"noeol.txt","old_str":"y","new_str":"z"}`, "File edited: noeol.txt"},
		{"Edit", `{"file_path":"fresh.txt","old_string":"","new_string":"new\n"}`, "File edited: fresh.txt"},
		{"Edit", `{"file_path":"a.txt","old_string":"","new_string":"x"}`, "error: parameter old_string: empty; nothing to replace in a.txt"},
		{"MultiEdit", `{"file_path":"dup.txt","edits":[{"old_string":"ab","new_string":"x","replace_all":true},{"old_string":"x x","new_string":"y"}]}`, "File edited: dup.txt"},
		{"MultiEdit", `{"file_path":"src/lib/b.go","edits":[{"old_string":"lib","new_string":"x"},{"old_string":"nope","new_string":"y"}]}`, "error: edits[1]: src/lib/b.go: old_string not found"},
		{"edit_file", `{"path":"src/lib/c.txt","edits":[{"oldText":"c","newText":"C"}]}`, "File edited: src/lib/c.txt"},

		{"str_replace_editor", `{"command":"create","path":"ed.txt","file_text":"1\n2\n"}`, "File written: ed.txt (4 bytes)"},
		{"str_replace_based_edit_tool", `{"command":"insert","path":"ed.txt","insert_line":1,"new_str":"1.5"}`, "File edited: ed.txt"},
		{"text_editor", `{"command":"insert","path":"ed.txt","insert_line":9,"new_str":"x"}`, "error: parameter insert_line: ed.txt has fewer than 9 lines"},
		{"str_replace_editor", `{"command":"view","path":"ed.txt","view_range":[2,2]}`, "1.5\n"},
		{"str_replace_editor", `{"command":"undo_edit","path":"ed.txt"}`, `error: parameter command: "undo_edit" is not supported by the built-in editor (view, create, str_replace, insert)`},

		{"bash", `{"command":"printf out; printf err >&2; exit 3"}`, "outerr"},
		{"shell", `{"command":["printf","%s|","a b","c'd"]}`, "a b|c'd|"},
		{"execute_command", `{"command":"pwd -P"}`, "WORKSPACE\n"},
		{"bash", `{"command":"sleep 10"}`, "error: /bin/sh: timed out after 300ms (see --step-timeout)"},
		{"bash", `{"command":5}`, "error: parameter command: must be a string or an array of strings, not a number"},
	}
	ws := testWorkspace(t, files)
	for _, tt := range tests {
		t.Run(tt.tool+" "+tt.params, func(t *testing.T) {
			k := agenttool.Builtins()[tt.tool]
			p, _ := parseParams(json.RawMessage(tt.params))
			var out bytes.Buffer
			timeout := 5 * time.Second
			if strings.Contains(tt.params, "sleep") {
				timeout = 300 * time.Millisecond
			}
			c := &call{ctx: context.Background(), ws: ws, p: p, out: &out, buf: make([]byte, 7), timeout: timeout, env: os.Environ()}
			err := runBuiltin(k, c)
			got := out.String()
			if err != nil {
				got = "error: " + err.Error()
			}
			want := strings.ReplaceAll(tt.want, "WORKSPACE", ws.Dir())
			if got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
		})
	}
	for name, want := range map[string]string{
		"new/dir/x.txt": "hello",
		"a.txt":         "one\ntwo\nthree\nfour\nfive\n",
		"src/main.go":   "package app\n",
		"noeol.txt":     "x\nz",
		"fresh.txt":     "new\n",
		"dup.txt":       "y x\n",
		"src/lib/b.go":  "package lib\n",
		"src/lib/c.txt": "C\n",
		"ed.txt":        "1\n1.5\n2\n",
	} {
		if got := readWS(t, ws, name); got != want {
			t.Errorf("%s holds %q; want %q", name, got, want)
		}
	}
	if got := readWS(t, ws, ".ctx/config.json"); got != "{}" {
		t.Errorf(".ctx/config.json changed: %q", got)
	}
}

func TestInsertAtTopAndEnd(t *testing.T) {
	ws := testWorkspace(t, map[string]string{"f": "a\nb"})
	if _, err := runTool(t, ws, "str_replace_editor", `{"command":"insert","path":"f","insert_line":0,"new_str":"top"}`); err != nil {
		t.Fatal(err)
	}
	// After the last line, which has no newline: the text runs on from it,
	// as OpenHands' editor writes it (agenttool.Insert).
	if _, err := runTool(t, ws, "str_replace_editor", `{"command":"insert","path":"f","insert_line":3,"new_str":"end"}`); err != nil {
		t.Fatal(err)
	}
	if got := readWS(t, ws, "f"); got != "top\na\nbend\n" {
		t.Errorf("f holds %q", got)
	}
	if _, err := runTool(t, ws, "str_replace_editor", `{"command":"insert","path":"f","insert_line":4,"new_str":"x"}`); err == nil {
		t.Error("an insert after line 4 of a file of 3 lines was made")
	}
}

// Lines longer than the reader's buffer stream through a ranged read.
func TestReadLongLines(t *testing.T) {
	long := strings.Repeat("x", 200<<10)
	ws := testWorkspace(t, map[string]string{"f": "a\n" + long + "\nb\n"})
	got, err := runTool(t, ws, "Read", `{"file_path":"f","offset":2,"limit":1}`)
	if err != nil || got != long+"\n" {
		t.Errorf("read of a long line: %d bytes, %v", len(got), err)
	}
}
