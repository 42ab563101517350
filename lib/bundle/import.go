package bundle

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Limits on what a stream may hold beyond objects, which are streamed to
// disk whatever their size.
const (
	maxIndexEntry = 64 << 10 // an index entry is a few hundred bytes
	// MaxManifest bounds a manifest, which is read whole to check it (and
	// takes several times its size in memory then): a log of 100,000
	// steps gives about 24 MB. A larger one is refused before it is read.
	MaxManifest = 64 << 20
)

// Imported is what Import did.
type Imported struct {
	Packs   []store.Hash // the packs the stream carries, in the order of their names
	Last    store.Hash   // the pack of the stream's last index entry: refs/latest names it after the import
	Stats   store.Stats  // objects written and reused, bytes written
	Indexed int          // index entries written: packs new to the store, or whose entry was missing or damaged
	Latest  bool         // refs/latest moved to Last
}

// Unchanged reports whether the import changed nothing in the store.
func (r *Imported) Unchanged() bool { return r.Stats.Written == 0 && r.Indexed == 0 && !r.Latest }

// StreamError says why a stream was refused, and at which entry. Nothing of
// the stream was stored.
type StreamError struct {
	Entry string // the entry's name as the stream gives it; empty for the stream as a whole
	Err   error
}

func (e *StreamError) Error() string {
	if e.Entry == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("entry %q: %v", e.Entry, e.Err)
}

// Unwrap returns the reason, so errors.As finds a *store.ImmutableError in it.
func (e *StreamError) Unwrap() error { return e.Err }

// Import reads a tar stream of packs (as Export writes it) from r into the
// store through batch. Every entry must be a regular file named
// objects/ab/<62 hex> or packs/<64 hex> (directory entries for objects/,
// objects/ab/ and packs/ are allowed and skipped); each object is stored
// only if its bytes hash to its name; each index entry names a pack whose
// manifest, and every object it names, is in the stream or already in the
// store. Only when the whole stream has been read and checked is the batch
// committed, and only then are index entries written, rebuilt from the
// manifests. On any error the batch is aborted, nothing of the stream is
// stored, and the error is a *StreamError naming the entry at fault.
func Import(r io.Reader, st *store.Store, batch *store.Batch) (*Imported, error) {
	res, err := read(r, batch)
	if err != nil {
		batch.Abort()
		return nil, err
	}
	if err := checkPacks(batch, res.Packs); err != nil {
		batch.Abort()
		return nil, err
	}
	// The manifests go in last: a failure or a crash part way through
	// must not leave a manifest visible without the objects it names.
	if err := batch.CommitLast(res.Packs); err != nil {
		batch.Abort()
		return nil, fmt.Errorf("cannot store the stream's objects: %w", err)
	}
	res.Stats = batch.Stats()
	// The entries are rebuilt from the manifests, whatever the stream's
	// said, and written together: one sync for all.
	var entries []pack.IndexEntry
	for _, h := range res.Packs {
		if m, err := pack.Load(st, h); err == nil && pack.IndexCurrent(st, h, m) {
			continue
		}
		e, err := pack.RebuildIndexEntry(st, h)
		if err != nil {
			return res, &IndexError{Pack: h, Err: err}
		}
		entries = append(entries, e)
	}
	if err := pack.WriteIndexEntries(st, entries); err != nil {
		return res, &IndexError{Err: err}
	}
	res.Indexed = len(entries)
	// As ctx pack names what it made latest, so does an import: the last
	// pack of the stream, as 'ctx pack a b' names b.
	if len(res.Packs) > 0 {
		if res.Latest, err = pack.SetLatest(st, res.Last, time.Now()); err != nil {
			return res, fmt.Errorf("the packs are stored and indexed, but refs/latest could not name %s: %w", res.Last, err)
		}
	}
	return res, nil
}

// IndexError says the objects of a stream were stored but its packs could
// not all be indexed; 'ctx fsck --repair-index' finishes the work.
type IndexError struct {
	Pack store.Hash // the pack concerned, when it is one
	Err  error
}

func (e *IndexError) Error() string {
	if e.Pack.IsZero() {
		return fmt.Sprintf("the objects are stored, but the index entries could not be written: %v", e.Err)
	}
	return fmt.Sprintf("the objects are stored, but the index entry of pack %s could not be rebuilt: %v", e.Pack, e.Err)
}

// Unwrap returns the reason.
func (e *IndexError) Unwrap() error { return e.Err }

// read reads the whole stream into batch and returns the packs it names.
func read(r io.Reader, batch *store.Batch) (*Imported, error) {
	cr := &countReader{r: r}
	tr := tar.NewReader(cr)
	entries := map[store.Hash]store.Hash{} // the hash of each pack's index entry, to spot differing duplicates
	var lastPack store.Hash                // the pack of the last index entry
	var last string                        // the last entry's name, for messages about the stream
	var endOfData, lastSize int64
	for {
		endOfData = cr.n
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			res, err := finish(cr, entries, last, endOfData+pad(lastSize))
			if res != nil {
				res.Last = lastPack
			}
			return res, err
		}
		if err != nil {
			return nil, streamError(err, cr.n, last)
		}
		last, lastSize = hdr.Name, 0
		kind, h, err := checkHeader(hdr)
		if err != nil {
			return nil, &StreamError{Entry: hdr.Name, Err: err}
		}
		switch kind {
		case entryDir:
			continue
		case entryObject:
			n, err := batch.PutExpected(h, tr)
			lastSize = n
			if err != nil {
				return nil, entryError(hdr.Name, err)
			}
		case entryIndex:
			if hdr.Size > maxIndexEntry {
				return nil, &StreamError{Entry: hdr.Name, Err: fmt.Errorf("an index entry of %d bytes is not plausible (at most %d)", hdr.Size, maxIndexEntry)}
			}
			b, err := io.ReadAll(tr)
			lastSize = int64(len(b))
			if err != nil {
				return nil, entryError(hdr.Name, err)
			}
			if _, err := pack.ParseIndexEntry(h, b); err != nil {
				return nil, &StreamError{Entry: hdr.Name, Err: err}
			}
			if prev, dup := entries[h]; dup && prev != store.Sum(b) {
				return nil, &StreamError{Entry: hdr.Name, Err: errors.New("given twice with different content")}
			}
			entries[h] = store.Sum(b)
			lastPack = h
		}
	}
}

