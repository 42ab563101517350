// Package packtest stores execution logs as packs for the tests of the
// packages built on lib/pack, as ctx pack does: through pack.Save, the
// one path from a log to a stored pack (its write lock, stat cache,
// batch, index entry and refs).
package packtest

import (
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Pack packs log into st and returns the manifest, loaded back with its
// hash. Relative paths resolve in a new temporary directory.
func Pack(t testing.TB, st *store.Store, log string) *pack.Manifest {
	t.Helper()
	m, err := Try(st, log, t.TempDir())
	if err != nil {
		t.Fatalf("pack: %v\n%s", err, log)
	}
	return m
}

// Try is Pack returning the error, with relative paths resolved in root.
func Try(st *store.Store, log, root string) (*pack.Manifest, error) {
	_, m, err := save(st, log, root)
	return m, err
}

// save is ctx pack of log with root as its directory: the result, and
// the manifest loaded back whole (Save's own has released its steps).
func save(st *store.Store, log, root string) (*pack.Result, *pack.Manifest, error) {
	res, pub, err := pack.Save(st, strings.NewReader(log), pack.SaveOptions{Source: "the test's log",
		Options: pack.Options{Root: root, Store: st}})
	if err != nil {
		return nil, nil, err
	}
	m, err := pack.Load(st, pub.Hash)
	return res, m, err
}

// Hash is the hash of a manifest Pack returned.
func Hash(t testing.TB, m *pack.Manifest) store.Hash {
	t.Helper()
	h, err := store.ParseRef(m.Hash)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
