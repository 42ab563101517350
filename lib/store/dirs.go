package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PlantedError says that where the store keeps a directory there is
// something else: a symlink (to anywhere, often out of the store) or a
// file. The store never reads or writes through it.
type PlantedError struct {
	Path string // the path of the symlink or file
	What string // "a symlink" or "not a directory"
}

// Error names what was found where the store keeps a directory.
func (e *PlantedError) Error() string {
	return fmt.Sprintf("%s is %s where the store keeps a directory: the store never reads or writes through it (run 'ctx fsck')", e.Path, e.What)
}

// CheckDir returns a *PlantedError unless dir, a directory of the store,
// and every directory between it and the store root are real directories,
// not symlinks: a symlink planted there would lead reads and writes out of
// the store. A directory that does not exist yet passes (it can only be
// made, as a real directory, under the part that was checked). The store
// root itself may be a symlink, which its owner chose.
func (s *Store) CheckDir(dir string) error {
	rel, err := filepath.Rel(s.root, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is not inside the store %s", dir, s.root)
	}
	if rel == "." {
		return nil
	}
	p := s.root
	for _, el := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, el)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return &PlantedError{Path: p, What: "a symlink"}
		case !fi.IsDir():
			return &PlantedError{Path: p, What: "not a directory"}
		}
	}
	return nil
}
