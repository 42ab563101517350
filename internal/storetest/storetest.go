// Package storetest gives the tests of the packages built on lib/store a
// fresh, empty store.
package storetest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/contextsubstrate/ctx/lib/store"
)

// New initialises a store in a new temporary directory of t and opens it.
func New(t testing.TB) *store.Store {
	t.Helper()
	root := filepath.Join(t.TempDir(), store.Dir)
	if _, err := store.Init(root); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// EarlierIndex rewrites the index of st in the form earlier versions
// wrote, one file per pack (packs/<hex>), and removes its index logs:
// the store as an earlier ctx left it, for the tests of what reads both
// forms and of damage to the files. A Store opened on it afresh reads it
// so (st itself remembers the logs it read).
func EarlierIndex(t testing.TB, st *store.Store) *store.Store {
	t.Helper()
	places, err := st.IndexPlaces()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(st.Root(), "packs")
	logs, err := filepath.Glob(filepath.Join(dir, store.IndexLogPrefix+"*"+store.IndexLogSuffix))
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(places))
	st.ReadIndexEntries(places, func(i int, entry []byte, err error) {
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, places[i].Hash.Hex()), append(append([]byte(nil), entry...), '\n'), 0o666)
		}
		errs[i] = err
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range logs {
		if err := os.Remove(l); err != nil {
			t.Fatal(err)
		}
	}
	fresh, err := store.Open(st.Root())
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}
