package store

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Packed objects. A batch that stores many small objects at once (the
// runs of a stream packed by one ctx pack -) writes them into one file,
// as git writes a packfile, instead of one file each: creating tens of
// thousands of files is what costs, not their bytes. Beside the loose
// objects of objects/ab/:
//
//	objects/packed/<hex>.pack   the objects' bytes one after another, raw
//	objects/packed/<hex>.idx    where each one is: the index, parsed by ParsePackedIndex
//
// <hex> is the SHA-256 of the .pack file. The .pack is renamed into place
// first, the .idx last: an object is visible once its .idx is, so the
// objects of one commit appear together, and a crash leaves at most a
// .pack without an .idx (nothing visible; the next writer's sweep and
// ctx fsck see it). An object's name is still the SHA-256 of its bytes,
// checked on every read as a loose object's is; a packed object can be
// stored loose too, and is then read from there.
//
// The .idx is binary: the magic "CTXPIDX1", the number of objects (4 bytes,
// big-endian), then for each object, sorted by hash, its hash (32 bytes),
// its offset in the .pack and its size (8 bytes each, big-endian); then the
// SHA-256 of the .pack and the SHA-256 of every byte of the .idx before it.
const (
	packedDir     = "objects/packed"
	packedMagic   = "CTXPIDX1"
	packedEntry   = 32 + 8 + 8
	packedTrailer = 32 + 32
	packSuffix    = ".pack"
	idxSuffix     = ".idx"
)

// maxPackedObjects bounds the objects of one packed file (a batch never
// writes more than a few hundred thousand), so a damaged count cannot ask
// for gigabytes.
const maxPackedObjects = 1 << 24

// PackedEntry is one object of a packed file: where its bytes are.
type PackedEntry struct {
	Hash   Hash
	Offset int64
	Size   int64
}

// PackedIndex is a parsed .idx: the objects of one packed file, sorted by
// hash, and the hash of the .pack they are in.
type PackedIndex struct {
	Pack    Hash
	Entries []PackedEntry
}

// ParsePackedIndex parses the bytes of a .idx file. It refuses anything
// but what EncodePackedIndex writes: a wrong magic or checksum, a count
// that does not match the length, hashes out of order or repeated, an
// object that does not fit in 63 bits.
func ParsePackedIndex(b []byte) (*PackedIndex, error) {
	head := len(packedMagic) + 4
	if len(b) < head+packedTrailer || string(b[:len(packedMagic)]) != packedMagic {
		return nil, errors.New("not a packed-objects index (bad magic or too short)")
	}
	n := binary.BigEndian.Uint32(b[len(packedMagic):])
	if n > maxPackedObjects || len(b) != head+int(n)*packedEntry+packedTrailer {
		return nil, fmt.Errorf("packed-objects index: %d objects do not fit its %d bytes", n, len(b))
	}
	body := b[:len(b)-32]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], b[len(b)-32:]) {
		return nil, errors.New("packed-objects index: its checksum does not match")
	}
	ix := &PackedIndex{Entries: make([]PackedEntry, n)}
	copy(ix.Pack[:], b[len(b)-packedTrailer:])
	for i := range ix.Entries {
		e := b[head+i*packedEntry:]
		var pe PackedEntry
		copy(pe.Hash[:], e[:32])
		off, size := binary.BigEndian.Uint64(e[32:]), binary.BigEndian.Uint64(e[40:])
		if off > 1<<62 || size > 1<<62 {
			return nil, fmt.Errorf("packed-objects index: object %s has offset %d and size %d", pe.Hash, off, size)
		}
		pe.Offset, pe.Size = int64(off), int64(size)
		if i > 0 && bytes.Compare(ix.Entries[i-1].Hash[:], pe.Hash[:]) >= 0 {
			return nil, fmt.Errorf("packed-objects index: object %s is out of order", pe.Hash)
		}
		ix.Entries[i] = pe
	}
	return ix, nil
}

