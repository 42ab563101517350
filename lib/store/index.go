package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// The packs/ index holds one small entry per finalized pack, named by the
// pack's hex hash, so listing packs never reads every manifest. The store
// keeps the bytes; what an entry says is the pack package's business.

// WriteIndex writes the index entry of pack h atomically.
func (s *Store) WriteIndex(h Hash, entry []byte) error {
	return writeFileAtomic(filepath.Join(s.root, packsDir, h.Hex()), entry, 0o644)
}

// ReadIndex returns the index entry of pack h.
func (s *Store) ReadIndex(h Hash) ([]byte, error) {
	p := filepath.Join(s.root, packsDir, h.Hex())
	fi, err := os.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, &NotFoundError{Hash: h, What: "index entry of pack"}
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New(p + " is not a regular file")
	}
	return os.ReadFile(p)
}

// IndexedPacks returns the hashes that have an index entry, in directory
// order. Names that are not 64 hex digits are skipped.
func (s *Store) IndexedPacks() ([]Hash, error) {
	d, err := os.Open(filepath.Join(s.root, packsDir))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	out := make([]Hash, 0, len(names))
	for _, n := range names {
		if h, err := ParseHex(n); err == nil && h.Hex() == n {
			out = append(out, h)
		}
	}
	return out, nil
}
