package pack

import (
	"fmt"

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