// EncodePackedIndex is the .idx of the objects entries (in any order;
// each hash once) in the .pack whose SHA-256 is pack.
func EncodePackedIndex(pack Hash, entries []PackedEntry) []byte {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b PackedEntry) int { return bytes.Compare(a.Hash[:], b.Hash[:]) })
	b := make([]byte, 0, len(packedMagic)+4+len(sorted)*packedEntry+packedTrailer)
	b = append(b, packedMagic...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(sorted)))
	for _, e := range sorted {
		b = append(b, e.Hash[:]...)
		b = binary.BigEndian.AppendUint64(b, uint64(e.Offset))
		b = binary.BigEndian.AppendUint64(b, uint64(e.Size))
	}
	b = append(b, pack[:]...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// packedLoc is where a packed object is: its file's name (<hex>, without
// suffix) and its place in it.
type packedLoc struct {
	file      string
	off, size int64
}

// packedSet is what a Store knows of objects/packed/: the .idx files read,
// and every object in them. It is read when first needed and again when
// an object is looked for and not found (another writer may have committed
// it since).
type packedSet struct {
	mu     sync.Mutex
	loaded bool
	stamp  time.Time            // objects/packed/'s mtime when last listed
	files  map[string]time.Time // <hex> -> its .idx's mtime (when it was stored)
	byHash map[Hash]packedLoc
	loose  looseListing // for writers deduplicating (looseListed)
}

// forgetPacked drops what is known of objects/packed/, to be read again.
func (s *Store) forgetPacked() {
	s.packed.mu.Lock()
	s.packed.loaded, s.packed.files, s.packed.byHash = false, nil, nil
	s.packed.loose = looseListing{}
	s.packed.mu.Unlock()
}

func (s *Store) packedPath(name, suffix string) string {
	return filepath.Join(s.root, filepath.FromSlash(packedDir), name+suffix)
}

// lookupPacked finds h among the packed objects. sure re-lists
// objects/packed/ on a miss (a read must not miss an object committed a
// moment ago); without it a miss looks no further than the listing read
// since the write lock was taken, which is what a writer deduplicating
// wants: an object another writer packed meanwhile is stored again, which
// is harmless.
func (s *Store) lookupPacked(h Hash, sure bool) (packedLoc, time.Time, bool) {
	p := &s.packed
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.loaded {
		if loc, ok := p.byHash[h]; ok {
			return loc, p.files[loc.file], true
		}
		if !sure {
			// A writer deduplicating: the listing read under its lock
			// (and its own commits) is enough.
			return packedLoc{}, time.Time{}, false
		}
	}
	if !s.refreshPacked(sure) {
		return packedLoc{}, time.Time{}, false
	}
	loc, ok := p.byHash[h]
	return loc, p.files[loc.file], ok
}

// refreshPacked re-reads the listing of objects/packed/ (p.mu held) and
// reports whether anything changed. Damaged .idx files are skipped here:
// ctx fsck reports them.
func (s *Store) refreshPacked(sure bool) bool {
	p := &s.packed
	dir := filepath.Join(s.root, filepath.FromSlash(packedDir))
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		changed := len(p.files) > 0
		p.loaded, p.files, p.byHash = true, nil, nil
		return changed
	}
	if p.loaded && !sure && fi.ModTime().Equal(p.stamp) {
		return false
	}
	names, err := readNames(dir)
	if err != nil {
		return false
	}
	p.stamp = fi.ModTime()
	now := map[string]bool{}
	changed := !p.loaded
	if p.files == nil {
		p.files, p.byHash = map[string]time.Time{}, map[Hash]packedLoc{}
	}
	for _, n := range names {
		name, ok := strings.CutSuffix(n, idxSuffix)
		if !ok || !isLowerHex(name, 64) {
			continue
		}
		now[name] = true
		if _, ok := p.files[name]; ok {
			continue
		}
		ix, stored, err := s.readPackedIndex(name)
		if err != nil {
			continue
		}
		changed = true
		p.files[name] = stored
		p.add(name, ix)
	}
	gone := false
	for name := range p.files {
		if !now[name] {
			delete(p.files, name)
			gone = true
		}
	}
	if gone {
		// Objects of a file gc replaced may be in another: index again.
		changed = true
		for h, loc := range p.byHash {
			if !now[loc.file] {
				delete(p.byHash, h)
			}
		}
		for name := range p.files {
			if ix, _, err := s.readPackedIndex(name); err == nil {
				p.add(name, ix)
			}
		}
	}
	p.loaded = true
	return changed
}

// add records the objects of the packed file name (p.mu held); an object
// already known in another file keeps that place.
func (p *packedSet) add(name string, ix *PackedIndex) {
	for _, e := range ix.Entries {
		if _, dup := p.byHash[e.Hash]; !dup {
			p.byHash[e.Hash] = packedLoc{file: name, off: e.Offset, size: e.Size}
		}
	}
}

