package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWalk(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "tree")
	outside := filepath.Join(top, "outside")
	for _, p := range []string{
		"tree/a.md.ctx.json",
		"tree/b/c.md.ctx.json",
		"tree/b.md.ctx.json",
		"tree/.ctx/objects/x.ctx.json",
		"tree/.git/y.ctx.json",
		"tree/sub/.ctx/z.ctx.json",
		"tree/sub/deep/d.txt.ctx.json",
		"tree/.ctx.json",
		"tree/dir.ctx.json/e.md.ctx.json",
		"tree/plain.md",
		"outside/o.md.ctx.json",
	} {
		full := filepath.Join(top, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "o.md.ctx.json"), filepath.Join(dir, "l.md.ctx.json")); err != nil {
		t.Fatal(err)
	}

	walk := func(root string) string {
		var got []string
		if err := Walk(root, func(a string) error {
			got = append(got, a)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return strings.Join(got, " ")
	}
	j := func(names ...string) string {
		for i, n := range names {
			names[i] = filepath.Join(dir, filepath.FromSlash(n))
		}
		return strings.Join(names, " ")
	}
	want := j("a.md", "b/c.md", "b.md", "dir.ctx.json/e.md", "l.md", "sub/deep/d.txt")
	if got := walk(dir); got != want {
		t.Errorf("walk:\n got %s\nwant %s", got, want)
	}

	// A root named through a symlink is followed; paths keep the name given.
	if err := os.Symlink(dir, filepath.Join(top, "alias")); err != nil {
		t.Fatal(err)
	}
	if got, want := walk(filepath.Join(top, "alias", "b")), filepath.Join(top, "alias", "b", "c.md"); got != want {
		t.Errorf("walk through a symlinked root: got %s, want %s", got, want)
	}

	// A relative root gives relative paths.
	t.Chdir(dir)
	if got := walk("b"); got != filepath.Join("b", "c.md") {
		t.Errorf("relative walk: got %s", got)
	}
	if got := walk("."); !strings.HasPrefix(got, "a.md b/c.md ") {
		t.Errorf("walk of .: got %s", got)
	}
}

func TestWalkStopsOnError(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"a.ctx.json", "b.ctx.json"} {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	calls := 0
	err := Walk(dir, func(string) error {
		calls++
		return os.ErrPermission
	})
	if err != os.ErrPermission || calls != 1 {
		t.Errorf("err %v after %d calls, want the callback's error after 1", err, calls)
	}
	if err := Walk(filepath.Join(dir, "nope"), func(string) error { return nil }); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("walking a missing directory: %v", err)
	}
}
