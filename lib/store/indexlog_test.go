package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// indexState is what the index says, as ctx log reads it: pack -> entry,
// one "hex=entry" a line.
func indexState(t *testing.T, st *Store) string {
	t.Helper()
	fresh, err := Open(st.Root()) // nothing remembered of an earlier read
	if err != nil {
		t.Fatal(err)
	}
	places, err := fresh.IndexPlaces()
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(places))
	var mu sync.Mutex
	fresh.ReadIndexEntries(places, func(i int, entry []byte, err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			t.Errorf("%s: %v", places[i].Where, err)
		}
		out[i] = places[i].Hash.Hex()[:8] + "=" + strings.TrimSuffix(string(entry), "\n")
	})
	return lines(out...)
}

// lines is the state of the index made of these "hex=entry" lines.
func lines(l ...string) string {
	sort.Strings(l)
	return strings.Join(l, "\n")
}

func indexLogs(t *testing.T, st *Store) []string {
	t.Helper()
	names, err := st.indexLogNames()
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestIndexLogWritesAndReads(t *testing.T) {
	st := newTestStore(t)
	a, b, c := Sum([]byte("a")), Sum([]byte("b")), Sum([]byte("c"))
	if err := st.WriteIndex(a, []byte("old a\n")); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteIndexes([]IndexRecord{{Hash: a, Entry: []byte("new a\n")}, {Hash: b, Entry: []byte("b")}, {Hash: c, Entry: []byte("c")}}); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteIndex(c); err != nil {
		t.Fatal(err)
	}
	for h, want := range map[Hash]string{a: "new a", b: "b"} {
		got, err := st.ReadIndex(h)
		if err != nil || string(got) != want {
			t.Errorf("ReadIndex(%s) = %q, %v; want %q", h, got, err, want)
		}
	}
	if _, err := st.ReadIndex(c); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadIndex of a removed pack: %v", err)
	}
	if got, want := indexState(t, st), lines(a.Hex()[:8]+"=new a", b.Hex()[:8]+"=b"); got != want {
		t.Errorf("index %q, want %q", got, want)
	}
	// One log, no file per pack, no temporary file.
	ents, err := os.ReadDir(filepath.Join(st.Root(), packsDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || !isIndexLogName(ents[0].Name()) {
		t.Errorf("packs/ holds %v, want one index log", ents)
	}
	if err := st.WriteIndexes(nil); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteIndex(a, []byte("two\nlines")); err == nil {
		t.Error("an entry of two lines was written")
	}
}

// A record torn by a writer killed in its write, damage in the middle of
// the log, and garbage are skipped; what is appended after them is read.
func TestIndexLogSkipsTornAndDamagedRecords(t *testing.T) {
	st := newTestStore(t)
	a, b := Sum([]byte("a")), Sum([]byte("b"))
	if err := st.WriteIndex(a, []byte("entry of a")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(st.Root(), packsDir, indexLogs(t, st)[0])
	whole, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	// A torn copy of b's record, then a record whose byte changed.
	torn := appendRecord([]byte{'\n'}, IndexRecord{Hash: b, Entry: []byte("torn")}, 5)
	damaged := appendRecord([]byte{'\n'}, IndexRecord{Hash: a, Entry: []byte("damaged")}, 6)
	damaged[len(damaged)-3] ^= 1
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(damaged)
	f.Write(torn[:len(torn)/2])
	f.Close()
	if got, err := st.ReadIndex(a); err != nil || string(got) != "entry of a" {
		t.Fatalf("after damage: %q, %v", got, err)
	}
	if _, err := st.ReadIndex(b); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a torn record was read: %v", err)
	}
	if err := st.WriteIndex(b, []byte("entry of b")); err != nil {
		t.Fatal(err)
	}
	if got, err := st.ReadIndex(b); err != nil || string(got) != "entry of b" {
		t.Fatalf("the record after a torn one: %q, %v", got, err)
	}
	fresh, _ := Open(st.Root())
	fresh.ilog.mu.Lock()
	err = fresh.refreshIndexLog(true)
	bad, records := fresh.ilog.bad, fresh.ilog.records
	fresh.ilog.mu.Unlock()
	if err != nil || bad != 2 || records != 2 {
		t.Fatalf("read %d records and %d bad lines (%v); log:\n%s", records, bad, err, whole)
	}
}

// Writers append at once from many goroutines and processes' worth of
// Stores: every record is read, none torn by another.
func TestIndexLogConcurrentAppends(t *testing.T) {
	st := newTestStore(t)
	var wg sync.WaitGroup
	const writers, each = 8, 40
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(st.Root())
			if err != nil {
				t.Error(err)
				return
			}
			for i := 0; i < each; i++ {
				h := Sum([]byte(fmt.Sprint(w, i)))
				if err := s.WriteIndex(h, []byte(strings.Repeat(fmt.Sprint(w), 300))); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	hashes, err := st.IndexedPacks()
	if err != nil || len(hashes) != writers*each {
		t.Fatalf("%d packs indexed (%v), want %d", len(hashes), err, writers*each)
	}
	if logs := indexLogs(t, st); len(logs) > writers {
		t.Fatalf("%d logs", len(logs))
	}
}

// The logs of two stores copied into one are read together; the latest
// record of a pack decides, whichever log it is in.
func TestIndexLogsMerged(t *testing.T) {
	one, two := newTestStore(t), newTestStore(t)
	a, b := Sum([]byte("a")), Sum([]byte("b"))
	must(t, one.WriteIndex(a, []byte("a from one")))
	must(t, two.WriteIndex(b, []byte("b from two")))
	must(t, two.WriteIndex(a, []byte("a from two, later")))
	for _, n := range indexLogs(t, two) {
		b, err := os.ReadFile(filepath.Join(two.Root(), packsDir, n))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(one.Root(), packsDir, n), b, 0o644))
	}
	if got, want := indexState(t, one), lines(a.Hex()[:8]+"=a from two, later", b.Hex()[:8]+"=b from two"); got != want {
		t.Fatalf("merged index %q, want %q", got, want)
	}
	must(t, one.DeleteIndex(a))
	if _, err := one.ReadIndex(a); !errors.Is(err, ErrNotFound) {
		t.Fatalf("removed from a merged index: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// An earlier version's files are read beside the log; a record of the
// log wins over a file; compaction folds the files in, drops what is
// superseded, removed or torn, and changes nothing the index says.
func TestCompactIndex(t *testing.T) {
	st := newTestStore(t)
	a, b, c, d := Sum([]byte("a")), Sum([]byte("b")), Sum([]byte("c")), Sum([]byte("d"))
	dir := filepath.Join(st.Root(), packsDir)
	must(t, os.WriteFile(filepath.Join(dir, a.Hex()), []byte("a from a file\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, b.Hex()), []byte("b from a file\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, d.Hex()), []byte("d from a file\n"), 0o644))
	must(t, st.WriteIndex(b, []byte("b from the log")))
	must(t, st.WriteIndex(c, []byte("c")))
	must(t, st.WriteIndex(c, []byte("c again")))
	must(t, st.DeleteIndex(d))
	if got, err := st.ReadIndex(d); !errors.Is(err, ErrNotFound) {
		t.Fatalf("d removed, read %q", got)
	}
	before := indexState(t, st)
	if !strings.Contains(before, "=b from the log") || !strings.Contains(before, "=a from a file") {
		t.Fatalf("index before: %s", before)
	}
	done, err := st.CompactIndex()
	if err != nil {
		t.Fatal(err)
	}
	if done.Packs != 3 || done.Folded != 2 || done.Logs != 1 {
		t.Fatalf("compacted %+v", done)
	}
	if after := indexState(t, st); after != before {
		t.Fatalf("index after compaction:\n%s\nbefore:\n%s", after, before)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || !isIndexLogName(ents[0].Name()) {
		t.Fatalf("packs/ after compaction: %v", ents)
	}
	// Three entries, and the removal of d, kept while d's file could
	// still be there (a crash before it was removed).
	b1, _ := os.ReadFile(filepath.Join(dir, ents[0].Name()))
	if n := strings.Count(string(b1), "\n"); n != 4 || !strings.Contains(string(b1), " - "+d.Hex()+" ") {
		t.Fatalf("the compacted log has %d records:\n%s", n, b1)
	}
	// Compacted again, with nothing beside it: the removal goes.
	again, err := st.CompactIndex()
	if err != nil || again.Packs != 3 || again.Records != 4 {
		t.Fatalf("again: %+v, %v", again, err)
	}
	if after := indexState(t, st); after != before {
		t.Fatalf("index after compacting again:\n%s\nbefore:\n%s", after, before)
	}
	// Compact already: nothing written.
	ents, _ = os.ReadDir(dir)
	third, err := st.CompactIndex()
	if err != nil || third.Packs != 3 || third.Records != 3 {
		t.Fatalf("a third time: %+v, %v", third, err)
	}
	if ents2, _ := os.ReadDir(dir); len(ents2) != 1 || ents2[0].Name() != ents[0].Name() {
		t.Fatalf("compacting a compact index rewrote it: %v", ents2)
	}
}

// A crash part way through compaction (here, each write it makes failing
// in turn) leaves an index that says what it said before.
func TestCompactIndexInterrupted(t *testing.T) {
	setup := func(t *testing.T) *Store {
		st := newTestStore(t)
		dir := filepath.Join(st.Root(), packsDir)
		a, b, c := Sum([]byte("a")), Sum([]byte("b")), Sum([]byte("c"))
		must(t, os.WriteFile(filepath.Join(dir, a.Hex()), []byte("a from a file\n"), 0o644))
		must(t, st.WriteIndex(b, []byte("b")))
		must(t, st.WriteIndex(c, []byte("c")))
		must(t, st.DeleteIndex(b))
		return st
	}
	n := 0
	count := setup(t)
	count.faults = func(op, path string, _ int) error { n++; return nil }
	before := indexState(t, count)
	if _, err := count.CompactIndex(); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < n; k++ {
		st := setup(t)
		i := 0
		st.faults = func(op, path string, _ int) error {
			i++
			if i-1 == k {
				return syscall.EIO
			}
			return nil
		}
		if _, err := st.CompactIndex(); err == nil {
			t.Errorf("write %d of %d failing: the compaction succeeded", k, n)
		}
		st.faults = nil
		if got := indexState(t, st); got != before {
			t.Errorf("write %d failing: the index says\n%s\nnot\n%s", k, got, before)
		}
		if _, err := st.CompactIndex(); err != nil {
			t.Errorf("compacting again: %v", err)
		}
		if got := indexState(t, st); got != before {
			t.Errorf("write %d failing, then compacted: the index says\n%s\nnot\n%s", k, got, before)
		}
	}
}
