package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCleanPath(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "a.go", want: "a.go"},
		{in: "./src//main.go", want: "src/main.go"},
		{in: "src/", want: "src"},
		{in: ".", want: "."},
		{in: "./", want: "."},
		{in: "~/x", want: "~/x"},
		{in: "a..b/c..", want: "a..b/c.."},
		{in: "", err: "empty path"},
		{in: "/etc/passwd", err: "is absolute"},
		{in: "//server/share", err: "is absolute"},
		{in: "C:/x", err: "drive letter"},
		{in: `a\..\b`, err: "backslash"},
		{in: "..", err: "leaves the workspace"},
		{in: "../x", err: "leaves the workspace"},
		{in: "a/../../x", err: "leaves the workspace"},
		{in: "a/../b", err: "leaves the workspace"},
		{in: ".ctx/objects", err: "enters a .ctx store"},
		{in: "sub/.CTX/config.json", err: "enters a .ctx store"},
		{in: "a\x00b", err: "NUL"},
	}
	for _, tt := range tests {
		got, err := CleanPath(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("CleanPath(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("CleanPath(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

// A symlink in the workspace that leads out of it can neither be read nor
// written through, and nothing outside changes.
func TestWorkspaceSymlinkEscape(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, target := range map[string]string{
		"rel":      filepath.Join("..", filepath.Base(outside)),
		"abs":      outside,
		"file":     secret,
		"dangling": filepath.Join(outside, "nothing-here"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	// rel only escapes when dir and outside share a parent.
	if filepath.Dir(dir) != filepath.Dir(outside) {
		os.Remove(filepath.Join(dir, "rel"))
		os.Symlink(outside, filepath.Join(dir, "rel"))
	}
	// Both ways of opening: openat2 where the kernel has it, os.Root
	// everywhere else.
	for _, viaRoot := range []bool{false, true} {
		ws, err := OpenWorkspace(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		if viaRoot {
			ws.fast.Fallback() // os.Root for every operation
		}
		for _, p := range []string{"rel/secret.txt", "abs/secret.txt", "file"} {
			if _, err := ws.openRead(p); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
				t.Errorf("os.Root %v: openRead(%q) = %v; want a refusal naming the workspace", viaRoot, p, err)
			}
		}
		for _, p := range []string{"rel/new.txt", "abs/secret.txt", "file", "dangling"} {
			if f, err := ws.create(p, false); err == nil {
				f.Close()
				t.Errorf("os.Root %v: create(%q) succeeded through a symlink out of the workspace", viaRoot, p)
			}
		}
		if f, err := ws.create("inside/new.txt", false); err != nil {
			t.Errorf("os.Root %v: create(inside/new.txt): %v", viaRoot, err)
		} else {
			f.Close()
		}
		ws.Close()
	}
	if b, _ := os.ReadFile(secret); string(b) != "secret\n" {
		t.Errorf("the file outside changed: %q", b)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 1 {
		t.Errorf("something was created outside: %v", ents)
	}
}

// A store inside a --workdir tree is out of reach, by name and through a
// symlink.
func TestWorkspaceStoreGuard(t *testing.T) {
	dir := t.TempDir()
	storeDir := filepath.Join(dir, ".ctx")
	if err := os.MkdirAll(filepath.Join(storeDir, "objects"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".ctx", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	ws, err := OpenWorkspace(dir, storeDir)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, p := range []string{".ctx/config.json", "link/config.json", "link/objects/x"} {
		if _, err := ws.resolve(p); err == nil {
			t.Errorf("resolve(%q) reached the store", p)
		}
	}
	if _, err := ws.resolve("src/a.go"); err != nil {
		t.Errorf("resolve(src/a.go) = %v", err)
	}
}

func TestTempWorkspaceRemove(t *testing.T) {
	ws, err := NewTempWorkspace()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(ws.Dir(), "ro", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws.Dir(), "ro", "deep", "f"), []byte("x"), 0o444)
	os.Chmod(filepath.Join(ws.Dir(), "ro"), 0o500)
	ws.Close()
	if err := ws.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ws.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the workspace is still there: %v", err)
	}
}
