package pack

import (
	"errors"
	"fmt"
	"time"

	"github.com/contextsubstrate/ctx/lib/store"
)

// Listed is one pack as ctx log lists it: its index entry, with the times
// parsed for ordering and filtering (the zero time when the entry's text is
// not an RFC 3339 time, which sorts it last).
type Listed struct {
	IndexEntry
	CreatedAt time.Time
	StoredAt  time.Time
}

func newListed(e IndexEntry) Listed {
	out := Listed{IndexEntry: e}
	out.CreatedAt, _ = time.Parse(time.RFC3339Nano, e.Created)
	out.StoredAt, _ = time.Parse(time.RFC3339Nano, e.Stored)
	return out
}

// Rebuilt is an index entry that was damaged or missing and has been
// rebuilt from its pack's manifest.
type Rebuilt struct {
	Hash    store.Hash
	Reason  string // what was wrong with the entry, or "missing"
	Unsaved error  // why the rebuilt entry could not be written (a read-only store), or nil
}

// IndexProblem is an index entry that could not be read and whose pack's
// manifest could not be read either, so it could not be rebuilt.
type IndexProblem struct {
	Hash   store.Hash
	Listed error // what was wrong with the entry
	Err    error // why the manifest could not rebuild it
}

// Error says what is wrong with the entry and why it could not be rebuilt.
func (p IndexProblem) Error() string {
	return fmt.Sprintf("index entry of %s: %v; cannot rebuild it: %v", p.Hash, p.Listed, p.Err)
}

// Index is the packs/ index of a store, read in full.
type Index struct {
	Entries  []Listed
	Rebuilt  []Rebuilt
	Problems []IndexProblem
	Cached   bool // true when the entries came from the cache
}

// racyWindow is how long after the last change to packs/ the cache is not
// written: a file system may give two changes within one clock tick the same
// times, so a cache stamped that recently could miss a change made in the
// same tick.
const racyWindow = time.Second

// ReadIndex reads every index entry of st. It uses the cache of the whole
// index when packs/ has not changed since the cache was made (its stamp is
// the same, and where the stamp alone cannot tell, the cache names exactly
// the entries packs/ holds); otherwise it reads each entry and writes a new
// cache. A damaged entry is rebuilt from its manifest (and rewritten); one
// whose manifest cannot be read either is reported in Problems. now decides
// whether packs/ changed too recently to cache.
func ReadIndex(st *store.Store, now time.Time) (*Index, error) {
	return readIndex(st, now, false)
}

// readIndex is ReadIndex; compareNames makes it check the cache's names
// against packs/ even where the stamp is complete, so tests cover the path
// other platforms take.
func readIndex(st *store.Store, now time.Time, compareNames bool) (*Index, error) {
	// The stamp is taken before anything is read: a change made after it
	// gives packs/ a new stamp, so the cache written below will not be
	// trusted next time.
	stamp, err := st.IndexStamp()
	if err != nil {
		return nil, err
	}
	if stamp.Key != "" {
		if b, err := st.ReadCache(logCache); err == nil {
			if entries, err := decodeCache(b, stamp.Key); err == nil {
				if stamp.Complete && !compareNames {
					return &Index{Entries: entries, Cached: true}, nil
				}
				same, err := sameNames(st, entries)
				if err != nil {
					return nil, err
				}
				if same {
					return &Index{Entries: entries, Cached: true}, nil
				}
			}
		}
	}

	stored, err := st.IndexPlaces()
	if err != nil {
		return nil, err
	}
	ix := &Index{Entries: make([]Listed, 0, len(stored))}
	read := readEntries(st, stored)
	rp := repairer{st: st}
	for i, se := range stored {
		e, err := read[i].entry, read[i].err
		if err != nil {
			rp.fix(ix, se.Hash, err)
			continue
		}
		ix.Entries = append(ix.Entries, e)
	}
	rp.done()
	if len(ix.Rebuilt) == 0 && len(ix.Problems) == 0 && stamp.Key != "" && now.Sub(stamp.Changed) >= racyWindow {
		// The cache is derived data: when it cannot be written (a read-only
		// store), ctx log is only slower.
		_ = st.WriteCache(logCache, encodeCache(stamp.Key, ix.Entries))
	}
	return ix, nil
}

// sameNames reports whether entries are exactly the entries of packs/.
func sameNames(st *store.Store, entries []Listed) (bool, error) {
	hashes, err := st.IndexedPacks()
	if err != nil || len(hashes) != len(entries) {
		return false, err
	}
	set := make(map[store.Hash]bool, len(hashes))
	for _, h := range hashes {
		set[h] = true
	}
	for _, e := range entries {
		if !set[e.Hash] {
			return false, nil
		}
		delete(set, e.Hash) // a hash listed twice in the cache cannot pass
	}
	return true, nil
}

type readResult struct {
	entry Listed
	err   error
}

