package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/store"
)

// packSome stores n small objects in one packed batch and returns them.
func packSome(t *testing.T, st *store.Store, n int, tag string) [][]byte {
	t.Helper()
	b := st.NewBatch()
	b.PackSmall()
	var objs [][]byte
	for i := 0; i < n; i++ {
		data := []byte(fmt.Sprintf("%s object %d", tag, i))
		if _, err := b.PutBytes(data); err != nil {
			t.Fatal(err)
		}
		objs = append(objs, data)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	return objs
}

func packedFiles(t *testing.T, st *store.Store, suffix string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(st.Root(), "objects", "packed", "*"+suffix))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A packed batch writes one .pack and one .idx, no loose object, and every
// read path finds its objects.
func TestPackedObjectsRead(t *testing.T) {
	st := storetest.New(t)
	objs := packSome(t, st, 50, "a")
	if n := len(packedFiles(t, st, ".pack")); n != 1 {
		t.Fatalf("%d .pack files, want 1", n)
	}
	loose, _, err := st.ObjectNames()
	if err != nil || len(loose) != 50 {
		t.Fatalf("ObjectNames: %d names, %v; want 50", len(loose), err)
	}
	for _, data := range objs {
		h := store.Sum(data)
		if _, err := os.Lstat(st.ObjectPath(h)); err == nil {
			t.Fatalf("%s is loose too", h)
		}
		got, err := st.ReadAll(h)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("ReadAll(%s) = %q, %v", h, got, err)
		}
		if n, err := st.Stat(h); err != nil || n != int64(len(data)) {
			t.Fatalf("Stat(%s) = %d, %v", h, n, err)
		}
		o, err := st.Open(h)
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(o)
		o.Close()
		if err != nil || !bytes.Equal(b, data) {
			t.Fatalf("Open(%s): %q, %v", h, b, err)
		}
		size, _, head, err := st.Peek(h, 5)
		if err != nil || size != int64(len(data)) || string(head) != string(data[:5]) {
			t.Fatalf("Peek(%s) = %d %q %v", h, size, head, err)
		}
	}
	// A second store value (another process) finds them too, and by prefix.
	other, err := store.Open(st.Root())
	if err != nil {
		t.Fatal(err)
	}
	h := store.Sum(objs[7])
	if got, err := other.ResolveObject(h.Hex()[:12]); err != nil || got != h {
		t.Fatalf("ResolveObject(prefix) = %s, %v", got, err)
	}
}

// A damaged byte of a .pack is found by every read of that object, as a
// damaged loose object is; the others read intact.
func TestPackedObjectCorruptionDetected(t *testing.T) {
	st := storetest.New(t)
	objs := packSome(t, st, 3, "b")
	p := packedFiles(t, st, ".pack")[0]
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := st.ReadPackedIndex(filepath.Base(p[:len(p)-len(".pack")]))
	if err != nil {
		t.Fatal(err)
	}
	victim := ix.Entries[1]
	b[victim.Offset] ^= 0x20
	os.Chmod(p, 0o644)
	if err := os.WriteFile(p, b, 0o444); err != nil {
		t.Fatal(err)
	}
	if _, err := st.ReadAll(victim.Hash); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("ReadAll of the damaged object: %v, want corrupt", err)
	}
	if _, err := st.Verify(victim.Hash); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("Verify of the damaged object: %v, want corrupt", err)
	}
	for _, data := range objs {
		if h := store.Sum(data); h != victim.Hash {
			if _, err := st.Verify(h); err != nil {
				t.Fatalf("Verify(%s): %v", h, err)
			}
		}
	}
}