// readPackedIndex reads and parses objects/packed/<name>.idx, never
// through a symlink, and returns when it was stored.
func (s *Store) readPackedIndex(name string) (*PackedIndex, time.Time, error) {
	p := s.packedPath(name, idxSuffix)
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, time.Time{}, err
	}
	f, fi, err := regular(f, func() error { return fmt.Errorf("%s is not a regular file", p) })
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	if fi.Size() > int64(len(packedMagic)+4+maxPackedObjects*packedEntry+packedTrailer) {
		return nil, time.Time{}, fmt.Errorf("%s: too large for a packed-objects index", p)
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: %w", p, err)
	}
	ix, err := ParsePackedIndex(b)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: %w", p, err)
	}
	if ix.Pack.Hex() != name {
		return nil, time.Time{}, fmt.Errorf("%s: it indexes the pack %s", p, ix.Pack.Hex())
	}
	return ix, fi.ModTime(), nil
}

// ReadPackedIndex reads objects/packed/<name>.idx (name: 64 hex digits)
// for ctx fsck and ctx gc.
func (s *Store) ReadPackedIndex(name string) (*PackedIndex, error) {
	if err := s.CheckDir(filepath.Join(s.root, filepath.FromSlash(packedDir))); err != nil {
		return nil, err
	}
	ix, _, err := s.readPackedIndex(name)
	return ix, err
}

// orphanPacks reports whether objects/packed/ holds a .pack without its
// .idx: a commit that failed or was killed between the two (its objects
// were never visible), for the next writer alone to sweep.
func (s *Store) orphanPacks() bool {
	dir := filepath.Join(s.root, filepath.FromSlash(packedDir))
	if s.CheckDir(dir) != nil {
		return false
	}
	names, err := readNames(dir)
	if err != nil {
		return false
	}
	idx := map[string]bool{}
	for _, n := range names {
		if name, ok := strings.CutSuffix(n, idxSuffix); ok {
			idx[name] = true
		}
	}
	for _, n := range names {
		if name, ok := strings.CutSuffix(n, packSuffix); ok && !idx[name] {
			return true
		}
	}
	return false
}

// packedFiles lists the names (<hex>) of the packed files whose .idx is
// in place, sorted.
func (s *Store) packedFiles() ([]string, error) {
	dir := filepath.Join(s.root, filepath.FromSlash(packedDir))
	if err := s.CheckDir(dir); err != nil {
		return nil, err
	}
	names, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if name, ok := strings.CutSuffix(n, idxSuffix); ok && isLowerHex(name, 64) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out, nil
}

// openPacked opens the packed copy of h: a section of its .pack, which
// must be a regular file reached without following a symlink, within the
// file's size.
func (s *Store) openPacked(h Hash) (io.ReadCloser, int64, time.Time, error) {
	for try := 0; ; try++ {
		loc, stored, ok := s.lookupPacked(h, true)
		if !ok {
			return nil, 0, time.Time{}, &NotFoundError{Hash: h}
		}
		p := s.packedPath(loc.file, packSuffix)
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if errors.Is(err, fs.ErrNotExist) && try == 0 {
			// ctx gc replaced the file since it was listed: look again.
			s.forgetPacked()
			continue
		}
		if err != nil {
			if errors.Is(err, syscall.ELOOP) {
				return nil, 0, time.Time{}, &CorruptError{Hash: h, Detail: fmt.Sprintf("%s is a symlink, which the store never follows", p)}
			}
			return nil, 0, time.Time{}, err
		}
		f, fi, err := regular(f, func() error { return &CorruptError{Hash: h, Detail: p + " is not a regular file"} })
		if err != nil {
			return nil, 0, time.Time{}, err
		}
		if loc.off+loc.size > fi.Size() {
			f.Close()
			return nil, 0, time.Time{}, &CorruptError{Hash: h, Detail: fmt.Sprintf("%s ends before the object's %d bytes at offset %d", p, loc.size, loc.off)}
		}
		return sectionFile{io.NewSectionReader(f, loc.off, loc.size), f}, loc.size, stored, nil
	}
}

// sectionFile is a section of an open file, closed with it.
type sectionFile struct {
	*io.SectionReader
	f *os.File
}

func (s sectionFile) Close() error { return s.f.Close() }

// statPacked returns the size of h when it is packed.
func (s *Store) statPacked(h Hash, sure bool) (int64, bool) {
	loc, _, ok := s.lookupPacked(h, sure)
	return loc.size, ok
}

