package store

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// other opens a second Store value on st's directory: another writer, as a
// second process would be (flock locks belong to the open file).
func other(t *testing.T, st *Store) *Store {
	t.Helper()
	o, err := Open(st.Root())
	if err != nil {
		t.Fatal(err)
	}
	return o
}

// pending is a LockExclusive started in the background.
type pending chan *Exclusive

func lockLater(t *testing.T, s *Store) pending {
	t.Helper()
	p := make(pending, 1)
	go func() {
		x, err := s.LockExclusive(nil)
		if err != nil {
			t.Error(err)
		}
		p <- x
	}()
	return p
}

// within reports whether the lock was got within d, and unlocks it then.
func (p pending) within(d time.Duration) bool {
	select {
	case x := <-p:
		if x != nil {
			x.Unlock()
		}
		return true
	case <-time.After(d):
		return false
	}
}

// exclusiveWithin reports whether LockExclusive on s returns within d;
// when it does not, the caller must let it in before the test ends.
func exclusiveWithin(t *testing.T, s *Store, d time.Duration) bool {
	t.Helper()
	p := lockLater(t, s)
	if p.within(d) {
		return true
	}
	t.Cleanup(func() { p.within(time.Minute) })
	return false
}

func TestWriteLockKeepsGCOut(t *testing.T) {
	st := newTestStore(t)
	unlock, err := st.LockWrites()
	if err != nil {
		t.Fatal(err)
	}
	// Holds nest; a second writer shares the lock.
	unlock2, err := st.LockWrites()
	if err != nil {
		t.Fatal(err)
	}
	w := other(t, st)
	unlockW, err := w.LockWrites()
	if err != nil {
		t.Fatal(err)
	}
	gc := lockLater(t, other(t, st))
	if gc.within(200 * time.Millisecond) {
		t.Fatal("gc got the store while writers held it")
	}
	unlock()
	unlockW()
	unlock() // a second call does nothing
	if gc.within(200 * time.Millisecond) {
		t.Fatal("gc got the store while a nested hold remained")
	}
	unlock2()
	if !gc.within(5 * time.Second) {
		t.Fatal("gc did not get the store once every writer was done")
	}
	x, err := st.LockExclusive(nil)
	if err != nil {
		t.Fatal(err)
	}
	x.Unlock()
}

