package pack

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/store"
)

// newStore makes an empty store in a temporary directory.
// packLog packs an execution log into st, the way ctx pack does, and
// returns the manifest (with its hash).
func packLog(t testing.TB, st *store.Store, log string) *Manifest {
	t.Helper()
	batch := st.NewBatch()
	res, err := Build(strings.NewReader(log), batch, Options{Root: t.TempDir(), Store: st})
	if err != nil {
		batch.Abort()
		t.Fatalf("build: %v\n%s", err, log)
	}
	if _, err := Publish(st, batch, res.Manifest, nil, time.Now()); err != nil {
		t.Fatal(err)
	}
	return res.Manifest
}

func storedHash(t testing.TB, m *Manifest) store.Hash {
	t.Helper()
	h, err := store.ParseRef(m.Hash)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// sameEntries compares entries field by field (times with Equal: a time
// from the cache and one parsed from text differ only in location).
func sameEntries(t *testing.T, got, want []Listed) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Hash != w.Hash || g.Created != w.Created || g.Stored != w.Stored || g.Model != w.Model || g.Steps != w.Steps ||
			(g.Parent == nil) != (w.Parent == nil) || (g.Parent != nil && *g.Parent != *w.Parent) ||
			!g.CreatedAt.Equal(w.CreatedAt) || !g.StoredAt.Equal(w.StoredAt) {
			t.Errorf("entry %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func testEntries() []Listed {
	parent := store.Sum([]byte("parent"))
	mk := func(seed, created, stored, model string, steps int, parent *store.Hash) Listed {
		return newListed(IndexEntry{Hash: store.Sum([]byte(seed)), Created: created, Model: model, Steps: steps, Parent: parent, Stored: stored})
	}
	ended := mk("f", "2026-02-01T00:00:00Z", "2026-03-01T10:00:04Z", "m", 40, nil)
	ended.End, ended.Subject = "iteration_limit", "django__django-11099"
	return []Listed{
		ended,
		mk("a", "2026-01-01T00:00:00Z", "2026-03-01T10:00:00.123456789Z", "claude-opus-4-6", 12, nil),
		mk("b", "2026-01-01T00:00:00+02:00", "2026-03-01T10:00:01Z", "gpt-4o", 0, &parent),
		// Strings that need quoting, a time outside Unix nanoseconds, and a
		// created time that is not RFC 3339 (kept, sorted last).
		mk("c", "3000-01-01T00:00:00Z", "2026-03-01T10:00:02Z", "model\twith \"tabs\"\nand lines ✓", 3, nil),
		mk("d", "yesterday", "2026-03-01T10:00:03Z", `back\slash`, 1, &parent),
		mk("e", "1960-05-01T00:00:00Z", "1969-12-31T23:59:59.5Z", "old", 2, nil),
	}
}

func TestCacheRoundTrip(t *testing.T) {
	entries := testEntries()
	b := encodeCache("1.2.3.4", entries)
	got, err := decodeCache(b, "1.2.3.4")
	if err != nil {
		t.Fatalf("decode: %v\n%s", err, b)
	}
	// The cache holds the entries in log order.
	want := Select(append([]Listed(nil), entries...), Query{Limit: -1})
	sameEntries(t, got, want)
}

// resum gives a cache altered by a test its right checksum again, so the
// test reaches the check it is about.
func resum(cache string) string {
	if i := strings.LastIndex(cache, "\n"+cacheSum); i >= 0 {
		cache = cache[:i+1]
	}
	sum := store.Sum([]byte(cache))
	return cache + cacheSum + sum.Hex() + "\n"
}

func TestDecodeCacheRejects(t *testing.T) {
	good := encodeCache("9.9", testEntries()[:2])
	lines := strings.SplitAfter(string(good), "\n")
	lines = lines[:len(lines)-2] // without the checksum line and the empty rest
	body := strings.Join(lines, "")
	tests := []struct {
		name  string
		cache string
		stamp string
	}{
		{"other stamp", string(good), "9.8"},
		{"empty stamp", strings.Replace(string(good), "9.9 ", " ", 1), ""},
		{"not a cache", "hello\n", "9.9"},
		{"other version", strings.Replace(string(good), "cache 4", "cache 3", 1), "9.9"},
		{"no header", cacheMagic, "9.9"},
		{"bad count", strings.Replace(string(good), "9.9 2", "9.9 x", 1), "9.9"},
		{"negative count", strings.Replace(string(good), "9.9 2", "9.9 -2", 1), "9.9"},
		{"count larger than the file", strings.Replace(string(good), "9.9 2", "9.9 99999999", 1), "9.9"},
		{"count too small", strings.Replace(string(good), "9.9 2", "9.9 1", 1), "9.9"},
		{"truncated", body[:len(body)-20], "9.9"},
		{"no end line", strings.Join(lines[:len(lines)-1], ""), "9.9"},
		{"data after end", strings.Join(lines, "") + "x\n", "9.9"},
		{"bad hash", strings.Replace(string(good), lines[2][:4], "zzzz", 1), "9.9"},
		{"upper-case hash", strings.Replace(string(good), lines[2][:4], strings.ToUpper(lines[2][:4]), 1), "9.9"},
		{"too few fields", lines[0] + lines[1] + "abc\t1\n" + lines[3] + lines[4], "9.9"},
		{"bad steps", strings.Replace(string(good), "\t12\t", "\t-1\t", 1), "9.9"},
		{"bad quoting", strings.Replace(string(good), `"claude-opus-4-6"`, `"claude`, 1), "9.9"},
		{"bad time", strings.Replace(string(good), "\t1767225600000000000\t", "\t17x\t", 1), "9.9"},
		{"out of log order", lines[0] + lines[1] + lines[3] + lines[2] + lines[4], "9.9"},
		{"a pack twice", lines[0] + lines[1] + lines[2] + lines[2] + lines[4], "9.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.cache == string(good) && tt.stamp == "9.9" {
				t.Fatal("test case does not alter the cache")
			}
			if _, err := decodeCache([]byte(resum(tt.cache)), tt.stamp); err == nil {
				t.Errorf("accepted:\n%s", tt.cache)
			}
		})
	}
	if _, err := decodeCache(good, "9.9"); err != nil {
		t.Fatalf("the good cache is rejected: %v", err)
	}
	// Any change the checksum does not cover is damage: a step count or a
	// model edited by hand, a checksum changed or missing.
	for _, bad := range []string{
		strings.Replace(string(good), "\t12\t", "\t13\t", 1),
		strings.Replace(string(good), `"claude-opus-4-6"`, `"claude-opus-4-7"`, 1),
		body + cacheSum + strings.Repeat("0", 64) + "\n",
		body,
	} {
		if bad == string(good) {
			continue
		}
		if _, err := decodeCache([]byte(bad), "9.9"); err == nil {
			t.Errorf("a cache edited without its checksum is accepted:\n%s", bad)
		}
	}
}