// PackedNames returns every object of the packed files, with the name of
// the file each is in (for messages), as ObjectNames returns the loose
// ones; the .idx files that cannot be read are returned as DirErrors.
func (s *Store) PackedNames() (map[Hash]string, []*DirError, error) {
	files, err := s.packedFiles()
	if err != nil {
		return nil, nil, err
	}
	out := map[Hash]string{}
	var bad []*DirError
	for _, name := range files {
		ix, _, err := s.readPackedIndex(name)
		if err != nil {
			bad = append(bad, &DirError{Dir: packedDir + "/" + name + idxSuffix, Err: err})
			continue
		}
		for _, e := range ix.Entries {
			if _, ok := out[e.Hash]; !ok {
				out[e.Hash] = packedDir + "/" + name + packSuffix
			}
		}
	}
	return out, bad, nil
}

// packWriter is the packed file a batch is writing (Batch.PackSmall): its
// temporary .pack in tmp/, hashed as it is written, and its entries.
type packWriter struct {
	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	sum     hash.Hash
	off     int64
	entries []PackedEntry
	has     map[Hash]bool
	err     error
}

// PackSmall makes the batch store the objects whose bytes it is given
// (PutBytes, PutBytesAsync, small files) in one packed file instead of a
// file each; larger ones streamed with PutReader stay loose. For batches
// of many small objects: the runs of a stream.
func (b *Batch) PackSmall() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pk == nil {
		b.pk = newPackWriter()
	}
}

func newPackWriter() *packWriter { return &packWriter{has: map[Hash]bool{}, sum: sha256.New()} }

// addPacked appends data, whose hash is h, to the batch's packed file; it
// reports false when the batch holds h already.
func (b *Batch) addPacked(h Hash, data []byte) (bool, error) { return b.pk.add(b.s, h, data) }

// add appends data, whose hash is taken to be h, to the packed file.
func (pk *packWriter) add(s *Store, h Hash, data []byte) (bool, error) {
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.has[h] {
		return false, nil
	}
	if pk.err != nil {
		return false, pk.err
	}
	if pk.f == nil {
		f, err := s.createTemp(s.tmp(), tempPrefix)
		if err != nil {
			pk.err = &WriteError{Err: err}
			return false, pk.err
		}
		pk.f = f
		pk.w = bufio.NewWriterSize(&storeWriter{s: s, f: f}, 1<<20)
	}
	if _, err := pk.w.Write(data); err != nil {
		pk.err = &WriteError{Err: err}
		return false, pk.err
	}
	pk.sum.Write(data)
	pk.entries = append(pk.entries, PackedEntry{Hash: h, Offset: pk.off, Size: int64(len(data))})
	pk.off += int64(len(data))
	pk.has[h] = true
	return true, nil
}

// holds reports whether the batch's packed file has h.
func (pk *packWriter) holds(h Hash) bool {
	if pk == nil {
		return false
	}
	pk.mu.Lock()
	defer pk.mu.Unlock()
	return pk.has[h]
}

// finish writes out the packed file and its index as temporary files in
// tmp/ and returns their paths and the packed file's name; "" when the
// batch packed nothing.
func (pk *packWriter) finish(s *Store) (data, idx, name string, err error) {
	if pk == nil || pk.f == nil {
		return "", "", "", nil
	}
	if pk.err != nil {
		return "", "", "", pk.err
	}
	if err := pk.w.Flush(); err != nil {
		return "", "", "", &WriteError{Err: err}
	}
	var h Hash
	pk.sum.Sum(h[:0])
	f, err := s.createTemp(s.tmp(), tempPrefix)
	if err != nil {
		return "", "", "", &WriteError{Err: err}
	}
	_, err = s.writeTo(f, EncodePackedIndex(h, pk.entries))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", "", "", &WriteError{Err: err}
	}
	return pk.f.Name(), f.Name(), h.Hex(), nil
}

// discard removes the packed file's temporary file and forgets its
// objects.
func (pk *packWriter) discard() {
	if pk == nil {
		return
	}
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.f != nil {
		pk.f.Close()
		os.Remove(pk.f.Name())
	}
	pk.f, pk.w, pk.err, pk.off, pk.entries = nil, nil, nil, 0, nil
	pk.has = map[Hash]bool{}
	pk.sum = sha256.New()
}

// closeData closes the temporary .pack before it is synced and renamed.
func (pk *packWriter) closeData() error {
	if pk == nil || pk.f == nil {
		return nil
	}
	err := pk.f.Close()
	return err
}

