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
	checked := map[store.Hash]bool{}
	check := func(h store.Hash, where string) {
		if checked[h] {
			return
		}
		checked[h] = true
		if _, err := st.Verify(h); err != nil {
			out = append(out, RefProblem{Hash: h, Where: where, Err: err})
		}
	}
	if m.SystemPrompt != nil {
		check(*m.SystemPrompt, "system_prompt")
	}
	for i, p := range m.Prompts {
		check(p.ContentRef, fmt.Sprintf("prompts[%d]", i))
	}
	for i, f := range m.Inputs {
		check(f.ContentRef, fmt.Sprintf("inputs[%d] (%s)", i, f.Name))
	}
	for i, s := range m.Steps {
		if s.OutputRef != nil {
			check(*s.OutputRef, fmt.Sprintf("steps[%d] (%s)", i, s.Tool))
		}
	}
	for i, o := range m.Outputs {
		check(o.ContentRef, fmt.Sprintf("outputs[%d] (%s)", i, o.Name))
	}
	return out
}
