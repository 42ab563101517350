//go:build linux

package store_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/lib/store"
)

// packFiles puts every file of tree through one batch using the store's
// stat cache, as ctx pack does, with the batch's start moved by shift (a
// start in the future lets files just written be recorded), and returns
// the hashes and the batch's counts.
func packFiles(t *testing.T, st *store.Store, dir string, names []string, shift time.Duration, refresh bool) (map[string]store.Hash, store.Stats) {
	t.Helper()
	tree, err := store.OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	c := st.LoadStatCache()
	store.SetStatCacheStart(c, time.Now().Add(shift).UnixNano())
	if refresh {
		c.Refresh()
	}
	b := st.NewBatch()
	b.UseStatCache(c)
	got := map[string]store.Hash{}
	for _, n := range names {
		r := <-b.PutFile(tree, n)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		got[n] = r.Hash
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveStatCache(c); err != nil {
		t.Fatal(err)
	}
	return got, b.Stats()
}

// TestStatCache: a file packed again unchanged is not read; any change of
// content, even one that keeps size and mtime, is read; a hit whose object
// is gone is read and stored again; a damaged cache is an empty one;
// Refresh reads everything; files changed just before the batch began are
// never recorded.
func TestStatCache(t *testing.T) {
	st := newStore(t)
	dir := t.TempDir()
	names := []string{"a.txt", "sub/b.txt", "big.bin"}
	write := func(name, content string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a.txt", "alpha\n")
	write("sub/b.txt", "beta\n")
	write("big.bin", strings.Repeat("x", 3<<20)) // read by stream, not whole
	sum := func(content string) store.Hash { return store.Sum([]byte(content)) }
	future := time.Hour

	// Files younger than the racy window are hashed and not recorded.
	first, stats := packFiles(t, st, dir, names, 0, false)
	if stats.Unread != 0 {
		t.Fatalf("first pack: %d files unread", stats.Unread)
	}
	if _, stats = packFiles(t, st, dir, names, 0, false); stats.Unread != 0 {
		t.Fatalf("files changed just before the batch were recorded: %d unread", stats.Unread)
	}

	// Recorded once old enough, then taken from the cache.
	packFiles(t, st, dir, names, future, false)
	again, stats := packFiles(t, st, dir, names, future, false)
	if stats.Unread != len(names) {
		t.Fatalf("unchanged files: %d unread, want %d", stats.Unread, len(names))
	}
	for _, n := range names {
		if again[n] != first[n] {
			t.Errorf("%s: %s from the cache, %s hashed", n, again[n], first[n])
		}
	}

	// The same size and mtime, other content: the ctime differs.
	p := filepath.Join(dir, "a.txt")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	write("a.txt", "ALPHA\n")
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	got, stats := packFiles(t, st, dir, names, future, false)
	if got["a.txt"] != sum("ALPHA\n") || stats.Unread != len(names)-1 {
		t.Fatalf("changed file: hash %s (want %s), %d unread", got["a.txt"], sum("ALPHA\n"), stats.Unread)
	}

	// A hit whose object is missing is read and stored again.
	obj := st.ObjectPath(sum("beta\n"))
	if err := os.Remove(obj); err != nil {
		t.Fatal(err)
	}
	got, stats = packFiles(t, st, dir, names, future, false)
	if got["sub/b.txt"] != sum("beta\n") || stats.Unread != len(names)-1 || !st.Has(sum("beta\n")) {
		t.Fatalf("missing object: %d unread, stored again: %v", stats.Unread, st.Has(sum("beta\n")))
	}

	// Refresh reads every file.
	if _, stats = packFiles(t, st, dir, names, future, true); stats.Unread != 0 {
		t.Fatalf("refresh: %d unread", stats.Unread)
	}

	// A damaged cache is an empty one.
	cache := filepath.Join(st.CacheDir(), "stat")
	b, err := os.ReadFile(cache)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), " "+filepath.Join(dir, "sub", "b.txt")+"\n") {
		t.Fatalf("cache does not name sub/b.txt:\n%s", b)
	}
	for _, damaged := range []string{
		strings.Replace(string(b), "a.txt", "a.txu", 1),                       // the checksum no longer matches
		string(b[:len(b)-20]),                                                 // truncated
		strings.Replace(string(b), "ctx stat cache 1", "ctx stat cache 9", 1), // another version
	} {
		if err := os.WriteFile(cache, []byte(damaged), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, stats = packFiles(t, st, dir, names, future, false); stats.Unread != 0 {
			t.Fatalf("damaged cache used: %d unread", stats.Unread)
		}
	}
}
