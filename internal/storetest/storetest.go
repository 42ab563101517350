// Package storetest gives the tests of the packages built on lib/store a
// fresh, empty store.
package storetest

import (
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
