package pack

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/contextsubstrate/ctx/lib/store"
)

// IndexEntry is what the packs/ index keeps of a pack so that listing packs
// never reads a manifest. Stored is when this store received the pack (the
// tie-breaker of `ctx log`); it lives only in the index, never in a pack.
type IndexEntry struct {
	Hash    store.Hash  `json:"hash"`
	Created string      `json:"created"`
	Model   string      `json:"model"`
	Steps   int         `json:"steps"`
	Parent  *store.Hash `json:"parent"`
	Stored  string      `json:"stored"`
}

// NewIndexEntry summarises m for the index, stamped with the time now.
func NewIndexEntry(h store.Hash, m *Manifest, now time.Time) IndexEntry {
	return IndexEntry{
		Hash:    h,
		Created: m.Created,
		Model:   m.Model.Identifier,
		Steps:   len(m.Steps),
		Parent:  m.Parent,
		Stored:  now.UTC().Format(time.RFC3339Nano),
	}
}

// ParseIndexEntry decodes an index entry and checks that it names the pack
// it is filed under.
func ParseIndexEntry(h store.Hash, b []byte) (IndexEntry, error) {
	var e IndexEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return e, fmt.Errorf("index entry of %s is damaged: %v", h, err)
	}
	if e.Hash != h {
		return e, fmt.Errorf("index entry of %s names another pack, %s", h, e.Hash)
	}
	return e, nil
}

// Published is what Publish did: the pack's name and what was stored,
// blobs and manifest together.
type Published struct {
	Hash  store.Hash
	Stats store.Stats
}

// Publish finishes a pack: the batch's blobs are made durable and visible
// first, then the manifest object, then its index entry, then refs/latest
// and the tags. A crash at any point leaves no manifest without its blobs
// and no ref without its manifest.
func Publish(st *store.Store, batch *store.Batch, m *Manifest, tags []string, now time.Time) (Published, error) {
	var p Published
	for _, t := range tags {
		if err := store.CheckTagName(t); err != nil {
			return p, err
		}
	}
	canon, h, err := Encode(m)
	if err != nil {
		return p, err
	}
	p.Hash = h
	if err := batch.Commit(); err != nil {
		return p, err
	}
	p.Stats = batch.Stats()
	_, written, err := st.PutObject(canon)
	if err != nil {
		return p, err
	}
	if written {
		p.Stats.Written++
		p.Stats.BytesWritten += int64(len(canon))
	} else {
		p.Stats.Reused++
	}
	want := NewIndexEntry(h, m, now)
	if written || !indexed(st, h, want) {
		entry, err := json.Marshal(want)
		if err != nil {
			return p, err
		}
		if err := st.WriteIndex(h, append(entry, '\n')); err != nil {
			return p, fmt.Errorf("cannot write the index entry of %s: %w", h, err)
		}
	}
	for _, ref := range append([]string{store.LatestRef}, tags...) {
		if old, err := st.ReadRef(ref); err == nil && old == h {
			continue // already there: packing again changes nothing
		}
		if err := st.WriteRef(ref, h); err != nil {
			return p, err
		}
	}
	m.Hash = h.String()
	return p, nil
}

// indexed reports whether the store already has an index entry of pack h
// that describes it (want, as NewIndexEntry gives it). Packing a run again
// keeps that entry with its stored time, as ctx import does, so the index
// and the caches of ctx log stay as they were.
func indexed(st *store.Store, h store.Hash, want IndexEntry) bool {
	b, err := st.ReadIndex(h)
	if err != nil {
		return false
	}
	e, err := ParseIndexEntry(h, b)
	return err == nil && CheckIndexEntry(e, want) == nil
}

// Reindex rebuilds the index entry of pack h from its manifest (verified),
// stamped with the time the manifest object was stored, and writes it.
// ctx log uses it for a damaged entry, ctx fsck --repair-index for missing
// ones.
func Reindex(st *store.Store, h store.Hash) (IndexEntry, error) {
	e, err := RebuildIndexEntry(st, h)
	if err != nil {
		return e, err
	}
	b, err := json.Marshal(e)
	if err != nil {
		return e, err
	}
	return e, st.WriteIndex(h, append(b, '\n'))
}
