package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// PlanRemovals tells the store every object ctx gc is about to remove, so
// that a packfile is rewritten once, without all of them, rather than
// once per object (RemoveObject).
func (x *Exclusive) PlanRemovals(hs []Hash) {
	x.planned = make(map[Hash]bool, len(hs))
	for _, h := range hs {
		x.planned[h] = true
	}
}

// remove takes h out of every packfile that holds it (two writers may
// each have packed it) and returns its size; an object removed already
// with an earlier one of its packfile gives the size it had.
func (l packfileLayout) remove(x *Exclusive, h Hash) (int64, error) {
	var size int64
	for range 16 {
		loc, stored, err := l.lookup(h, true)
		if err != nil {
			// Not packed (any more), or objects/packed planted: nothing
			// is deleted through it.
			break
		}
		n, err := l.removeFrom(x, h, loc, stored)
		if err != nil {
			return size, err
		}
		size = max(size, n)
	}
	if size == 0 {
		size = x.gone[h]
	}
	return size, nil
}

// removeFrom takes h out of the packfile at loc, stored at the time
// stored, with every other object of that packfile planned for removal:
// the objects it keeps are written to a new packfile (stored at the old
// one's time, so their age is kept), installed, and then the old
// packfile goes, its .idx first. It returns h's size.
func (l packfileLayout) removeFrom(x *Exclusive, h Hash, loc packfileLoc, stored time.Time) (int64, error) {
	s := l.s
	ix, _, err := s.readPackfileIndex(loc.file)
	if err != nil {
		return 0, err
	}
	var keep []PackfileEntry
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
		if err := s.rewritePackfile(loc.file, keep, stored); err != nil {
			return 0, err
		}
	}
	dir := filepath.Join(s.root, filepath.FromSlash(packfileDir))
	if err := os.Remove(s.packfilePath(loc.file, idxSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	if err := syncDirErr(dir); err != nil {
		return 0, err
	}
	if err := os.Remove(s.packfilePath(loc.file, dataSuffix)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return 0, err
	}
	s.packfiles.mu.Lock()
	s.refreshPackfiles(true)
	s.packfiles.mu.Unlock()
	for g, n := range goes {
		x.gone[g] = n
	}
	return goes[h], nil
}

// rewritePackfile writes the objects keep of the packfile name to a new
// packfile, installed with its .idx stored at the time stored.
func (s *Store) rewritePackfile(name string, keep []PackfileEntry, stored time.Time) error {
	p := s.packfilePath(name, dataSuffix)
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	f, _, err = regular(f, func() error { return fmt.Errorf("%s is not a regular file", p) })
	if err != nil {
		return err
	}
	defer f.Close()
	pw := newPackfileWriter()
	defer pw.discard()
	for _, e := range keep {
		b := make([]byte, e.Size)
		if _, err := f.ReadAt(b, e.Offset); err != nil {
			return fmt.Errorf("%s: object %s: %w", p, e.Hash, err)
		}
		if _, err := pw.add(s, e.Hash, b); err != nil {
			return err
		}
	}
	data, idx, newName, err := pw.finish(s)
	if err != nil {
		return err
	}
	if err := pw.closeData(); err != nil {
		return err
	}
	if err := s.syncPaths([]string{data, idx}, nil); err != nil {
		return err
	}
	_ = os.Chtimes(idx, stored, stored)
	return s.installPackfile(data, idx, newName)
}

// installPackfile puts a written packfile in place: the .pack first, made
// durable in objects/packed/, then the .idx, which makes its objects
// visible, made durable too. data and idx are synced temporary files;
// both are gone afterwards, renamed or removed.
func (s *Store) installPackfile(data, idx, name string) error {
	defer os.Remove(idx)
	dirs, err := s.placePackfile(data, name, dataSuffix)
	if err != nil {
		return err
	}
	if err := s.syncPaths(nil, dirs); err != nil {
		return err
	}
	if dirs, err = s.placePackfile(idx, name, idxSuffix); err != nil {
		return err
	}
	if err := s.syncPaths(nil, dirs); err != nil {
		return err
	}
	s.packfiles.mu.Lock()
	s.refreshPackfiles(true)
	s.packfiles.mu.Unlock()
	return nil
}
