package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// removedDir marks the packs 'ctx rm' took out of the index: removed/<hex>,
// one small file per pack, until 'ctx gc' deletes the pack's manifest. A
// manifest without an index entry is otherwise the trace of a pack whose
// writer was interrupted (ctx fsck reports it, --repair-index indexes it);
// the mark says it was removed on purpose. What a mark says is the pack
// package's business.
const removedDir = "removed"

// WriteRemoved marks pack h as removed, atomically.
func (s *Store) WriteRemoved(h Hash, data []byte) error {
	dir := filepath.Join(s.root, removedDir)
	if err := s.CheckDir(dir); err != nil {
		return err
	}
	if err := s.MkdirAll(dir); err != nil {
		return err
	}
	return s.writeFileAtomic(filepath.Join(dir, h.Hex()), data, 0o666)
}

// IsRemoved reports whether pack h carries a mark of removal.
func (s *Store) IsRemoved(h Hash) bool {
	if s.CheckDir(filepath.Join(s.root, removedDir)) != nil {
		return false
	}
	fi, err := os.Lstat(filepath.Join(s.root, removedDir, h.Hex()))
	return err == nil && fi.Mode().IsRegular()
}

// RemovedPacks returns the packs marked as removed, in directory order.
func (s *Store) RemovedPacks() ([]Hash, error) {
	return s.hashNames(filepath.Join(s.root, removedDir))
}

// DeleteRemoved takes the mark of removal off pack h (the pack is back in
// the index, or gone); no mark is not an error.
func (s *Store) DeleteRemoved(h Hash) error {
	return s.removeFile(filepath.Join(s.root, removedDir), h.Hex())
}

// DeleteRef removes the tag ref; a tag that does not exist gives a
// *NotFoundError-like error matching ErrNotFound.
func (s *Store) DeleteRef(ref string) error {
	return s.UpdateRef(ref, func(_ Hash, err error) (Hash, error) {
		if errors.Is(err, ErrNotFound) {
			return Hash{}, err
		}
		return Hash{}, nil // a damaged ref can still be deleted
	})
}

// Tags returns the names of the tags, in directory order, whatever they
// hold (ReadRef says).
func (s *Store) Tags() ([]string, error) {
	dir := filepath.Join(s.root, tagsDir)
	if err := s.CheckDir(dir); err != nil {
		return nil, err
	}
	names, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	out := names[:0]
	for _, n := range names {
		if CheckTagName(n) == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// removeFile removes the regular file name of dir, a directory of the store
// (never through a planted symlink), and syncs dir. A file already gone is
// not an error.
func (s *Store) removeFile(dir, name string) error {
	if err := s.CheckDir(dir); err != nil {
		return err
	}
	p := filepath.Join(dir, name)
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case fi.IsDir():
		return fmt.Errorf("%s is a directory where the store keeps a file (run 'ctx fsck')", p)
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	syncDir(dir)
	return nil
}