// installPacked puts a written packed file in place: the .pack first,
// made durable in objects/packed/, then the .idx, which makes its objects
// visible, made durable too. data and idx are synced temporary files;
// both are gone afterwards, renamed or removed.
func (s *Store) installPacked(data, idx, name string) error {
	defer os.Remove(data)
	defer os.Remove(idx)
	dir := filepath.Join(s.root, filepath.FromSlash(packedDir))
	if err := s.fault(faultLink, dir, 0); err != nil {
		return err
	}
	if err := s.MkdirAll(dir); err != nil {
		return err
	}
	if err := s.CheckDir(dir); err != nil {
		return err
	}
	for _, f := range []struct{ tmp, suffix string }{{data, packSuffix}, {idx, idxSuffix}} {
		final := s.packedPath(name, f.suffix)
		if err := s.fault(faultLink, final, 0); err != nil {
			return err
		}
		// The same name is the same bytes: another writer packed the
		// same objects first.
		if err := renameNoReplace(f.tmp, final); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("cannot store packed objects %s: %w", name, err)
		}
		if err := s.fault(faultSync, dir, 0); err != nil {
			return err
		}
		if err := syncDirErr(dir); err != nil {
			return err
		}
	}
	s.packed.mu.Lock()
	s.refreshPacked(true)
	s.packed.mu.Unlock()
	return nil
}

// syncDirErr is syncDir that reports a failure, for a sync that orders
// what follows (the .idx after its .pack); a filesystem that cannot sync
// directories at all (EINVAL) is not a failure.
func syncDirErr(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) {
		return err
	}
	return nil
}

// PlanRemovals tells the store every object ctx gc is about to remove, so
// that a packed file is rewritten once, without all of them, rather than
// once per object (RemoveObject).
func (x *Exclusive) PlanRemovals(hs []Hash) {
	x.planned = make(map[Hash]bool, len(hs))
	for _, h := range hs {
		x.planned[h] = true
	}
}

