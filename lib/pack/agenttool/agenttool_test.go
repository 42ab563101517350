package agenttool

import "testing"

func TestWrittenFile(t *testing.T) {
	cases := []struct {
		tool   string
		params map[string]any
		path   string
		ok     bool
	}{
		{"Write", map[string]any{"file_path": "/w/a.sh", "content": "x"}, "/w/a.sh", true},
		{"write_file", map[string]any{"path": "a", "text": "x"}, "a", true},
		{"write_file", map[string]any{"filePath": "a", "content": "x"}, "a", true},
		{"write_file", map[string]any{"absolute_path": "/w/a", "content": "x"}, "/w/a", true},
		{"WriteFile", map[string]any{"filepath": "a", "contents": "x"}, "a", true},
		{"file_editor", map[string]any{"command": "create", "path": "a", "file_text": "x"}, "a", true},
		{"edit_file", map[string]any{"command": "create", "path": "a", "file_text": "x"}, "a", true},
		{"write_file", map[string]any{"text": "2025"}, "", false}, // no path: not a file
		{"write_file", map[string]any{"path": "a", "file_path": "b", "text": "x"}, "", false},
		{"str_replace_editor", map[string]any{"command": "create", "path": "a", "file_text": "x"}, "a", true},
		{"str_replace_editor", map[string]any{"command": "view", "path": "a"}, "", false},
		{"bash", map[string]any{"command": "echo > a"}, "", false},
		{"write_file", map[string]any{"path": "dir/", "content": "x"}, "", false},
	}
	for _, c := range cases {
		p, _, _, ok := WrittenFile(c.tool, c.params)
		if p != c.path || ok != c.ok {
			t.Errorf("WrittenFile(%s, %v) = %q, %v", c.tool, c.params, p, ok)
		}
	}
}

func TestSaid(t *testing.T) {
	cases := []struct {
		tool   string
		params map[string]any
		want   string // "" for none
	}{
		{"Write", map[string]any{"file_path": "a.txt", "content": "abc"}, "File written: a.txt (3 bytes)"},
		{"write_file", map[string]any{"filePath": "a.txt", "text": "abc", "append": true}, "File appended: a.txt (3 bytes)"},
		{"write_file", map[string]any{"path": "a.txt", "text": "abc", "append": "yes"}, ""},
		{"Edit", map[string]any{"absolute_path": "b", "old_string": "x", "new_string": "y"}, "File edited: b"},
		{"MultiEdit", map[string]any{"file_path": "b", "edits": []any{}}, "File edited: b"},
		{"text_editor", map[string]any{"command": "create", "path": "c", "file_text": "12"}, "File written: c (2 bytes)"},
		{"text_editor", map[string]any{"command": "insert", "path": "c"}, "File edited: c"},
		{"text_editor", map[string]any{"command": "view", "path": "c"}, ""},
		{"Read", map[string]any{"file_path": "a.txt"}, ""},
		{"Write", map[string]any{"file_path": "a.txt", "path": "b.txt", "content": ""}, ""},
		{"Write", map[string]any{"file_path": "a.txt"}, ""},
	}
	for _, c := range cases {
		got, ok := Said(c.tool, c.params)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("Said(%s, %v) = %q, %v; want %q", c.tool, c.params, got, ok, c.want)
		}
	}
}

// Every tool replay runs on the workspace alone is deterministic, and
// nothing else.
func TestWorkspaceOnly(t *testing.T) {
	for name, k := range Builtins() {
		if WorkspaceOnly(name) != (k != Shell) {
			t.Errorf("WorkspaceOnly(%s) = %v", name, !(k != Shell))
		}
	}
	if WorkspaceOnly("web_search") {
		t.Error("WorkspaceOnly(web_search)")
	}
}

// The table names each tool once: a second entry would never be looked
// up.
func TestAllNamesEachToolOnce(t *testing.T) {
	seen := map[string]bool{}
	for name := range All() {
		if seen[name] {
			t.Errorf("%s is in the table twice", name)
		}
		seen[name] = true
		if _, ok := Lookup(name); !ok {
			t.Errorf("Lookup(%s) finds nothing", name)
		}
	}
	if len(seen) != len(Builtins()) || len(seen) < 30 {
		t.Errorf("%d names, Builtins has %d", len(seen), len(Builtins()))
	}
}
