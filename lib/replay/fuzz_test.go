package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
)

// A path CleanPath accepts stays inside any directory it is joined to and
// never names a .ctx store.
func FuzzCleanPath(f *testing.F) {
	for _, s := range []string{"a.go", "./src//x/", "../x", "/etc/passwd", "a/../../b", ".ctx/x", `C:\x`, "~/.ssh/id", "a/./b/.", "..\x00", "....//x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := CleanPath(p)
		if err != nil {
			return
		}
		if rel == "" || strings.HasPrefix(rel, "/") || strings.Contains(rel, `\`) || strings.ContainsRune(rel, 0) {
			t.Fatalf("CleanPath(%q) = %q", p, rel)
		}
		for _, el := range strings.Split(rel, "/") {
			if el == ".." || el == "" || (el == "." && rel != ".") || strings.EqualFold(el, ".ctx") {
				t.Fatalf("CleanPath(%q) = %q holds %q", p, rel, el)
			}
		}
		if !within("/ws", filepath.Join("/ws", filepath.FromSlash(rel))) {
			t.Fatalf("CleanPath(%q) = %q leaves the workspace", p, rel)
		}
	})
}

// Compiling and matching a pattern from a pack never panics, never leaves
// the workspace and stays bounded.
func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{{"**/*.go", "a/b.go"}, {"{a,b}/{c,{d,e}}", "b/e"}, {"[a-", "x"}, {"\\{x,y}", "{x,y}"}, {"a/**/**/b/**", "a/b/c"}, {"../x", "x"}, {"{,}{,}{,}", ""}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, p string) {
		g, err := compileGlob(pattern)
		if err != nil {
			return
		}
		if len(g.alts) == 0 || len(g.alts) > maxGlobAlternatives {
			t.Fatalf("%q compiled to %d alternatives", pattern, len(g.alts))
		}
		for _, alt := range g.alts {
			for _, el := range alt {
				if el == ".." || el == "" {
					t.Fatalf("%q compiled to %q", pattern, alt)
				}
			}
		}
		if pre := g.prefix(); pre != "" {
			if _, err := CleanPath(pre); err != nil {
				t.Fatalf("%q has the prefix %q: %v", pattern, pre, err)
			}
		}
		g.match(p)
	})
}

// Any config.json either fails with a message or gives tools that can run.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{`{"version":1}`, `{"version":1,"tools":{"grep":{"command":["rg","--json"],"version":"14"}}}`, `{"tools":{"x":{"command":[""]}}}`, `{"tools":{"":{}}}`, `[]`, `{"version":1.0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tools, err := ParseConfig(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			return
		}
		for name, tool := range tools {
			if name == "" || len(tool.Command) == 0 || tool.Command[0] == "" {
				t.Fatalf("tool %q: %+v", name, tool)
			}
		}
	})
}

// Whatever parameters a pack gives a file built-in, nothing outside the
// workspace is read or written: the workspace sits beside a directory of
// secrets it holds symlinks to, and the secrets never change.
func FuzzBuiltin(f *testing.F) {
	kinds := []agenttool.Kind{agenttool.Read, agenttool.View, agenttool.List, agenttool.Glob, agenttool.Write, agenttool.Edit, agenttool.MultiEdit, agenttool.Editor}
	for _, s := range []struct {
		k uint8
		p string
	}{
		{0, `{"path":"a.txt"}`}, {0, `{"path":"../secret/s.txt"}`}, {0, `{"path":"out/s.txt"}`}, {0, `{"path":"abs/s.txt","offset":2,"limit":1}`},
		{1, `{"path":"sub","view_range":[1,-1]}`}, {2, `{"path":"out","recursive":true}`}, {3, `{"pattern":"**/*","path":"out"}`},
		{4, `{"path":"out/new.txt","content":"x"}`}, {4, `{"path":"file","content":"x","append":true}`}, {5, `{"path":"file","old_string":"s","new_string":"t"}`},
		{6, `{"path":"a.txt","edits":[{"old_string":"a","new_string":"b"}]}`}, {7, `{"command":"create","path":"dangling","file_text":"x"}`},
		{7, `{"command":"insert","path":"a.txt","insert_line":1,"new_str":"x"}`},
	} {
		f.Add(s.k, s.p)
	}
	f.Fuzz(func(t *testing.T, k uint8, paramsJSON string) {
		p, err := parseParams(json.RawMessage(paramsJSON))
		if err != nil || !json.Valid([]byte(paramsJSON)) {
			return
		}
		top := t.TempDir()
		secret := filepath.Join(top, "secret")
		os.Mkdir(secret, 0o755)
		os.WriteFile(filepath.Join(secret, "s.txt"), []byte("TOPSECRET\n"), 0o644)
		dir := filepath.Join(top, "ws")
		os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
		os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\nb\n"), 0o644)
		os.Symlink("../secret", filepath.Join(dir, "out"))
		os.Symlink(secret, filepath.Join(dir, "abs"))
		os.Symlink("../secret/s.txt", filepath.Join(dir, "file"))
		os.Symlink("../secret/none", filepath.Join(dir, "dangling"))
		ws, err := OpenWorkspace(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		var out bytes.Buffer
		c := &call{ctx: context.Background(), ws: ws, p: p, out: &out, buf: make([]byte, 16), timeout: time.Second}
		runBuiltin(kinds[int(k)%len(kinds)], c)
		var decoded any
		json.Unmarshal([]byte(paramsJSON), &decoded)
		echo, _ := json.Marshal(decoded) // escapes such as \u0054 decoded
		if strings.Contains(out.String(), "TOPSECRET") && !strings.Contains(string(echo), "TOPSECRET") {
			t.Fatalf("the output %q holds the secret", out.String())
		}
		var files []string
		filepath.WalkDir(secret, func(p string, d fs.DirEntry, err error) error {
			files = append(files, p)
			return nil
		})
		if b, _ := os.ReadFile(filepath.Join(secret, "s.txt")); string(b) != "TOPSECRET\n" || len(files) != 2 {
			t.Fatalf("outside the workspace changed: %q, %v", b, files)
		}
	})
}
