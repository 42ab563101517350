package beneath_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/contextsubstrate/ctx/lib/beneath"
)

// TestOpenFD holds the guard to its rule: a path or symlink out of the
// directory is an escape, a symlink inside is followed only under Inside,
// and after Fallback every call says to take the portable way.
func TestOpenFD(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("openat2 is Linux's")
	}
	top := t.TempDir()
	dir := filepath.Join(top, "d")
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "f"), []byte("x"), 0o644))
	must(t, os.WriteFile(filepath.Join(top, "secret"), []byte("s"), 0o644))
	must(t, os.Symlink("sub/f", filepath.Join(dir, "in")))
	must(t, os.Symlink("../secret", filepath.Join(dir, "out")))
	must(t, os.Symlink(filepath.Join(top, "secret"), filepath.Join(dir, "abs")))

	for _, c := range []struct {
		links  beneath.Symlinks
		rel    string
		opened bool
		escape bool
	}{
		{beneath.Inside, "sub/f", true, false},
		{beneath.Inside, "in", true, false},
		{beneath.Inside, "out", false, true},
		{beneath.Inside, "abs", false, true},
		{beneath.Inside, "../secret", false, true},
		{beneath.Inside, "missing", false, false},
		{beneath.None, "sub/f", true, false},
		{beneath.None, "in", false, false},
		{beneath.None, "out", false, false},
		{beneath.None, "../secret", false, true},
	} {
		d, err := beneath.Open(dir, c.links)
		if err != nil {
			t.Fatal(err)
		}
		fd, err, ok := d.OpenFD(c.rel, os.O_RDONLY, 0)
		if !ok {
			d.Close()
			t.Skip("openat2 is not available here")
		}
		if got := err == nil; got != c.opened {
			t.Errorf("links %d, %s: opened %v (%v), want %v", c.links, c.rel, got, err, c.opened)
		}
		if got := beneath.IsEscape(err); got != c.escape {
			t.Errorf("links %d, %s: escape %v (%v), want %v", c.links, c.rel, got, err, c.escape)
		}
		if err == nil {
			os.NewFile(uintptr(fd), c.rel).Close()
		}
		d.Fallback()
		if _, _, ok := d.OpenFD(c.rel, os.O_RDONLY, 0); ok {
			t.Errorf("links %d, %s: openat2 used after Fallback", c.links, c.rel)
		}
		if _, _, ok := d.Sub(d.FD()).OpenFD(c.rel, os.O_RDONLY, 0); ok {
			t.Errorf("links %d, %s: a Sub forgot the Fallback", c.links, c.rel)
		}
		d.Close()
	}
	var none *beneath.Dir
	if _, _, ok := none.OpenFD("x", os.O_RDONLY, 0); ok {
		t.Error("a nil Dir used openat2")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
