package pack

import (
	"fmt"

	"github.com/contextsubstrate/ctx/lib/store"
)

// RefProblem is an object of a pack's closure that is missing or damaged.
type RefProblem struct {
	Hash  store.Hash
	Where string // the part of the manifest that names it: "inputs[2] (src/a.go)"
	Err   error  // a *store.NotFoundError or *store.CorruptError, or an I/O error
}

func (p RefProblem) Error() string { return fmt.Sprintf("%s: %v", p.Where, p.Err) }

// CheckClosure rehashes every object m references and returns the problems,
// each object once, in manifest order. An empty result means every blob of
// the pack is present and intact.
func CheckClosure(st *store.Store, m *Manifest) []RefProblem {
	var out []RefProblem
	for _, r := range m.Refs() {
		if _, err := st.Verify(r.Hash); err != nil {
			out = append(out, RefProblem{Hash: r.Hash, Where: r.Where, Err: err})
		}
	}
	return out
}
