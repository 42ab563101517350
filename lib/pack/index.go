package pack

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/contextsubstrate/ctx/lib/store"
)

// The packs/ index holds one small entry per pack, packs/<hex>, so that
// listing packs never reads a manifest. This package owns it: what an
// entry says (IndexEntry), writing entries (Publish, Reindex,
// WriteIndexEntries), reading one (ReadIndexEntry) or all of them with the
// cache of ctx log (ReadIndex), checking one against its manifest
// (CheckIndexEntry) and rebuilding one (RebuildIndexEntry). lib/store
// keeps the bytes and is called for them by this package only.

// IndexEntry is what the packs/ index keeps of a pack so that listing packs
// never reads a manifest. Stored is when the pack last entered this store
// (packed, imported or pulled; the order of `ctx log`); it lives only in
// the index, never in a pack. Subject is the pack's Subject, made when the
// entry is written; an entry written before subjects has none.
type IndexEntry struct {
	Hash    store.Hash  `json:"hash"`
	Created string      `json:"created"`
	Model   string      `json:"model"`
	Steps   int         `json:"steps"`
	Parent  *store.Hash `json:"parent"`
	Stored  string      `json:"stored"`
	Subject string      `json:"subject,omitempty"`
	// Rejected counts the steps refused before they ran (outcome
	// "rejected"); ctx log shows it beside the step count.
	Rejected int `json:"rejected,omitempty"`
	// End is the state the run ended in (the manifest's end.state), when
	// the run says; ctx log shows it.
	End string `json:"end,omitempty"`
}

// NewIndexEntry summarises m for the index, stamped with the time now.
func NewIndexEntry(h store.Hash, m *Manifest, now time.Time) IndexEntry {
	return IndexEntry{
		Hash:     h,
		Created:  m.CreatedText(),
		Model:    m.Model.Identifier,
		Steps:    m.NumSteps(),
		Rejected: m.Rejected(),
		End:      m.EndState(),
		Parent:   m.Parent,
		Stored:   now.UTC().Format(time.RFC3339Nano),
	}
}

// Encode is the entry as it is stored: one line of JSON.
func (e IndexEntry) Encode() []byte {
	b, err := json.Marshal(e)
	if err != nil {
		panic(err) // strings, numbers and hashes always encode
	}
	return append(b, '\n')
}

// ParseIndexEntry decodes an index entry and checks that it names the pack
// it is filed under.
func ParseIndexEntry(h store.Hash, b []byte) (IndexEntry, error) {
	var e IndexEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return e, &BadIndexEntryError{Hash: h, Problem: fmt.Sprintf("is damaged: %v", err)}
	}
	if e.Hash != h {
		return e, &BadIndexEntryError{Hash: h, Problem: fmt.Sprintf("names another pack, %s", e.Hash)}
	}
	return e, nil
}

// BadIndexEntryError is an index entry that does not decode, or names
// another pack than the one it is filed under.
type BadIndexEntryError struct {
	Hash    store.Hash
	Problem string // "is damaged: ...", "names another pack, sha256:..."
}

func (e *BadIndexEntryError) Error() string {
	return fmt.Sprintf("index entry of %s %s", e.Hash, e.Problem)
}

// Published is what Publish did: the pack's name and what was stored,
// blobs and manifest together.
type Published struct {
	Hash  store.Hash
	Stats store.Stats
}

// PublishReport is what ctx pack --json prints of a pack it stored
// (contract section 5).
type PublishReport struct {
	Hash           string `json:"hash"`
	URI            string `json:"uri"`
	ObjectsWritten int    `json:"objects_written"`
	ObjectsReused  int    `json:"objects_reused"`
	BytesWritten   int64  `json:"bytes_written"`
	// Attestation is the ref of the pack's signed attestation, with --sign.
	Attestation string `json:"attestation,omitempty"`
}

// Report is the PublishReport of p.
func (p Published) Report() PublishReport {
	return PublishReport{Hash: p.Hash.String(), URI: p.Hash.URI(),
		ObjectsWritten: p.Stats.Written, ObjectsReused: p.Stats.Reused, BytesWritten: p.Stats.BytesWritten}
}

// SetLatest makes refs/latest name h, as Publish does for a pack it makes;
// ctx import and ctx pull call it for the pack they bring in. It reports
// whether the ref moved. The caller holds store.LockWrites and has indexed h.
func SetLatest(st *store.Store, h store.Hash, now time.Time) (moved bool, err error) {
	moved, err = moveRef(st, store.LatestRef, h, false)
	if moved && err == nil {
		err = restamp(st, h, now)
	}
	return moved, err
}