// gc's removal of packed objects rewrites the packed file without them,
// keeps the rest readable and their stored time; removing all of a file's
// objects removes the file.
func TestPackedRemoval(t *testing.T) {
	st := storetest.New(t)
	objs := packSome(t, st, 4, "c")
	h0 := store.Sum(objs[0])
	_, stored, _, err := st.Peek(store.Sum(objs[3]), 1)
	if err != nil {
		t.Fatal(err)
	}
	x, err := st.LockExclusive(nil)
	if err != nil {
		t.Fatal(err)
	}
	x.PlanRemovals([]store.Hash{h0, store.Sum(objs[1])})
	for _, data := range objs[:2] {
		if n, err := x.RemoveObject(store.Sum(data)); err != nil || n != int64(len(data)) {
			t.Fatalf("RemoveObject: %d, %v", n, err)
		}
	}
	if st.Has(h0) {
		t.Fatal("a removed packed object is still there")
	}
	for _, data := range objs[2:] {
		got, err := st.ReadAll(store.Sum(data))
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("kept object: %q, %v", got, err)
		}
	}
	if _, again, _, err := st.Peek(store.Sum(objs[3]), 1); err != nil || !again.Equal(stored) {
		t.Fatalf("stored time %v after the rewrite, want %v (%v)", again, stored, err)
	}
	for _, data := range objs[2:] {
		if _, err := x.RemoveObject(store.Sum(data)); err != nil {
			t.Fatal(err)
		}
	}
	x.Unlock()
	if m := append(packedFiles(t, st, ".pack"), packedFiles(t, st, ".idx")...); len(m) != 0 {
		t.Fatalf("packed files left: %v", m)
	}
}

// A .pack without its .idx (a commit killed between the two) holds nothing
// visible, and the next writer alone in the store sweeps it.
func TestOrphanPackSwept(t *testing.T) {
	st := storetest.New(t)
	objs := packSome(t, st, 2, "d")
	for _, idx := range packedFiles(t, st, ".idx") {
		os.Remove(idx)
	}
	if other, err := store.Open(st.Root()); err != nil || other.Has(store.Sum(objs[0])) {
		t.Fatalf("an object of a .pack without its .idx is visible (%v)", err)
	}
	if n := len(packedFiles(t, st, ".pack")); n != 1 {
		t.Fatalf("%d .pack files", n)
	}
	st.SweepTemps()
	if n := len(packedFiles(t, st, ".pack")); n != 0 {
		t.Fatalf("%d .pack files after the sweep", n)
	}
}

// Rollback drops what a batch took since the mark, in the packed file
// too: the commit stores what it held at the mark.
func TestPackedRollback(t *testing.T) {
	st := storetest.New(t)
	b := st.NewBatch()
	b.PackSmall()
	keep, _ := b.PutBytes([]byte("kept"))
	m := b.Mark()
	drop, _ := b.PutBytes([]byte("dropped"))
	if err := b.Rollback(m); err != nil {
		t.Fatal(err)
	}
	again, _ := b.PutBytes([]byte("after"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if !st.Has(keep) || st.Has(drop) || !st.Has(again) {
		t.Fatalf("has kept %v, dropped %v, after %v", st.Has(keep), st.Has(drop), st.Has(again))
	}
	if _, err := st.Verify(again); err != nil {
		t.Fatal(err)
	}
}

// The index's parser refuses what its encoder would never write.
func TestParsePackedIndex(t *testing.T) {
	entries := []store.PackedEntry{{Hash: store.Sum([]byte("b")), Offset: 1, Size: 1}, {Hash: store.Sum([]byte("a")), Offset: 0, Size: 1}}
	pack := store.Sum([]byte("ab"))
	good := store.EncodePackedIndex(pack, entries)
	ix, err := store.ParsePackedIndex(good)
	if err != nil || ix.Pack != pack || len(ix.Entries) != 2 {
		t.Fatalf("ParsePackedIndex: %+v, %v", ix, err)
	}
	flip := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 1; return b }
	for name, b := range map[string][]byte{
		"empty":     nil,
		"magic":     flip(0),
		"count":     flip(11),
		"entry":     flip(20),
		"checksum":  flip(len(good) - 1),
		"truncated": good[:len(good)-1],
	} {
		if _, err := store.ParsePackedIndex(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}
