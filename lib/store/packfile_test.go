package store_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/store"
)

// What every read does with a packed object, and with a loose one, is
// TestLayoutConformance's (layout_test.go); here is what only packfiles
// have: their files, a commit's two renames, a batch's rollback, the
// index's encoding.

// packSome stores n small objects in one packfile and returns them.
func packSome(t *testing.T, st *store.Store, n int, tag string) [][]byte {
	t.Helper()
	b := st.NewBatch()
	b.UsePackfile()
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

// gc's removal of every object of a packfile removes its files.
func TestPackfileRemovedWithItsLastObject(t *testing.T) {
	st := storetest.New(t)
	objs := packSome(t, st, 4, "c")
	x, err := st.LockExclusive(nil)
	if err != nil {
		t.Fatal(err)
	}
	x.PlanRemovals([]store.Hash{store.Sum(objs[0]), store.Sum(objs[1])})
	for _, data := range objs[:2] {
		if _, err := x.RemoveObject(store.Sum(data)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(packfileFiles(t, st, ".pack")); n != 1 {
		t.Fatalf("%d .pack files after removing half its objects, want 1 (rewritten)", n)
	}
	for _, data := range objs[2:] {
		if _, err := x.RemoveObject(store.Sum(data)); err != nil {
			t.Fatal(err)
		}
	}
	x.Unlock()
	if m := append(packfileFiles(t, st, ".pack"), packfileFiles(t, st, ".idx")...); len(m) != 0 {
		t.Fatalf("packfiles left: %v", m)
	}
}

// A .pack without its .idx (a commit killed between the two) holds nothing
// visible, and the next writer alone in the store sweeps it.
func TestOrphanPackfileSwept(t *testing.T) {
	st := storetest.New(t)
	objs := packSome(t, st, 2, "d")
	for _, idx := range packfileFiles(t, st, ".idx") {
		os.Remove(idx)
	}
	if other, err := store.Open(st.Root()); err != nil || other.Has(store.Sum(objs[0])) {
		t.Fatalf("an object of a .pack without its .idx is visible (%v)", err)
	}
	if n := len(packfileFiles(t, st, ".pack")); n != 1 {
		t.Fatalf("%d .pack files", n)
	}
	st.SweepTemps()
	if n := len(packfileFiles(t, st, ".pack")); n != 0 {
		t.Fatalf("%d .pack files after the sweep", n)
	}
}

// Rollback drops what a batch took since the mark, in the packfile too:
// the commit stores what it held at the mark.
func TestPackfileRollback(t *testing.T) {
	st := storetest.New(t)
	b := st.NewBatch()
	b.UsePackfile()
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
func TestParsePackfileIndex(t *testing.T) {
	entries := []store.PackfileEntry{{Hash: store.Sum([]byte("b")), Offset: 1, Size: 1}, {Hash: store.Sum([]byte("a")), Offset: 0, Size: 1}}
	packfile := store.Sum([]byte("ab"))
	good := store.EncodePackfileIndex(packfile, entries)
	ix, err := store.ParsePackfileIndex(good)
	if err != nil || ix.Packfile != packfile || len(ix.Entries) != 2 {
		t.Fatalf("ParsePackfileIndex: %+v, %v", ix, err)
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
		if _, err := store.ParsePackfileIndex(b); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}