// restamp sets the stored time of pack h's index entry to now: a pack
// already in the store that enters it again (packed, imported or pulled
// once more, and so latest) is listed first by ctx log, where latest is.
func restamp(st *store.Store, h store.Hash, now time.Time) error {
	e, err := ReadIndexEntry(st, h)
	if err != nil {
		return fmt.Errorf("cannot read the index entry of %s: %w", h, err)
	}
	e.Stored = now.UTC().Format(time.RFC3339Nano)
	if err := st.WriteIndex(h, e.Encode()); err != nil {
		return fmt.Errorf("cannot write the index entry of %s: %w", h, err)
	}
	return nil
}

// moveRef makes ref name h, unless it already does: packing again
// changes nothing. With keep, a tag that names another pack is left as
// it is (*TagExistsError). What the ref names is read and replaced with
// no other writer of a ref between (store.UpdateRef).
func moveRef(st *store.Store, ref string, h store.Hash, keep bool) (moved bool, err error) {
	err = st.UpdateRef(ref, func(old store.Hash, err error) (store.Hash, error) {
		switch {
		case err == nil && old == h:
			return h, nil
		case err == nil && keep && ref != store.LatestRef:
			return old, &TagExistsError{Name: ref, Pack: old, To: &h}
		}
		moved = true
		return h, nil
	})
	return moved, err
}

// TagExistsError says a tag names another pack already and was not
// moved (ctx tag, ctx pack --tag without -f).
type TagExistsError struct {
	Name string
	Pack store.Hash  // what it names
	To   *store.Hash // the pack it was to name, when that pack is stored
}

func (e *TagExistsError) Error() string {
	return fmt.Sprintf("tag %q already names %s", e.Name, e.Pack)
}

// ErrorHints says how to move it.
func (e *TagExistsError) ErrorHints() []string {
	if e.To == nil {
		return []string{fmt.Sprintf("use -f to move it ('ctx tag -f %s PACK')", e.Name)}
	}
	return []string{fmt.Sprintf("use -f to move it; pack %s is stored and indexed, and 'ctx tag -f %s %s' moves the tag to it", e.To.URI(), e.Name, e.To.Short())}
}

// IndexCurrent reports whether the store already has an index entry of
// pack h that describes its manifest m. Packing or importing a run again
// keeps that entry with its stored time, so the index and the caches of
// ctx log stay as they were.
func IndexCurrent(st *store.Store, h store.Hash, m *Manifest) bool {
	e, err := ReadIndexEntry(st, h)
	return err == nil && CheckIndexEntry(e, NewIndexEntry(h, m, time.Time{})) == nil
}

// ReadIndexEntry reads and decodes the index entry of pack h.
func ReadIndexEntry(st *store.Store, h store.Hash) (IndexEntry, error) {
	b, err := st.ReadIndex(h)
	if err != nil {
		return IndexEntry{}, err
	}
	return ParseIndexEntry(h, b)
}

// HasIndexEntry reports whether pack h has an index entry, whatever it
// says.
func HasIndexEntry(st *store.Store, h store.Hash) bool {
	_, err := st.ReadIndex(h)
	return err == nil
}

// IndexedPacks returns the packs that have an index entry, in no order.
func IndexedPacks(st *store.Store) ([]store.Hash, error) { return st.IndexedPacks() }

// WriteIndexEntries writes many entries at once, for imports and repairs:
// one append to the index log, one sync (store.WriteIndexes).
func WriteIndexEntries(st *store.Store, entries []IndexEntry) error {
	recs := make([]store.IndexRecord, len(entries))
	for i, e := range entries {
		recs[i] = store.IndexRecord{Hash: e.Hash, Entry: e.Encode()}
	}
	return st.WriteIndexes(recs)
}

// Reindex rebuilds the index entry of pack h from its manifest (verified),
// stamped with the time the manifest object was stored, and writes it. The
// caller holds the write lock (ctx pull, ctx tag restoring a removed pack);
// ctx log's rebuilds go through ReadIndex and Adopt, which write only while
// they hold the store alone.
func Reindex(st *store.Store, h store.Hash) (IndexEntry, error) {
	e, err := RebuildIndexEntry(st, h)
	if err != nil {
		return e, err
	}
	return e, st.WriteIndex(h, e.Encode())
}

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

// RebuildIndexEntry returns the index entry of pack h rebuilt from its
// verified manifest, stamped, as Reindex stamps it, with the time the
// manifest object was stored; it writes nothing, so many entries can be
// written at once (store.WriteIndexes).
func RebuildIndexEntry(st *store.Store, h store.Hash) (IndexEntry, error) {
	m, err := Load(st, h)
	if err != nil {
		return IndexEntry{}, err
	}
	stored := time.Unix(0, 0)
	if _, t, _, err := st.Peek(h, 0); err == nil {
		stored = t
	}
	e := NewIndexEntry(h, m, stored)
	e.Subject = Subject(st, m)
	return e, nil
}
