package cli

import (
	"errors"

	"github.com/contextsubstrate/ctx/lib/store"
)

// NameError turns an error from resolving or loading a pack or object into
// exit 2 with hints: the candidates of an ambiguous prefix, where to look for
// the packs of the store when a name is not found, fsck for a damaged
// object. Verbs add their own hints to what it returns.
func NameError(err error) *Error {
	var amb *store.AmbiguousError
	var bad *store.BadNameError
	e := &Error{Code: ExitTrouble, Err: err}
	switch {
	case errors.As(err, &amb):
		for _, c := range amb.Candidates {
			e.WithHint("candidate %s", c)
		}
	case errors.As(err, &bad):
	case errors.Is(err, store.ErrNotFound):
		e.WithHint("'ctx log' lists the packs in this store")
	case errors.Is(err, store.ErrCorrupt):
		e.WithHint("run 'ctx fsck' to check the whole store")
	}
	return e
}
