// Package gc is the store over time: tags that name packs (ctx tag), packs
// taken out of the index (ctx rm), and the deletion of the objects nothing
// keeps any more (ctx gc).
//
// It must never delete an object that a pack of the index, a ref, a draft
// or a kept pack's attestation reaches, never delete anything while a
// writer may be about to name it (store.LockExclusive), and never delete
// anything at all when what a root reaches cannot be known.
package gc

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Tag is a tag and the pack it names: what ctx tag prints.
type Tag struct {
	Name     string      `json:"name"`
	Pack     store.Hash  `json:"pack"`
	Previous *store.Hash `json:"previous,omitempty"` // the pack it named before it was moved
	Restored bool        `json:"-"`                  // setting it put a removed pack back in the index
}

// Tags returns every tag, sorted by name, and the tags whose file does
// not hold a hash (ctx fsck reports them).
func Tags(st *store.Store) ([]Tag, []error, error) {
	names, err := st.Tags()
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(names)
	out := []Tag{}
	var bad []error
	for _, n := range names {
		h, err := st.ReadRef(n)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // deleted meanwhile
		case err != nil:
			bad = append(bad, err)
			continue
		}
		out = append(out, Tag{Name: n, Pack: h})
	}
	return out, bad, nil
}

// SetTag points tag name at pack h, which must be an intact pack
// manifest. A tag that names another pack is moved only with force. A
// pack ctx rm took out of the index is put back in it: a tag keeps a pack
// as the index does.
func SetTag(st *store.Store, name string, h store.Hash, force bool) (Tag, error) {
	t := Tag{Name: name, Pack: h}
	if err := store.CheckTagName(name); err != nil {
		return t, err
	}
	unlock, err := st.LockWrites()
	if err != nil {
		return t, err
	}
	defer unlock()
	if _, err := pack.Load(st, h); errors.Is(err, pack.ErrNotPack) {
		return t, text.WithHints(fmt.Errorf("cannot tag %s: it is an object of the store, not a pack", h),
			"a tag names a pack: 'ctx log' lists them")
	} else if err != nil {
		return t, fmt.Errorf("cannot tag %s: %w", h, err)
	}
	// What the tag names is read and replaced with no other writer of a
	// tag between (store.UpdateRef): a tag another process set meanwhile
	// is refused without force, never overwritten unseen.
	err = st.UpdateRef(name, func(old store.Hash, err error) (store.Hash, error) {
		switch {
		case err == nil && old == h:
			return h, nil
		case err == nil && !force:
			return old, &pack.TagExistsError{Name: name, Pack: old}
		case err == nil:
			t.Previous = &old
		case !errors.Is(err, store.ErrNotFound):
			if !force {
				return old, text.WithHints(err, "use -f to replace it")
			}
		}
		if pack.IsRemoved(st, h) {
			if err := pack.Restore(st, h); err != nil {
				return old, fmt.Errorf("cannot put %s back in the index: %w", h, err)
			}
			t.Restored = true
		}
		return h, nil
	})
	return t, err
}

// DeleteTags deletes the tags names; each must exist, else nothing is
// deleted.
func DeleteTags(st *store.Store, names []string) ([]Tag, error) {
	unlock, err := st.LockWrites()
	if err != nil {
		return nil, err
	}
	defer unlock()
	var out []Tag
	var missing []string
	for _, n := range names {
		if err := store.CheckTagName(n); err != nil {
			return nil, err
		}
		h, err := st.ReadRef(n)
		switch {
		case errors.Is(err, store.ErrNotFound):
			missing = append(missing, n)
			continue
		case err != nil:
			// A damaged tag can still be deleted.
		}
		out = append(out, Tag{Name: n, Pack: h})
	}
	if len(missing) > 0 {
		return nil, &NoTagError{Names: missing}
	}
	for i := range out {
		// What is deleted is what the tag names at that moment, which a
		// writer at the same time may have changed since it was read.
		err := st.UpdateRef(out[i].Name, func(old store.Hash, err error) (store.Hash, error) {
			switch {
			case err == nil:
				out[i].Pack = old
			case errors.Is(err, store.ErrNotFound):
				return store.Hash{}, err
			}
			return store.Hash{}, nil // a damaged tag is deleted all the same
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	return out, nil
}

// NoTagError says tags to delete do not exist; nothing was deleted.
type NoTagError struct{ Names []string }

func (e *NoTagError) Error() string {
	if len(e.Names) == 1 {
		return fmt.Sprintf("no tag named %q", e.Names[0])
	}
	return "no tags named " + quoteAll(e.Names)
}

// Is makes errors.Is(err, store.ErrNotFound) true.
func (e *NoTagError) Is(target error) bool { return target == store.ErrNotFound }

// quoteAll quotes names for a message.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}