// finish checks the end of the stream: the end-of-archive marker must be
// there (a stream cut between two entries is otherwise indistinguishable
// from a whole one) and nothing but zero padding may follow it.
func finish(cr *countReader, entries map[store.Hash]store.Hash, last string, endOfEntries int64) (*Imported, error) {
	switch {
	case cr.n == 0:
		return nil, &StreamError{Err: errors.New("the input is empty: expected a tar stream from 'ctx export'")}
	case cr.n-endOfEntries < 2*blockSize:
		if last == "" {
			return nil, &StreamError{Err: errors.New("the tar stream is truncated: it ends without the end-of-archive marker")}
		}
		return nil, &StreamError{Err: fmt.Errorf("the tar stream is truncated after entry %q: it ends without the end-of-archive marker", last)}
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := cr.Read(buf)
		for _, c := range buf[:n] {
			if c != 0 {
				return nil, &StreamError{Err: errors.New("data follows the end of the tar stream")}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &StreamError{Err: err}
		}
	}
	res := &Imported{}
	for h := range entries {
		res.Packs = append(res.Packs, h)
	}
	sort.Slice(res.Packs, func(i, j int) bool { return res.Packs[i].Hex() < res.Packs[j].Hex() })
	return res, nil
}

// checkPacks checks, before anything is committed, that every pack the
// stream indexes has its manifest and every object the manifest names,
// in the stream or already in the store.
func checkPacks(batch *store.Batch, packs []store.Hash) error {
	for _, h := range packs {
		name := IndexName(h)
		m, err := readManifest(batch, h)
		if err != nil {
			return &StreamError{Entry: name, Err: err}
		}
		// A name no ctx pack would write (one entering .git, say) would
		// become a file at the next checkout: refuse it here.
		if err := pack.CheckNames(m); err != nil {
			return &StreamError{Entry: name, Err: fmt.Errorf("pack %s: %w", h, err)}
		}
		var missing []string
		for _, r := range m.Refs() {
			if !batch.Has(r.Hash) {
				missing = append(missing, fmt.Sprintf("%s %s", r.Where, r.Hash))
			}
		}
		if len(missing) > 0 {
			const show = 3
			more := ""
			if len(missing) > show {
				more = fmt.Sprintf(" and %d more", len(missing)-show)
				missing = missing[:show]
			}
			return &StreamError{Entry: name, Err: fmt.Errorf("pack %s names objects that are neither in the stream nor in this store: %s%s", h, strings.Join(missing, ", "), more)}
		}
	}
	return nil
}

func readManifest(batch *store.Batch, h store.Hash) (*pack.Manifest, error) {
	o, err := batch.Open(h)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, fmt.Errorf("the manifest of pack %s is neither in the stream nor in this store", h)
		}
		return nil, fmt.Errorf("pack %s: %w", h, err)
	}
	defer o.Close()
	if o.Size() > MaxManifest {
		return nil, fmt.Errorf("the manifest of pack %s has %d bytes, more than the %d MiB ctx import reads", h, o.Size(), MaxManifest>>20)
	}
	b, err := io.ReadAll(o)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", h, err)
	}
	m, err := pack.Parse(b)
	if err != nil {
		return nil, fmt.Errorf("object %s is not a pack manifest: %w", h, err)
	}
	return m, nil
}

// entryError words an error met while reading an entry's content.
func entryError(name string, err error) error {
	var mm *store.MismatchError
	if errors.As(err, &mm) {
		return &StreamError{Entry: name, Err: fmt.Errorf("%w: the entry is damaged or forged", err)}
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return &StreamError{Entry: name, Err: errors.New("the tar stream is truncated inside this entry")}
	}
	return &StreamError{Entry: name, Err: err}
}

// streamError words an error of the tar reader between entries.
func streamError(err error, at int64, last string) error {
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) && last == "" && at < blockSize:
		err = fmt.Errorf("the input is not a tar stream: %d bytes is shorter than one tar header", at)
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = errors.New("the tar stream is truncated")
	case errors.Is(err, tar.ErrHeader) && last == "":
		err = errors.New("the input is not a tar stream: no valid tar header at its start")
	case errors.Is(err, tar.ErrHeader):
		err = fmt.Errorf("the tar stream is damaged at byte %d: invalid tar header", at)
	}
	if last != "" {
		return &StreamError{Err: fmt.Errorf("%w (after entry %q)", err, last)}
	}
	return &StreamError{Err: err}
}

const blockSize = 512

// pad returns the zero padding after an entry of size bytes.
func pad(size int64) int64 { return -size & (blockSize - 1) }

// countReader counts the bytes read, so the end of the stream can be
// checked. It hides any Seek method of the input, so the tar reader reads
// every byte and the count stays true.
type countReader struct {
	r io.Reader
	n int64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
