package pack

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/contextsubstrate/ctx/lib/store"
)

// Publish finishes a pack in one commit of the batch
// (store.Batch.CommitPublish): the manifest goes into the batch beside
// its blobs; once the blobs are durable and in place the manifest is
// linked; once it is durable its index entry is appended to the index
// log and refs/latest and the tags move, and one last sync makes those
// durable. A crash at any point leaves no manifest without its blobs and
// no ref or index entry without its manifest.
func Publish(st *store.Store, batch *store.Batch, m *Manifest, tags []string, now time.Time) (Published, error) {
	return publish(st, batch, m, tags, false, now)
}

// publish is Publish; keepTags refuses to move a tag that names another
// pack (*TagExistsError, once the pack is stored, indexed and latest).
func publish(st *store.Store, batch *store.Batch, m *Manifest, tags []string, keepTags bool, now time.Time) (Published, error) {
	var p Published
	// Held across the commit of the blobs and the manifest's linking, so
	// ctx gc never sees the blobs without the pack that names them.
	unlock, err := st.LockWrites()
	if err != nil {
		return p, err
	}
	defer unlock()
	for _, t := range tags {
		if err := store.CheckTagName(t); err != nil {
			return p, err
		}
	}
	before := batch.Stats().Written
	h, err := putManifest(batch, m)
	if err != nil {
		return p, err
	}
	p.Hash = h
	written := batch.Stats().Written > before
	pub := publication(st, []store.Hash{h}, h, tags, keepTags)
	pub.Index = func() ([]store.IndexRecord, error) {
		return pub.records(st, []*Manifest{m}, []store.Hash{h}, []bool{written}, now)
	}
	err = keptTag(batch.CommitPublish(pub.Publication), h)
	p.Stats = batch.Stats()
	m.Hash = h.String()
	return p, err
}

// keptTag is the error of a commit that left a tag as it was
// (store.RefKeptError) as ctx tag says it: *TagExistsError, the pack h
// stored and indexed.
func keptTag(err error, h store.Hash) error {
	var k *store.RefKeptError
	if errors.As(err, &k) {
		return &TagExistsError{Name: k.Ref, Pack: k.Now, To: &h}
	}
	return err
}

// putManifest puts m's manifest object into the batch and returns its
// name: in memory, its canonical bytes; with its steps in a scratch file,
// streamed and hashed as it is written.
func putManifest(batch *store.Batch, m *Manifest) (store.Hash, error) {
	if m.spill != nil {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(EncodeTo(pw, m)) }()
		h, _, err := batch.PutReader(pr)
		pr.CloseWithError(err)
		return h, err
	}
	canon, h, err := Encode(m)
	if err != nil {
		return h, err
	}
	_, err = batch.PutBytes(canon)
	return h, err
}

// pending is what a commit of packs publishes, decided before the
// commit: the manifests linked last, the refs to move (those that do not
// name the last pack yet), and whether refs/latest is one of them.
type pending struct {
	store.Publication
	last        store.Hash
	latestMoves bool
}

// publication is the pending publication of the manifests hashes, the
// last of which refs/latest and the tags are to name.
func publication(st *store.Store, hashes []store.Hash, last store.Hash, tags []string, keepTags bool) *pending {
	pub := &pending{Publication: store.Publication{Last: hashes}, last: last}
	for _, ref := range append([]string{store.LatestRef}, tags...) {
		if old, err := st.ReadRef(ref); err == nil && old == last {
			continue // packing again changes nothing
		}
		pub.Refs = append(pub.Refs, store.RefUpdate{Ref: ref, Hash: last, Keep: keepTags && ref != store.LatestRef})
		pub.latestMoves = pub.latestMoves || ref == store.LatestRef
	}
	return pub
}

// records returns the index records the commit appends once its
// manifests (ms, named hashes) are visible: an entry for each pack new to
// the store (written) or whose entry does not describe it, once each;
// and, when refs/latest moves to a pack whose entry is kept, that entry
// stamped with now, so ctx log lists it first, where latest is.
func (pub *pending) records(st *store.Store, ms []*Manifest, hashes []store.Hash, written []bool, now time.Time) ([]store.IndexRecord, error) {
	var recs []store.IndexRecord
	seen := map[store.Hash]bool{}
	indexedLast := false
	for i, m := range ms {
		h := hashes[i]
		if !seen[h] && (written[i] || !IndexCurrent(st, h, m)) {
			e := NewIndexEntry(h, m, now)
			e.Subject = Subject(st, m)
			recs = append(recs, store.IndexRecord{Hash: h, Entry: e.Encode()})
			indexedLast = indexedLast || h == pub.last
		}
		seen[h] = true
	}
	if pub.latestMoves && !indexedLast {
		e, err := ReadIndexEntry(st, pub.last)
		if err != nil {
			return nil, fmt.Errorf("cannot read the index entry of %s: %w", pub.last, err)
		}
		e.Stored = now.UTC().Format(time.RFC3339Nano)
		recs = append(recs, store.IndexRecord{Hash: pub.last, Entry: e.Encode()})
	}
	return recs, nil
}
