package store

import (
	"errors"
	"fmt"
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

// packfileLayout is the layout of packed objects: sections of the .pack
// files of objects/packed/, found through their .idx files (see
// packfile_index.go).
type packfileLayout struct{ s *Store }

// packfileLoc is where a packed object is: its packfile's name (<hex>,
// without suffix) and its place in the .pack.
type packfileLoc struct {
	file      string
	off, size int64
}

// packfileSet is what a Store knows of objects/packed/: the .idx files
// read, and every object in them. It is read when first needed and again
// when an object is looked for and not found (another writer may have
// committed it since).
type packfileSet struct {
	mu      sync.Mutex
	loaded  bool
	planted bool                 // objects/packed is a symlink or a file
	stamp   time.Time            // objects/packed/'s mtime when last listed
	files   map[string]time.Time // <hex> -> its .idx's mtime (when it was stored)
	byHash  map[Hash]packfileLoc
}

// forgetListings drops what is known of objects/packed/ and the listing
// of loose objects, to be read again: what was read before the write
// lock was taken (or taken alone) may be stale.
func (s *Store) forgetListings() {
	s.packfiles.mu.Lock()
	s.packfiles.loaded, s.packfiles.files, s.packfiles.byHash = false, nil, nil
	s.packfiles.mu.Unlock()
	s.listed.forget()
}

// lookup finds h among the packed objects. sure re-lists objects/packed/
// on a miss (a read must not miss an object committed a moment ago);
// without it a miss looks no further than the listing read since the
// write lock was taken, which is what a writer deduplicating wants: an
// object another writer packed meanwhile is stored again, which is
// harmless. Not found is a *NotFoundError; objects/packed planted (a
// symlink or a file), a *CorruptError.
func (l packfileLayout) lookup(h Hash, sure bool) (packfileLoc, time.Time, error) {
	p := &l.s.packfiles
	p.mu.Lock()
	defer p.mu.Unlock()
	loc, ok := p.byHash[h]
	if !ok && (!p.loaded || sure) {
		l.s.refreshPackfiles(sure)
		loc, ok = p.byHash[h]
	}
	if ok {
		return loc, p.files[loc.file], nil
	}
	if p.planted {
		dir := filepath.Join(l.s.root, filepath.FromSlash(packfileDir))
		return packfileLoc{}, time.Time{}, &CorruptError{Hash: h, Path: packfileDir, Detail: plantedDetail(dir)}
	}
	return packfileLoc{}, time.Time{}, &NotFoundError{Hash: h}
}

// refreshPackfiles re-reads the listing of objects/packed/ (the set's mu
// held); without sure, only when the directory changed since. Damaged
// .idx files are skipped here: ctx fsck reports them.
func (s *Store) refreshPackfiles(sure bool) {
	p := &s.packfiles
	dir := filepath.Join(s.root, filepath.FromSlash(packfileDir))
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		p.loaded, p.files, p.byHash = true, nil, nil
		p.planted = err == nil
		return
	}
	p.planted = false
	if p.loaded && !sure && fi.ModTime().Equal(p.stamp) {
		return
	}
	names, err := readNames(dir)
	if err != nil {
		return
	}
	p.stamp = fi.ModTime()
	now := map[string]bool{}
	if p.files == nil {
		p.files, p.byHash = map[string]time.Time{}, map[Hash]packfileLoc{}
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
		ix, stored, err := s.readPackfileIndex(name)
		if err != nil {
			continue
		}
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
		// Objects of a packfile gc replaced may be in another: index again.
		for h, loc := range p.byHash {
			if !now[loc.file] {
				delete(p.byHash, h)
			}
		}
		for name := range p.files {
			if ix, _, err := s.readPackfileIndex(name); err == nil {
				p.add(name, ix)
			}
		}
	}
	p.loaded = true
}

// add records the objects of the packfile name (p.mu held); an object
// already known in another packfile keeps that place.
func (p *packfileSet) add(name string, ix *PackfileIndex) {
	for _, e := range ix.Entries {
		if _, dup := p.byHash[e.Hash]; !dup {
			p.byHash[e.Hash] = packfileLoc{file: name, off: e.Offset, size: e.Size}
		}
	}
}