// removePacked takes h out of the packed file that holds it, with every
// other object of that file planned for removal: the objects it keeps are
// written to a new packed file (stored at the old one's time, so their
// age is kept), installed, and then the old file goes, its .idx first.
// It returns h's size; 0 and no error when h is not packed.
func (x *Exclusive) removePacked(h Hash) (int64, error) {
	s := x.s
	loc, stored, ok := s.lookupPacked(h, true)
	if !ok {
		return 0, nil
	}
	ix, _, err := s.readPackedIndex(loc.file)
	if err != nil {
		return 0, err
	}
	var keep []PackedEntry
	if x.gone == nil {
		x.gone = map[Hash]int64{}
	}
	goes := map[Hash]int64{}
	for _, e := range ix.Entries {
		if e.Hash == h || x.planned[e.Hash] {
			goes[e.Hash] = e.Size
		} else {
			keep = append(keep, e)
		}
	}
	if len(keep) > 0 {
		if err := x.repack(loc.file, keep, stored); err != nil {
			return 0, err
		}
	}
	dir := filepath.Join(s.root, filepath.FromSlash(packedDir))
	if err := os.Remove(s.packedPath(loc.file, idxSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if err := syncDirErr(dir); err != nil {
		return 0, err
	}
	if err := os.Remove(s.packedPath(loc.file, packSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	s.packed.mu.Lock()
	s.refreshPacked(true)
	s.packed.mu.Unlock()
	for g, n := range goes {
		x.gone[g] = n
	}
	return goes[h], nil
}

// repack writes the objects keep of the packed file name to a new packed
// file, installed with its .idx stored at the time stored.
func (x *Exclusive) repack(name string, keep []PackedEntry, stored time.Time) error {
	s := x.s
	f, err := os.OpenFile(s.packedPath(name, packSuffix), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	f, _, err = regular(f, func() error { return fmt.Errorf("%s is not a regular file", s.packedPath(name, packSuffix)) })
	if err != nil {
		return err
	}
	defer f.Close()
	pk := newPackWriter()
	defer pk.discard()
	for _, e := range keep {
		b := make([]byte, e.Size)
		if _, err := f.ReadAt(b, e.Offset); err != nil {
			return fmt.Errorf("%s: object %s: %w", s.packedPath(name, packSuffix), e.Hash, err)
		}
		if _, err := pk.add(s, e.Hash, b); err != nil {
			return err
		}
	}
	data, idx, newName, err := pk.finish(s)
	if err != nil {
		return err
	}
	if err := pk.closeData(); err != nil {
		return err
	}
	if err := syncStore(s.root, []string{data, idx}, nil); err != nil {
		return err
	}
	_ = os.Chtimes(idx, stored, stored)
	return s.installPacked(data, idx, newName)
}

// Mark is a point of a batch to go back to (Rollback): what it held then.
type Mark struct {
	stats   Stats
	pending map[Hash]bool
	off     int64
	entries int
	sum     []byte
}

// Mark returns the batch's current point, so that the objects of one log
// among several in a batch can be dropped when that log proves bad.
func (b *Batch) Mark() Mark {
	b.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	m := Mark{stats: b.stats, pending: make(map[Hash]bool, len(b.pending))}
	for h := range b.pending {
		m.pending[h] = true
	}
	if pk := b.pk; pk != nil {
		pk.mu.Lock()
		defer pk.mu.Unlock()
		m.off, m.entries = pk.off, len(pk.entries)
		m.sum, _ = pk.sum.(encoding.BinaryMarshaler).MarshalBinary()
	}
	return m
}

// Rollback drops every object the batch took since m: their temporary
// files are removed and the packed file is cut back, so the commit stores
// what it would have stored at m.
func (b *Batch) Rollback(m Mark) error {
	b.Wait()
	b.mu.Lock()
	defer b.mu.Unlock()
	for h, ref := range b.pending {
		if !m.pending[h] {
			os.Remove(b.s.tempPath(h, ref))
			delete(b.pending, h)
		}
	}
	b.stats = m.stats
	pk := b.pk
	if pk == nil {
		return nil
	}
	pk.mu.Lock()
	defer pk.mu.Unlock()
	if pk.err != nil {
		return pk.err
	}
	for _, e := range pk.entries[m.entries:] {
		delete(pk.has, e.Hash)
	}
	pk.entries = pk.entries[:m.entries]
	if pk.f != nil {
		if err := pk.w.Flush(); err != nil {
			pk.err = &WriteError{Err: err}
			return pk.err
		}
		if err := pk.f.Truncate(m.off); err != nil {
			pk.err = &WriteError{Err: err}
			return pk.err
		}
		if _, err := pk.f.Seek(m.off, io.SeekStart); err != nil {
			pk.err = &WriteError{Err: err}
			return pk.err
		}
	}
	pk.off = m.off
	sum := sha256.New()
	if m.sum != nil {
		if err := sum.(encoding.BinaryUnmarshaler).UnmarshalBinary(m.sum); err != nil {
			return err
		}
	}
	pk.sum = sum
	return nil
}

// looseListing is what a writer deduplicating knows of objects/ab/
// directories, read once each under its write lock: whether h is a loose
// object is then a lookup instead of two lstat calls (84,000 objects of a
// stream make 168,000 otherwise). Only small directories are kept (a
// fresh or young store); a larger one is asked about object by object.
// An object another writer stores meanwhile is missed and stored again,
// which is harmless; none is deleted while the lock is held.
type looseListing struct {
	dirs  map[string]map[string]bool // "ab" -> names in it; nil: ask the filesystem
	names int
}

// maxLooseListed bounds the names a listing keeps (a few MiB).
const maxLooseListed = 1 << 16

// looseListed reports whether h is a loose object as the listing knows
// it; decided is false when the filesystem must be asked (a directory too
// large to keep, or one that is not a plain directory: the usual path
// reports that).
func (s *Store) looseListed(h Hash) (present, decided bool) {
	p := &s.packed
	p.mu.Lock()
	defer p.mu.Unlock()
	hx := h.Hex()
	if p.loose.dirs == nil {
		p.loose.dirs = map[string]map[string]bool{}
	}
	names, ok := p.loose.dirs[hx[:2]]
	if !ok {
		names = s.listLoose(hx[:2])
		p.loose.dirs[hx[:2]] = names
	}
	if names == nil {
		return false, false
	}
	return names[hx[2:]], true
}

// listLoose reads objects/<ab>/ for looseListed (p.mu held); nil when it
// is not to be kept.
func (s *Store) listLoose(ab string) map[string]bool {
	p := &s.packed
	dir := filepath.Join(s.root, objectsDir, ab)
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return map[string]bool{}
	case err != nil || !fi.IsDir():
		return nil
	}
	names, err := readNames(dir)
	if err != nil || p.loose.names+len(names) > maxLooseListed {
		return nil
	}
	set := make(map[string]bool, len(names))
	for _, n := range names {
		if isLowerHex(n, 62) {
			set[n] = true
		}
	}
	p.loose.names += len(set)
	return set
}
