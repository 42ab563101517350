package gc

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// RemovedPack is one pack ctx rm took out of the index.
type RemovedPack struct {
	Pack     store.Hash   `json:"pack"`
	Tags     []string     `json:"tags"`     // the tags that named it, deleted with it
	Children []store.Hash `json:"children"` // packs of the index whose parent it is
	Already  bool         `json:"-"`        // it was removed before: nothing changed
}

// LatestMove is what became of refs/latest when it named a removed pack.
type LatestMove struct {
	From store.Hash  `json:"from"`
	To   *store.Hash `json:"to"` // the newest pack left, as ctx log lists it; null when none is left
}

// Removal is what Remove did: what ctx rm prints.
type Removal struct {
	Removed []RemovedPack `json:"removed"`
	Latest  *LatestMove   `json:"latest,omitempty"`
}

// TaggedError says a pack to remove is named by tags, and -f was not given.
// Nothing was removed.
type TaggedError struct {
	Pack store.Hash
	Tags []string
}

func (e *TaggedError) Error() string {
	return fmt.Sprintf("pack %s is tagged %s", e.Pack, quoteAll(e.Tags))
}

// ErrorHints says how to remove it all the same.
func (e *TaggedError) ErrorHints() []string {
	return []string{"use -f to remove its tags with it", "nothing was removed"}
}

// NotPackError says a name is neither in the index nor a pack manifest.
type NotPackError struct {
	Hash store.Hash
	Err  error
}

func (e *NotPackError) Error() string {
	return fmt.Sprintf("%s is not a pack of this store: %v", e.Hash, e.Err)
}

// Unwrap returns why.
func (e *NotPackError) Unwrap() error { return e.Err }

// Remove takes the packs out of the index, with the tags that name them
// (only with force when there are any) and refs/latest (moved to the newest
// pack left). Objects stay until ctx gc. A pack removed already is left as
// it is; a pack whose manifest is missing or damaged can be removed while
// it has an index entry (that is how a store gets rid of one). Every pack
// is checked before anything changes.
func Remove(st *store.Store, packs []store.Hash, force bool, now time.Time) (*Removal, error) {
	unlock, err := st.LockWrites()
	if err != nil {
		return nil, err
	}
	defer unlock()
	refs, err := st.Refs()
	if err != nil {
		return nil, err
	}
	out := &Removal{Removed: []RemovedPack{}}
	gone := map[store.Hash]bool{}
	for _, h := range packs {
		if gone[h] {
			continue
		}
		gone[h] = true
		r := RemovedPack{Pack: h, Tags: []string{}, Children: []store.Hash{}}
		if !pack.HasIndexEntry(st, h) {
			if _, err := pack.Load(st, h); err != nil {
				return nil, &NotPackError{Hash: h, Err: err}
			}
			r.Already = st.IsRemoved(h)
		}
		for _, name := range refs[h] {
			if name != store.LatestRef {
				r.Tags = append(r.Tags, name)
			}
		}
		if len(r.Tags) > 0 && !force {
			return nil, &TaggedError{Pack: h, Tags: r.Tags}
		}
		out.Removed = append(out.Removed, r)
	}
	ix, err := pack.ReadIndex(st, now)
	if err != nil {
		return nil, err
	}
	for i := range out.Removed {
		r := &out.Removed[i]
		for _, e := range ix.Entries {
			if e.Parent != nil && *e.Parent == r.Pack && !gone[e.Hash] {
				r.Children = append(r.Children, e.Hash)
			}
		}
		slices.SortFunc(r.Children, func(a, b store.Hash) int { return strings.Compare(a.Hex(), b.Hex()) })
	}
	for _, r := range out.Removed {
		if !r.Already {
			if err := pack.Unindex(st, r.Pack, now); err != nil {
				return out, fmt.Errorf("cannot remove %s: %w", r.Pack, err)
			}
		}
		for _, t := range r.Tags {
			// Only while it still names the pack: a tag another process
			// moved meanwhile names what it was moved to.
			err := st.UpdateRef(t, store.Swap(fmt.Sprintf("tag %q", t), r.Pack, store.Hash{}))
			if err != nil && !errors.As(err, new(*store.ChangedError)) {
				return out, fmt.Errorf("cannot delete tag %q: %w", t, err)
			}
		}
	}
	if latest, err := st.ReadRef(store.LatestRef); err == nil && gone[latest] {
		move, err := moveLatest(st, latest, now)
		if err != nil {
			return out, err
		}
		out.Latest = move
	}
	return out, nil
}

// moveLatest points refs/latest, which names a removed pack, at the newest
// pack left as ctx log lists it, or deletes it when none is left.
func moveLatest(st *store.Store, from store.Hash, now time.Time) (*LatestMove, error) {
	ix, err := pack.ReadIndex(st, now)
	if err != nil {
		return nil, err
	}
	move := &LatestMove{From: from}
	if left := pack.Select(ix.Entries, pack.Query{Limit: 1}); len(left) > 0 {
		to := left[0].Hash
		move.To = &to
		return move, st.WriteRef(store.LatestRef, to)
	}
	return move, st.DeleteRef(store.LatestRef)
}
