package pack

import (
	"fmt"
	"os"
	"time"

	"github.com/contextsubstrate/ctx/lib/store"
)

// CheckIndexEntry reports how the index entry e disagrees with want, the
// entry rebuilt from the pack's manifest (NewIndexEntry): a stale or
// tampered entry. It returns nil when e describes the manifest. The stored
// time is the store's own and is not compared.
func CheckIndexEntry(e, want IndexEntry) error {
	switch {
	case e.Hash != want.Hash:
		return fmt.Errorf("it names pack %s, not %s", e.Hash, want.Hash)
	case e.Created != want.Created:
		return fmt.Errorf("it says created %q, the manifest %q", e.Created, want.Created)
	case e.Model != want.Model:
		return fmt.Errorf("it says model %q, the manifest %q", e.Model, want.Model)
	case e.Steps != want.Steps:
		return fmt.Errorf("it says %d steps, the manifest %d", e.Steps, want.Steps)
	case !sameParent(e.Parent, want.Parent):
		return fmt.Errorf("it says parent %s, the manifest %s", parentString(e.Parent), parentString(want.Parent))
	}
	return nil
}

func sameParent(a, b *store.Hash) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func parentString(p *store.Hash) string {
	if p == nil {
		return "none"
	}
	return p.String()
}

// RebuildIndexEntry returns the index entry of pack h rebuilt from its
// verified manifest, stamped, as Reindex stamps it, with the time the
// manifest object was stored; it writes nothing, so many entries can be
// written at once (store.WriteIndexes).
func RebuildIndexEntry(st *store.Store, h store.Hash) (IndexEntry, error) {
	m, err := Load(st, h)
	if err != nil {
		return IndexEntry{}, err
	}
	stored := time.Unix(0, 0)
	if fi, err := os.Lstat(st.ObjectPath(h)); err == nil {
		stored = fi.ModTime()
	}
	return NewIndexEntry(h, m, stored), nil
}