// readEntries reads and parses the entries of the index (ReadIndexEntries:
// a log a chunk at a time, the files of an earlier version a few at a
// time), each parsed as it is read so that no more than a chunk of the
// raw index is held at once.
func readEntries(st *store.Store, places []store.IndexPlace) []readResult {
	out := make([]readResult, len(places))
	st.ReadIndexEntries(places, func(i int, entry []byte, err error) {
		if err != nil {
			out[i].err = err
			return
		}
		out[i].entry, out[i].err = parseEntry(places[i].Hash, entry)
	})
	return out
}

// parseEntry parses and checks the index entry of pack h.
func parseEntry(h store.Hash, entry []byte) (Listed, error) {
	ie, err := ParseIndexEntry(h, entry)
	if err != nil {
		return Listed{}, err
	}
	return checkEntry(ie)
}

// readEntry reads and checks the index entry of h, using buf for the bytes
// and returning it for the next entry.
func readEntry(st *store.Store, h store.Hash, buf []byte) (Listed, []byte, error) {
	b, err := st.AppendIndex(buf, h)
	if err != nil {
		return Listed{}, b, err
	}
	e, err := parseEntry(h, b)
	return e, b, err
}

// checkEntry accepts an entry that has what Reindex always writes: a
// model (every manifest has one), a step count and the time it was stored.
// A created time that does not parse is kept: it is the manifest's own, and
// rebuilding the entry would not change it.
func checkEntry(ie IndexEntry) (Listed, error) {
	e := newListed(ie)
	switch {
	case ie.Model == "":
		return e, fmt.Errorf("index entry of %s is damaged: no model", ie.Hash)
	case ie.Steps < 0:
		return e, fmt.Errorf("index entry of %s is damaged: steps is %d", ie.Hash, ie.Steps)
	case e.StoredAt.IsZero():
		return e, fmt.Errorf("index entry of %s is damaged: stored %q is not an RFC 3339 time", ie.Hash, ie.Stored)
	}
	return e, nil
}

// Adopt adds to the index the packs among hashes that have no entry, such
// as the pack a ref names in a store whose packs/ was not copied with its
// objects. Each entry is rebuilt from the manifest, and written when the
// store can be held alone (see repairer); a pack taken out of the index by
// ctx rm (its mark of removal) is not adopted, nor a hash that is missing
// or is not a pack (ctx fsck reports it).
func (ix *Index) Adopt(st *store.Store, hashes []store.Hash) {
	have := make(map[store.Hash]bool, len(ix.Entries)+len(ix.Problems))
	for _, e := range ix.Entries {
		have[e.Hash] = true
	}
	for _, p := range ix.Problems {
		have[p.Hash] = true
	}
	rp := repairer{st: st}
	defer rp.done()
	for _, h := range hashes {
		if have[h] {
			continue
		}
		have[h] = true
		rp.fix(ix, h, nil)
	}
}

// repairer rebuilds index entries for a reader (ctx log). A reader must not
// write while others do: ctx rm takes a pack out of the index (its mark of
// removal, then its entry deleted, then refs/latest moved) while a reader
// may have just seen the entry, or a ref naming the pack without an entry,
// and an entry it wrote then would put the removed pack back. So an entry
// is written only while the store is held alone (store.TryLockAlone: no
// writer, no gc), taken at the first entry that needs it; there what the
// reader looks at again cannot change before it writes. When the store is
// busy, the entry rebuilt is listed but not written (Unsaved says why): it
// is derived data, rebuilt the next time.
type repairer struct {
	st     *store.Store
	tried  bool
	unlock func()
	busy   error // why nothing is written, when the store is not held alone
}

func (r *repairer) hold() error {
	if !r.tried {
		r.tried = true
		r.unlock, r.busy = r.st.TryLockAlone()
	}
	return r.busy
}

func (r *repairer) done() {
	if r.unlock != nil {
		r.unlock()
		r.unlock = nil
	}
}

// fix looks again at the entry of h, which could not be read (why), or
// which a ref names and packs/ lacks (why is nil), and adds to ix what it
// finds: the entry that reads now, as it is (a pack being published wrote
// it meanwhile); none for an entry gone while the index was read, or a
// pack ctx rm took out of the index; else the entry rebuilt from the
// manifest (Rebuilt), or, for an entry that could not be read, the
// problem.
func (r *repairer) fix(ix *Index, h store.Hash, why error) {
	busy := r.hold()
	e, _, err := readEntry(r.st, h, nil)
	switch {
	case err == nil:
		ix.Entries = append(ix.Entries, e)
		return
	case errors.Is(err, store.ErrNotFound) && (why != nil || r.st.IsRemoved(h)):
		return
	}
	ie, err := RebuildIndexEntry(r.st, h)
	if err != nil {
		if why != nil {
			ix.Problems = append(ix.Problems, IndexProblem{Hash: h, Listed: why, Err: err})
		}
		return
	}
	unsaved := busy
	if busy == nil {
		unsaved = r.st.WriteIndex(h, ie.Encode())
	}
	ix.Entries = append(ix.Entries, newListed(ie))
	reason := "missing"
	if why != nil {
		reason = why.Error()
	}
	ix.Rebuilt = append(ix.Rebuilt, Rebuilt{Hash: h, Reason: reason, Unsaved: unsaved})
}
