package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The cache/ directory holds data derived from the rest of the store, kept
// only to make reads faster (the whole packs/ index in one file for ctx log).
// It is never the source of truth: every cache file may be deleted at any
// time, and its reader must check it against what it summarises.
const cacheDir = "cache"

// CacheDir returns the directory of derived, disposable data.
func (s *Store) CacheDir() string { return filepath.Join(s.root, cacheDir) }

// checkCacheName keeps cache names to one plain file name inside cache/.
func checkCacheName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") {
		return fmt.Errorf("%q is not a cache file name", name)
	}
	return nil
}

// ReadCache returns the bytes of cache file name, or an error matching
// fs.ErrNotExist when there is none. A cache file that is not a regular file
// is reported as an error, never followed.
func (s *Store) ReadCache(name string) ([]byte, error) {
	if err := checkCacheName(name); err != nil {
		return nil, err
	}
	if err := s.CheckDir(filepath.Join(s.root, cacheDir)); err != nil {
		return nil, err
	}
	p := filepath.Join(s.root, cacheDir, name)
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errors.New(p + " is not a regular file")
	}
	return os.ReadFile(p)
}

// WriteCache replaces cache file name atomically (temporary file in cache/,
// then rename), creating cache/ when needed.
func (s *Store) WriteCache(name string, data []byte) error {
	if err := checkCacheName(name); err != nil {
		return err
	}
	dir := filepath.Join(s.root, cacheDir)
	if err := s.CheckDir(dir); err != nil {
		return err
	}
	if err := s.MkdirAll(dir); err != nil {
		return err
	}
	return s.writeFileAtomic(filepath.Join(dir, name), data, 0o666)
}

// IndexStamp identifies a state of the index, for caches of it: whenever
// an entry is appended to a log, the log gets a new size, modification
// and inode change time; whenever a file of packs/ (a log, or an earlier
// version's entry) is added, replaced or removed, the directory gets a new
// modification time and, where the platform reports it, a new inode
// change time, which no program can set back.
type IndexStamp struct {
	// Key is the identity of the directory and its times, as one word; ""
	// when there is no packs/ directory.
	Key string
	// Changed is the latest of those times: a cache made within a clock
	// tick or so of it may miss a change made in the same tick.
	Changed time.Time
	// Complete is true when Key includes the inode change time, so the same
	// Key means the same entries; when false, a cache must also compare the
	// names of the entries (a copy with 'cp -a' can set the modification
	// time back).
	Complete bool
}

// IndexStamp returns the stamp of the index as it is now: of packs/ and
// of each log in it.
func (s *Store) IndexStamp() (IndexStamp, error) {
	dir := filepath.Join(s.root, packsDir)
	fi, err := os.Stat(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return IndexStamp{}, nil
		}
		return IndexStamp{}, err
	}
	stamp := stampOf(fi)
	names, err := s.indexLogNames()
	if err != nil {
		return IndexStamp{}, err
	}
	for _, n := range names {
		fi, err := os.Lstat(filepath.Join(dir, n))
		if errors.Is(err, fs.ErrNotExist) {
			continue // compacted: packs/ changed too
		}
		if err != nil {
			return IndexStamp{}, err
		}
		ls := stampOf(fi)
		stamp.Key += fmt.Sprintf(",%s.%d.%s", n, fi.Size(), ls.Key)
		stamp.Complete = stamp.Complete && ls.Complete
		if ls.Changed.After(stamp.Changed) {
			stamp.Changed = ls.Changed
		}
	}
	return stamp, nil
}

// RemoveCache removes cache file name; one that is not there is no error.
func (s *Store) RemoveCache(name string) error {
	if err := checkCacheName(name); err != nil {
		return err
	}
	dir := filepath.Join(s.root, cacheDir)
	if err := s.CheckDir(dir); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