// open opens the packed copy of h: a section of its .pack, which must be
// a regular file reached without following a symlink, within the file's
// size.
func (l packfileLayout) open(h Hash) (located, error) {
	s := l.s
	for try := 0; ; try++ {
		loc, stored, err := l.lookup(h, true)
		if err != nil {
			return located{}, err
		}
		where := packfileDir + "/" + loc.file + dataSuffix
		p := s.packfilePath(loc.file, dataSuffix)
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if errors.Is(err, fs.ErrNotExist) && try == 0 {
			// ctx gc replaced the packfile since it was listed: look again.
			s.forgetListings()
			continue
		}
		if err != nil {
			if errors.Is(err, syscall.ELOOP) {
				return located{}, &CorruptError{Hash: h, Path: where, Detail: fmt.Sprintf("%s is a symlink, which the store never follows", p)}
			}
			return located{}, err
		}
		f, fi, err := regular(f, func() error { return &CorruptError{Hash: h, Path: where, Detail: p + " is not a regular file"} })
		if err != nil {
			return located{}, err
		}
		if loc.off+loc.size > fi.Size() {
			f.Close()
			return located{}, &CorruptError{Hash: h, Path: where, Detail: fmt.Sprintf("%s ends before the object's %d bytes at offset %d", p, loc.size, loc.off)}
		}
		return located{r: sectionFile{io.NewSectionReader(f, loc.off, loc.size), f}, size: loc.size, stored: stored, where: where}, nil
	}
}

// sectionFile is a section of an open file, closed with it.
type sectionFile struct {
	*io.SectionReader
	f *os.File
}

func (s sectionFile) Close() error { return s.f.Close() }

func (l packfileLayout) dir(Hash) string {
	return filepath.Join(l.s.root, filepath.FromSlash(packfileDir))
}

func (l packfileLayout) size(h Hash, sure bool) (int64, error) {
	loc, _, err := l.lookup(h, sure)
	return loc.size, err
}

// names lists the objects of every packfile whose .idx is in place; the
// .idx files that cannot be read, and objects/packed/ when it cannot be
// listed, are returned as DirErrors.
func (l packfileLayout) names() ([]Hash, []*DirError, error) {
	files, err := l.s.packfileNames()
	if err != nil {
		return nil, []*DirError{{Dir: packfileDir, Err: err}}, nil
	}
	var out []Hash
	var bad []*DirError
	seen := map[Hash]bool{}
	for _, name := range files {
		ix, _, err := l.s.readPackfileIndex(name)
		if err != nil {
			bad = append(bad, &DirError{Dir: packfileDir + "/" + name + idxSuffix, Err: err})
			continue
		}
		for _, e := range ix.Entries {
			if !seen[e.Hash] {
				seen[e.Hash] = true
				out = append(out, e.Hash)
			}
		}
	}
	return out, bad, nil
}

func (l packfileLayout) withPrefix(prefix string) ([]Hash, error) {
	if err := l.s.CheckDir(filepath.Join(l.s.root, filepath.FromSlash(packfileDir))); err != nil {
		return nil, err
	}
	p := &l.s.packfiles
	p.mu.Lock()
	defer p.mu.Unlock()
	l.s.refreshPackfiles(true)
	var out []Hash
	for h := range p.byHash {
		if strings.HasPrefix(h.Hex(), prefix) {
			out = append(out, h)
		}
	}
	return out, nil
}

func (l packfileLayout) holdsAny() (bool, error) {
	files, err := l.s.packfileNames()
	return len(files) > 0, err
}

// packfileNames lists the names (<hex>) of the packfiles whose .idx is in
// place, sorted.
func (s *Store) packfileNames() ([]string, error) {
	dir := filepath.Join(s.root, filepath.FromSlash(packfileDir))
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

// orphanPackfiles reports whether objects/packed/ holds a .pack without
// its .idx: a commit that failed or was killed between the two (its
// objects were never visible), for the next writer alone to sweep.
func (s *Store) orphanPackfiles() bool {
	dir := filepath.Join(s.root, filepath.FromSlash(packfileDir))
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
		if name, ok := strings.CutSuffix(n, dataSuffix); ok && !idx[name] {
			return true
		}
	}
	return false
}

// OrphanPackfile reports whether rel is a packfile's .pack without its
// .idx: what a write interrupted between the two renames leaves, whose
// objects were never visible.
func (s *Store) OrphanPackfile(rel string) bool {
	k, _, _ := Classify(rel)
	idx, ok := strings.CutSuffix(rel, dataSuffix)
	if k != KindPackfile || !ok {
		return false
	}
	_, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(idx+idxSuffix)))
	return errors.Is(err, fs.ErrNotExist)
}
