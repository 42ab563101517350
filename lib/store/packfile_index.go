package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"time"
)

// Packfiles. A batch that stores many small objects at once (the runs of
// a stream given to one ctx pack -) writes them into one file, as git
// writes a packfile, instead of one file each: creating tens of thousands
// of files is what costs, not their bytes. Beside the loose objects of
// objects/ab/:
//
//	objects/packed/<hex>.pack   the objects' bytes one after another, raw
//	objects/packed/<hex>.idx    where each one is: the index, parsed by ParsePackfileIndex
//
// <hex> is the SHA-256 of the .pack file. The .pack is renamed into place
// first, the .idx last: an object is visible once its .idx is, so the
// objects of one commit appear together, and a crash leaves at most a
// .pack without an .idx (nothing visible; the next writer's sweep and
// ctx fsck see it). An object's name is still the SHA-256 of its bytes,
// checked on every read as a loose object's is.
//
// In the code, "pack" alone is a context pack (a manifest, packs/); a
// packfile is the pair of files above, and an object in one is packed.
// The jobs are one file each: the .idx's encoding (here), finding and
// reading packed objects (packfile_read.go), writing a packfile
// (packfile_write.go), and ctx gc's rewrite (packfile_gc.go).
//
// The .idx is binary: the magic "CTXPIDX1", the number of objects (4 bytes,
// big-endian), then for each object, sorted by hash, its hash (32 bytes),
// its offset in the .pack and its size (8 bytes each, big-endian); then the
// SHA-256 of the .pack and the SHA-256 of every byte of the .idx before it.
const (
	packfileDir     = "objects/packed"
	packfileMagic   = "CTXPIDX1"
	packfileEntry   = 32 + 8 + 8
	packfileTrailer = 32 + 32
	dataSuffix      = ".pack" // a packfile's objects
	idxSuffix       = ".idx"  // a packfile's index
)

// maxPackfileObjects bounds the objects of one packfile (a batch never
// writes more than a few hundred thousand), so a damaged count cannot ask
// for gigabytes.
const maxPackfileObjects = 1 << 24

// PackfileEntry is one object of a packfile: where its bytes are.
type PackfileEntry struct {
	Hash   Hash
	Offset int64
	Size   int64
}

// PackfileIndex is a parsed .idx: the objects of one packfile, sorted by
// hash, and the hash of the .pack they are in (the packfile's name).
type PackfileIndex struct {
	Packfile Hash
	Entries  []PackfileEntry
}

// ParsePackfileIndex parses the bytes of a .idx file. It refuses anything
// but what EncodePackfileIndex writes: a wrong magic or checksum, a count
// that does not match the length, hashes out of order or repeated, an
// object that does not fit in 63 bits.
func ParsePackfileIndex(b []byte) (*PackfileIndex, error) {
	head := len(packfileMagic) + 4
	if len(b) < head+packfileTrailer || string(b[:len(packfileMagic)]) != packfileMagic {
		return nil, errors.New("not a packfile index (bad magic or too short)")
	}
	n := binary.BigEndian.Uint32(b[len(packfileMagic):])
	if n > maxPackfileObjects || len(b) != head+int(n)*packfileEntry+packfileTrailer {
		return nil, fmt.Errorf("packfile index: %d objects do not fit its %d bytes", n, len(b))
	}
	body := b[:len(b)-32]
	if sum := sha256.Sum256(body); !bytes.Equal(sum[:], b[len(b)-32:]) {
		return nil, errors.New("packfile index: its checksum does not match")
	}
	ix := &PackfileIndex{Entries: make([]PackfileEntry, n)}
	copy(ix.Packfile[:], b[len(b)-packfileTrailer:])
	for i := range ix.Entries {
		e := b[head+i*packfileEntry:]
		var pe PackfileEntry
		copy(pe.Hash[:], e[:32])
		off, size := binary.BigEndian.Uint64(e[32:]), binary.BigEndian.Uint64(e[40:])
		if off > 1<<62 || size > 1<<62 {
			return nil, fmt.Errorf("packfile index: object %s has offset %d and size %d", pe.Hash, off, size)
		}
		pe.Offset, pe.Size = int64(off), int64(size)
		if i > 0 && bytes.Compare(ix.Entries[i-1].Hash[:], pe.Hash[:]) >= 0 {
			return nil, fmt.Errorf("packfile index: object %s is out of order", pe.Hash)
		}
		ix.Entries[i] = pe
	}
	return ix, nil
}

// EncodePackfileIndex is the .idx of the objects entries (in any order;
// each hash once) in the .pack whose SHA-256 is packfile.
func EncodePackfileIndex(packfile Hash, entries []PackfileEntry) []byte {
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b PackfileEntry) int { return bytes.Compare(a.Hash[:], b.Hash[:]) })
	b := make([]byte, 0, len(packfileMagic)+4+len(sorted)*packfileEntry+packfileTrailer)
	b = append(b, packfileMagic...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(sorted)))
	for _, e := range sorted {
		b = append(b, e.Hash[:]...)
		b = binary.BigEndian.AppendUint64(b, uint64(e.Offset))
		b = binary.BigEndian.AppendUint64(b, uint64(e.Size))
	}
	b = append(b, packfile[:]...)
	sum := sha256.Sum256(b)
	return append(b, sum[:]...)
}

// packfilePath is the path of the packfile name's .pack or .idx (suffix).
func (s *Store) packfilePath(name, suffix string) string {
	return filepath.Join(s.root, filepath.FromSlash(packfileDir), name+suffix)
}

// readPackfileIndex reads and parses objects/packed/<name>.idx, never
// through a symlink, and returns when it was stored.
func (s *Store) readPackfileIndex(name string) (*PackfileIndex, time.Time, error) {
	p := s.packfilePath(name, idxSuffix)
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, time.Time{}, err
	}
	f, fi, err := regular(f, func() error { return fmt.Errorf("%s is not a regular file", p) })
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	if fi.Size() > int64(len(packfileMagic)+4+maxPackfileObjects*packfileEntry+packfileTrailer) {
		return nil, time.Time{}, fmt.Errorf("%s: too large for a packfile index", p)
	}
	b := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: %w", p, err)
	}
	ix, err := ParsePackfileIndex(b)
	if err != nil {
		return nil, time.Time{}, fmt.Errorf("%s: %w", p, err)
	}
	if ix.Packfile.Hex() != name {
		return nil, time.Time{}, fmt.Errorf("%s: it indexes the packfile %s", p, ix.Packfile.Hex())
	}
	return ix, fi.ModTime(), nil
}

// ReadPackfileIndex reads objects/packed/<name>.idx (name: 64 hex digits)
// for ctx fsck.
func (s *Store) ReadPackfileIndex(name string) (*PackfileIndex, error) {
	if err := s.CheckDir(filepath.Join(s.root, filepath.FromSlash(packfileDir))); err != nil {
		return nil, err
	}
	ix, _, err := s.readPackfileIndex(name)
	return ix, err
}
