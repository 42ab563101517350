package pack

import (
	"github.com/contextsubstrate/ctx/lib/store"
)

// ManifestStart begins every stored manifest: canonical JSON, whose keys
// are sorted, "created" the first.
const ManifestStart = `{"created":`

// HoldsPack reports whether any object of st is a pack's manifest. With
// an empty packs/ index it tells packs copied in without their index
// entries (which ctx fsck --repair-index indexes) from objects no pack
// names (left by a write that did not finish, which ctx gc deletes).
func HoldsPack(st *store.Store) (bool, error) {
	names, _, err := st.ObjectNames()
	if err != nil {
		return false, err
	}
	for _, h := range names {
		_, _, head, err := st.Peek(h, len(ManifestStart))
		if err != nil || string(head) != ManifestStart {
			continue
		}
		if _, err := Load(st, h); err == nil {
			return true, nil
		}
	}
	return false, nil
}