func TestExclusiveKeepsWritersOut(t *testing.T) {
	st := newTestStore(t)
	x, err := other(t, st).LockExclusive(nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		unlock, err := st.LockWrites()
		if err == nil {
			unlock()
		}
		done <- err
	}()
	select {
	case <-done:
		t.Fatal("a writer got in while gc held the store")
	case <-time.After(200 * time.Millisecond):
	}
	x.Unlock()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// A batch takes the lock itself, from its first put to its commit.
	b := st.NewBatch()
	if _, err := b.PutBytes([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if exclusiveWithin(t, other(t, st), 200*time.Millisecond) {
		t.Fatal("gc got the store while a batch held temporary files")
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
}

// leftovers plants what a killed writer leaves: its marker, a large
// object's temporary file in tmp/, small ones beside objects, an index
// entry's and a ref's temporary files, and one at the top of the store
// (not written under the lock), young or old.
func leftovers(t *testing.T, st *Store, cacheAge time.Duration) []string {
	t.Helper()
	files := []string{
		"tmp/writer-99999-0123456789ab",
		"tmp/.tmp-obj-aaaa",
		"objects/ab/.tmp-obj-bbbb",
		"refs/.tmp-cccc",
		"packs/.tmp-dddd",
		".tmp-eeee",
	}
	for _, f := range files {
		p := filepath.Join(st.Root(), f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, bytes.Repeat([]byte("x"), 1000), 0o444); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-cacheAge)
	os.Chtimes(filepath.Join(st.Root(), ".tmp-eeee"), old, old)
	return files
}

func present(st *Store, files []string) []string {
	var out []string
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(st.Root(), f)); err == nil {
			out = append(out, f)
		}
	}
	return out
}

func TestNextWriterSweepsLeftovers(t *testing.T) {
	st := newTestStore(t)
	// Not alone: another writer may own them.
	unlockW, err := other(t, st).LockWrites()
	if err != nil {
		t.Fatal(err)
	}
	files := leftovers(t, st, time.Hour)
	unlock, err := st.LockWrites()
	if err != nil {
		t.Fatal(err)
	}
	unlock()
	if got := present(st, files); len(got) != len(files) {
		t.Fatalf("swept while another writer was at work: left %v", got)
	}
	unlockW()

	// Alone: everything goes, and the writer's own marker lives as long
	// as its hold.
	b := st.NewBatch()
	if _, err := b.PutBytes([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if got := present(st, files); len(got) != 0 {
		t.Fatalf("left %v", got)
	}
	names, _ := readNames(st.tmp())
	if len(names) != 1 || !strings.HasPrefix(names[0], writerMarker) {
		t.Errorf("tmp/ holds %v, want the writer's marker", names)
	}
	b.Abort()
	if names, _ := readNames(st.tmp()); len(names) != 0 {
		t.Errorf("tmp/ holds %v after the batch", names)
	}
}

// Held alone, a sweep removes every temporary file made under the write
// lock, however young (a stream killed a moment ago left its index
// entries' and refs' temporary files), but spares a young one at the top
// of the store, which is not written under the lock.
func TestSweepSparesYoungTempsOfOtherWriters(t *testing.T) {
	st := newTestStore(t)
	files := leftovers(t, st, 0)
	x, err := st.LockExclusive(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Unlock()
	sw := x.SweepTemps()
	if got := present(st, files); len(got) != 1 || got[0] != ".tmp-eeee" {
		t.Errorf("left %v, want only the young temporary file at the top of the store", got)
	}
	if sw.Files != 5 || sw.Bytes != 5000 {
		t.Errorf("swept %+v, want 5 files, 5000 bytes", sw)
	}
}

func TestWriteLockOnReadOnlyStore(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes anywhere")
	}
	st := newTestStore(t)
	os.Chmod(st.Root(), 0o555)
	defer os.Chmod(st.Root(), 0o755)
	unlock, err := st.LockWrites()
	if err != nil {
		t.Fatalf("a store one may only read: %v", err)
	}
	unlock()
	if _, err := st.LockExclusive(nil); err == nil {
		t.Fatal("gc locked a store it cannot write")
	}
}

// A gc waiting behind a long writer (a long pack stream) lets other
// writers through instead of keeping the gate shut until the long one is
// done: before, an independent 0.1 s ctx pack waited for the whole of the
// long writer. The writer here gets in while the long one still holds the
// lock (the bound is only how long the test waits to call it stuck).
func TestWaitingGCLetsWritersThrough(t *testing.T) {
	st := newTestStore(t)
	unlockLong, err := st.LockWrites()
	if err != nil {
		t.Fatal(err)
	}
	waiting := make(chan struct{})
	gc := make(pending, 1)
	go func() {
		x, err := other(t, st).LockExclusive(func() { close(waiting) })
		if err != nil {
			t.Error(err)
		}
		gc <- x
	}()
	<-waiting
	for i := 0; i < 3; i++ {
		through := make(chan error, 1)
		go func() {
			unlock, err := other(t, st).LockWrites()
			if err == nil {
				unlock()
			}
			through <- err
		}()
		select {
		case err := <-through:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			unlockLong()
			gc.within(time.Minute)
			<-through
			t.Fatal("a writer waited behind a gc that waited behind a long writer")
		}
	}
	if gc.within(100 * time.Millisecond) {
		t.Fatal("gc got the store while the long writer held it")
	}
	unlockLong()
	if !gc.within(20 * time.Second) {
		t.Fatal("gc did not get the store once the long writer was done")
	}
}

// Writers that overlap without a gap do not keep gc out for ever: it
// shuts the gate and the writers at work finish.
func TestGCGetsInBetweenOverlappingWriters(t *testing.T) {
	st := newTestStore(t)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := other(t, st)
			for {
				select {
				case <-stop:
					return
				default:
				}
				unlock, err := s.LockWrites()
				if err != nil {
					t.Error(err)
					return
				}
				time.Sleep(30 * time.Millisecond)
				unlock()
			}
		}()
	}
	ok := exclusiveWithin(t, other(t, st), 30*time.Second)
	close(stop)
	wg.Wait()
	if !ok {
		t.Fatal("gc never got the store between overlapping writers")
	}
}