func TestReadIndexUsesCacheOnlyWhileUnchanged(t *testing.T) {
	st := storetest.New(t)
	for i := 0; i < 3; i++ {
		packLog(t, st, fmt.Sprintf(`{"created": "2026-01-0%dT00:00:00Z", "model": {"identifier": "m%d"}, "prompts": [], "steps": []}`, i+1, i))
	}
	later := time.Now().Add(time.Hour)

	// Just after a change: no cache.
	ix, err := ReadIndex(st, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if ix.Cached || len(ix.Entries) != 3 {
		t.Fatalf("cached=%v entries=%d, want a fresh read of 3", ix.Cached, len(ix.Entries))
	}
	if _, err := st.ReadCache(logCache); err == nil {
		t.Fatal("a cache was written within the racy window")
	}

	// Long after: the read writes the cache, the next one uses it.
	first, err := ReadIndex(st, later)
	if err != nil || first.Cached {
		t.Fatalf("err=%v cached=%v", err, first.Cached)
	}
	second, err := ReadIndex(st, later)
	if err != nil || !second.Cached {
		t.Fatalf("err=%v cached=%v, want the cache", err, second.Cached)
	}
	sameEntries(t, Select(second.Entries, Query{Limit: -1}), Select(first.Entries, Query{Limit: -1}))

	// A new pack: read again, and listed.
	m := packLog(t, st, `{"created": "2026-01-09T00:00:00Z", "model": {"identifier": "new"}, "prompts": [], "steps": []}`)
	third, err := ReadIndex(st, later)
	if err != nil || third.Cached || len(third.Entries) != 4 {
		t.Fatalf("err=%v cached=%v entries=%d, want a fresh read of 4", err, third.Cached, len(third.Entries))
	}
	found := false
	for _, e := range third.Entries {
		found = found || e.Hash == storedHash(t, m)
	}
	if !found {
		t.Fatal("the new pack is not listed")
	}
}

// Where the stamp cannot tell (no inode change time), a cache whose
// stamp matches but which misses an entry, as after 'cp -a' put the old
// modification time back, must not be used.
func TestReadIndexComparesNamesWhereStampIsIncomplete(t *testing.T) {
	st := storetest.New(t)
	packLog(t, st, `{"created": "2026-01-01T00:00:00Z", "model": {"identifier": "a"}, "prompts": [], "steps": []}`)
	m := packLog(t, st, `{"created": "2026-01-02T00:00:00Z", "model": {"identifier": "b"}, "prompts": [], "steps": []}`)
	full, err := ReadIndex(st, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var partial []Listed
	for _, e := range full.Entries {
		if e.Hash != storedHash(t, m) {
			partial = append(partial, e)
		}
	}
	stamp, err := st.IndexStamp()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.WriteCache(logCache, encodeCache(stamp.Key, partial)); err != nil {
		t.Fatal(err)
	}
	ix, err := readIndex(st, time.Now().Add(time.Hour), true)
	if err != nil {
		t.Fatal(err)
	}
	if ix.Cached || len(ix.Entries) != 2 {
		t.Fatalf("cached=%v entries=%d: a cache missing a pack was trusted", ix.Cached, len(ix.Entries))
	}
	// With the full set of names, the cache is used on that path too.
	if err := st.WriteCache(logCache, encodeCache(stamp.Key, full.Entries)); err != nil {
		t.Fatal(err)
	}
	if ix, err = readIndex(st, time.Now().Add(time.Hour), true); err != nil || !ix.Cached {
		t.Fatalf("err=%v cached=%v, want the cache", err, ix.Cached)
	}
}

func TestReadIndexRebuildsDamagedEntries(t *testing.T) {
	st := storetest.New(t)
	m := packLog(t, st, `{"created": "2026-01-01T00:00:00Z", "model": {"identifier": "a"}, "prompts": [], "steps": [{"tool": "t"}]}`)
	h := storedHash(t, m)
	other := store.Sum([]byte("other"))
	tests := []struct {
		name  string
		entry string
	}{
		{"truncated", `{"hash":"sha256:`},
		{"empty", ``},
		{"names another pack", fmt.Sprintf(`{"hash":%q,"created":"2026-01-01T00:00:00Z","model":"a","steps":1,"parent":null,"stored":"2026-01-01T00:00:00Z"}`, other)},
		{"no model", fmt.Sprintf(`{"hash":%q,"created":"2026-01-01T00:00:00Z","model":"","steps":1,"parent":null,"stored":"2026-01-01T00:00:00Z"}`, h)},
		{"negative steps", fmt.Sprintf(`{"hash":%q,"created":"2026-01-01T00:00:00Z","model":"a","steps":-1,"parent":null,"stored":"2026-01-01T00:00:00Z"}`, h)},
		{"bad stored", fmt.Sprintf(`{"hash":%q,"created":"2026-01-01T00:00:00Z","model":"a","steps":1,"parent":null,"stored":"now"}`, h)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := st.WriteIndex(h, []byte(tt.entry)); err != nil {
				t.Fatal(err)
			}
			ix, err := ReadIndex(st, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if len(ix.Rebuilt) != 1 || ix.Rebuilt[0].Hash != h || len(ix.Problems) != 0 {
				t.Fatalf("rebuilt=%v problems=%v", ix.Rebuilt, ix.Problems)
			}
			if len(ix.Entries) != 1 || ix.Entries[0].Model != "a" || ix.Entries[0].Steps != 1 {
				t.Fatalf("entries %+v", ix.Entries)
			}
			b, err := st.ReadIndex(h)
			if err != nil {
				t.Fatal(err)
			}
			var e IndexEntry
			if err := json.Unmarshal(b, &e); err != nil || e.Hash != h || e.Model != "a" {
				t.Fatalf("the entry was not rewritten: %s", b)
			}
		})
	}
}

func TestAdoptIndexesPacksNamedByRefs(t *testing.T) {
	st := storetest.New(t)
	m := packLog(t, st, `{"created": "2026-01-01T00:00:00Z", "model": {"identifier": "a"}, "prompts": [], "steps": []}`)
	h := storedHash(t, m)
	if err := st.DeleteIndex(h); err != nil { // as a crash before the entry leaves it
		t.Fatal(err)
	}
	ix, err := ReadIndex(st, time.Now())
	if err != nil || len(ix.Entries) != 0 {
		t.Fatalf("err=%v entries=%d", err, len(ix.Entries))
	}
	blob := store.Sum([]byte("not a pack"))
	ix.Adopt(st, []store.Hash{h, h, blob})
	if len(ix.Entries) != 1 || ix.Entries[0].Hash != h || len(ix.Rebuilt) != 1 || ix.Rebuilt[0].Reason != "missing" {
		t.Fatalf("entries=%+v rebuilt=%+v", ix.Entries, ix.Rebuilt)
	}
	if _, err := st.ReadIndex(h); err != nil {
		t.Fatalf("the entry was not written: %v", err)
	}
}

func TestSelect(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	mk := func(seed, created, stored, model string) Listed {
		return newListed(IndexEntry{Hash: store.Sum([]byte(seed)), Created: created, Stored: stored, Model: model})
	}
	entries := []Listed{
		mk("old", "2026-01-01T00:00:00Z", "2026-05-01T00:00:00Z", "a"),
		mk("tie-first-stored", "2026-02-01T00:00:00Z", "2026-05-01T00:00:00Z", "b"),
		mk("tie-last-stored", "2026-02-01T01:00:00+01:00", "2026-05-02T00:00:00Z", "a"),
		mk("new", "2026-03-01T00:00:00Z", "2026-04-01T00:00:00Z", "b"),
		mk("unparseable", "soon", "2026-06-01T00:00:00Z", "a"),
	}
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		// Newest first by stored time; old and tie-first-stored, stored at
		// the same time, by created time.
		{"all, newest first", Query{Limit: -1}, []string{"unparseable", "tie-last-stored", "tie-first-stored", "old", "new"}},
		{"limit", Query{Limit: 2}, []string{"unparseable", "tie-last-stored"}},
		{"limit zero", Query{Limit: 0}, nil},
		{"model", Query{Models: []string{"a"}, Limit: -1}, []string{"unparseable", "tie-last-stored", "old"}},
		{"models", Query{Models: []string{"a", "b"}, Limit: 3}, []string{"unparseable", "tie-last-stored", "tie-first-stored"}},
		{"since, inclusive", Query{Since: at("2026-02-01T00:00:00Z"), Limit: -1}, []string{"tie-last-stored", "tie-first-stored", "new"}},
		{"since and model and limit", Query{Since: at("2026-01-15T00:00:00Z"), Models: []string{"a"}, Limit: 1}, []string{"tie-last-stored"}},
	}
	names := map[store.Hash]string{}
	for _, e := range entries {
		for _, seed := range []string{"old", "tie-first-stored", "tie-last-stored", "new", "unparseable"} {
			if e.Hash == store.Sum([]byte(seed)) {
				names[e.Hash] = seed
			}
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range Select(append([]Listed(nil), entries...), tt.q) {
				got = append(got, names[e.Hash])
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseSince(t *testing.T) {
	tests := []struct {
		in   string
		want string // RFC 3339 in UTC, "" for an error
	}{
		{"2026-02-10", "2026-02-10T00:00:00Z"},
		{"2026-02-10T12:00:00Z", "2026-02-10T12:00:00Z"},
		{"2026-02-10T12:00:00+02:00", "2026-02-10T10:00:00Z"},
		{"2026-02-10T12:00:00.5Z", "2026-02-10T12:00:00.5Z"},
		{"yesterday", ""},
		{"2 weeks ago", ""},
		{"2026-02-10 12:00", ""},
		{"2026-02-30", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := ParseSince(tt.in)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("ParseSince(%q) = %v, want an error", tt.in, got)
		case tt.want != "" && err != nil:
			t.Errorf("ParseSince(%q): %v", tt.in, err)
		case tt.want != "" && got.UTC().Format(time.RFC3339Nano) != tt.want:
			t.Errorf("ParseSince(%q) = %v, want %s", tt.in, got, tt.want)
		}
	}
}

// BenchmarkReadIndex reads an index of 10,000 entries, from the cache and
// from the entries themselves (what ctx log does after the index
// changed): in an index log, and in the files of an earlier version.
func BenchmarkReadIndex(b *testing.B) {
	for _, form := range []string{"log", "files"} {
		b.Run(form, func(b *testing.B) { benchmarkReadIndex(b, form == "files") })
	}
}

func benchmarkReadIndex(b *testing.B, earlier bool) {
	st := storetest.New(b)
	stored := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var entries []IndexEntry
	for i := 0; i < 10000; i++ {
		h := store.Sum([]byte(fmt.Sprint(i)))
		entries = append(entries, IndexEntry{Hash: h, Created: stored.Add(time.Duration(i) * time.Minute).Format(time.RFC3339), Model: []string{"a", "b", "c"}[i%3], Steps: i % 20, Stored: stored.Format(time.RFC3339Nano)})
	}
	if err := WriteIndexEntries(st, entries); err != nil {
		b.Fatal(err)
	}
	if earlier {
		st = storetest.EarlierIndex(b, st)
	}
	later := time.Now().Add(time.Hour)
	b.Run("cached", func(b *testing.B) {
		if _, err := ReadIndex(st, later); err != nil {
			b.Fatal(err)
		}
		for i := 0; i < b.N; i++ {
			ix, err := ReadIndex(st, later)
			if err != nil || !ix.Cached {
				b.Fatalf("err=%v cached=%v", err, ix.Cached)
			}
			Select(ix.Entries, Query{Limit: -1})
		}
	})
	b.Run("entries", func(b *testing.B) {
		cache := filepath.Join(st.CacheDir(), logCache)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			os.Remove(cache)
			b.StartTimer()
			// A time before the last change: the cache is not rewritten.
			ix, err := readIndex(st, time.Time{}, false)
			if err != nil || ix.Cached {
				b.Fatalf("err=%v cached=%v", err, ix.Cached)
			}
			Select(ix.Entries, Query{Limit: -1})
		}
	})
}

// In a store whose index an earlier version wrote, an entry that cannot
// be read (here a directory stands in its place, which cannot be replaced)
// is listed from its manifest and rebuilt into the index log, which the
// next reader takes instead of the directory.
func TestReadIndexRebuildsIntoTheLog(t *testing.T) {
	st := storetest.New(t)
	m := packLog(t, st, `{"created": "2026-01-01T00:00:00Z", "model": {"identifier": "a"}, "prompts": [], "steps": []}`)
	h := storedHash(t, m)
	st = storetest.EarlierIndex(t, st)
	p := filepath.Join(st.Root(), "packs", h.Hex())
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndex(st, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Entries) != 1 || ix.Entries[0].Model != "a" || len(ix.Rebuilt) != 1 || ix.Rebuilt[0].Unsaved != nil || len(ix.Problems) != 0 {
		t.Fatalf("entries=%+v rebuilt=%+v problems=%+v", ix.Entries, ix.Rebuilt, ix.Problems)
	}
	fresh, err := store.Open(st.Root())
	if err != nil {
		t.Fatal(err)
	}
	ix, err = ReadIndex(fresh, time.Now())
	if err != nil || len(ix.Entries) != 1 || len(ix.Rebuilt) != 0 || ix.Entries[0].Hash != h {
		t.Fatalf("read again: err=%v entries=%+v rebuilt=%+v", err, ix.Entries, ix.Rebuilt)
	}
}

// busy holds the write lock of st's store as another process's writer
// would, until the returned function is called.
func busy(t *testing.T, st *store.Store) func() {
	t.Helper()
	writer, err := store.Open(st.Root())
	if err != nil {
		t.Fatal(err)
	}
	unlock, err := writer.LockWrites()
	if err != nil {
		t.Fatal(err)
	}
	return unlock
}

// A reader meets the states ctx rm passes through, and ctx log's other
// rebuilds, while the store is busy or free. It never puts a removed pack
// back in the index, and writes an entry only while it holds the store
// alone.
func TestAdoptHonoursRemovalAndTheLock(t *testing.T) {
	const log = `{"created": "2026-01-01T00:00:00Z", "model": {"identifier": "a"}, "prompts": [], "steps": []}`
	entry := func(st *store.Store, h store.Hash) bool { return HasIndexEntry(st, h) }

	t.Run("removed, refs/latest not moved yet", func(t *testing.T) {
		st := storetest.New(t)
		h := storedHash(t, packLog(t, st, log))
		// ctx rm between its entry deleted and refs/latest moved.
		if err := Unindex(st, h, time.Now()); err != nil {
			t.Fatal(err)
		}
		ix, err := ReadIndex(st, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		ix.Adopt(st, []store.Hash{h})
		if len(ix.Entries) != 0 || len(ix.Rebuilt) != 0 || entry(st, h) {
			t.Fatalf("a removed pack was adopted: entries=%+v rebuilt=%+v, entry written: %v", ix.Entries, ix.Rebuilt, entry(st, h))
		}
	})
	t.Run("no entry, store free: rebuilt and written", func(t *testing.T) {
		st := storetest.New(t)
		h := storedHash(t, packLog(t, st, log))
		if err := st.DeleteIndex(h); err != nil {
			t.Fatal(err)
		}
		ix := &Index{}
		ix.Adopt(st, []store.Hash{h})
		if len(ix.Entries) != 1 || len(ix.Rebuilt) != 1 || ix.Rebuilt[0].Unsaved != nil || !entry(st, h) {
			t.Fatalf("entries=%+v rebuilt=%+v, entry written: %v", ix.Entries, ix.Rebuilt, entry(st, h))
		}
	})
	t.Run("no entry, a writer at work: listed, not written", func(t *testing.T) {
		st := storetest.New(t)
		h := storedHash(t, packLog(t, st, log))
		if err := st.DeleteIndex(h); err != nil {
			t.Fatal(err)
		}
		defer busy(t, st)()
		ix := &Index{}
		ix.Adopt(st, []store.Hash{h})
		if len(ix.Entries) != 1 || len(ix.Rebuilt) != 1 || !errors.Is(ix.Rebuilt[0].Unsaved, store.ErrBusy) || entry(st, h) {
			t.Fatalf("entries=%+v rebuilt=%+v, entry written: %v", ix.Entries, ix.Rebuilt, entry(st, h))
		}
	})
	t.Run("entry written meanwhile: listed as it is", func(t *testing.T) {
		st := storetest.New(t)
		h := storedHash(t, packLog(t, st, log))
		ix := &Index{} // read before the pack was published
		ix.Adopt(st, []store.Hash{h})
		if len(ix.Entries) != 1 || len(ix.Rebuilt) != 0 {
			t.Fatalf("entries=%+v rebuilt=%+v", ix.Entries, ix.Rebuilt)
		}
	})
	t.Run("damaged entry, a writer at work: listed, not written", func(t *testing.T) {
		st := storetest.New(t)
		h := storedHash(t, packLog(t, st, log))
		if err := st.WriteIndex(h, []byte("{")); err != nil {
			t.Fatal(err)
		}
		unlock := busy(t, st)
		ix, err := ReadIndex(st, time.Now())
		unlock()
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := st.ReadIndex(h); string(b) != "{" || len(ix.Entries) != 1 || len(ix.Rebuilt) != 1 || !errors.Is(ix.Rebuilt[0].Unsaved, store.ErrBusy) {
			t.Fatalf("entry %q; entries=%+v rebuilt=%+v", b, ix.Entries, ix.Rebuilt)
		}
		if ix, err = ReadIndex(st, time.Now()); err != nil || len(ix.Rebuilt) != 1 || ix.Rebuilt[0].Unsaved != nil {
			t.Fatalf("store free: %+v, %v", ix, err)
		}
		if b, _ := st.ReadIndex(h); string(b) == "{" {
			t.Fatal("the damaged entry was not rewritten once the store was free")
		}
	})
}
