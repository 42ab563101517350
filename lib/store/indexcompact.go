package store

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Compacted is what CompactIndex did.
type Compacted struct {
	Packs   int // packs of the index, now one record each in one log
	Records int // records the logs held, superseded ones and removals included
	Logs    int // logs replaced
	Folded  int // files of packs/ (an earlier version's entries) folded in and removed
	Skipped int // lines of the logs that failed their checksum, dropped
}

// CompactIndex rewrites the index as one log when the store can be held
// alone at once (no writer can be appending); it returns ErrBusy when it
// cannot. For ctx fsck --repair-index.
func (s *Store) CompactIndex() (Compacted, error) {
	unlock, err := s.TryLockAlone()
	if err != nil {
		return Compacted{}, err
	}
	defer unlock()
	return s.compactIndex()
}

// CompactIndex rewrites the index as one log, for ctx gc, which holds the
// store alone.
func (x *Exclusive) CompactIndex() (Compacted, error) { return x.s.compactIndex() }

// readLogWhole reads the log at p, which must still be the file lf was
// read from, up to where it was read.
func (s *Store) readLogWhole(p string, lf logFile) ([]byte, error) {
	f, err := openLog(p, lf)
	if errors.As(err, new(replacedError)) {
		return nil, fmt.Errorf("%s was replaced while the index was compacted", p)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, lf.off)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return b, nil
}

// compactIndex writes the latest record of each pack, the logs' and the
// files of packs/ together, sorted by hash, to a new log, makes it
// durable, then removes the other logs and the files it folded in. A
// crash part way leaves the new log beside what it replaces, which read
// together say the same: the records keep their times, and a removal is
// kept as long as a log or file that may still hold the pack is there
// beside it. Nothing is written when the index is one log of one record
// per pack already.
func (s *Store) compactIndex() (Compacted, error) {
	var c Compacted
	dir := filepath.Join(s.root, packsDir)
	if err := s.CheckDir(dir); err != nil {
		return c, err
	}
	names, err := readNames(dir)
	if err != nil {
		return c, err
	}
	l := &s.ilog
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := s.refreshIndexLog(true); err != nil {
		return c, err
	}
	c.Records, c.Skipped, c.Logs = l.records, l.bad, len(l.names)
	now := l.stamp()
	type rec struct {
		h     Hash
		entry []byte
		time  int64
	}
	// The logs whole: the store is held alone, and the compacted log is
	// built in memory anyway.
	logs := make([][]byte, len(l.names))
	for i, n := range l.names {
		if logs[i], err = s.readLogWhole(filepath.Join(dir, n), l.files[i]); err != nil {
			return c, err
		}
	}
	var recs []rec
	removals := 0
	for h, r := range l.last {
		var entry []byte
		if r.len < 0 {
			removals++
		} else {
			entry = logs[r.log][r.off : r.off+int64(r.len)]
		}
		recs = append(recs, rec{h: h, entry: entry, time: r.time})
	}
	var folded []string
	files := 0
	for _, n := range names {
		h, ok := parseLowerHex(n)
		if !ok {
			continue
		}
		files++
		if _, logged := l.last[h]; logged {
			folded = append(folded, n) // superseded by a record
			continue
		}
		b, err := s.appendIndexFile(nil, h)
		if err != nil || bytes.ContainsRune(bytes.TrimSuffix(b, []byte("\n")), '\n') {
			continue // left as it is: fsck reports it
		}
		recs = append(recs, rec{h: h, entry: bytes.TrimSuffix(b, []byte("\n")), time: now})
		folded = append(folded, n)
	}
	c.Folded = len(folded)
	c.Packs = len(recs) - removals
	if c.Logs <= 1 && c.Folded == 0 && c.Skipped == 0 && c.Records == c.Packs {
		return Compacted{Packs: c.Packs, Records: c.Records, Logs: c.Logs}, nil // compact already
	}
	// A removal is kept while something it overrides may stay: another
	// log, or a file of packs/.
	others := c.Logs > 1 || files > 0
	sort.Slice(recs, func(i, j int) bool { return bytes.Compare(recs[i].h[:], recs[j].h[:]) < 0 })
	var b []byte
	for _, r := range recs {
		if r.entry == nil && !others {
			continue
		}
		b = appendRecord(b, IndexRecord{Hash: r.h, Entry: r.entry}, r.time)
	}
	f, err := s.writeTempIn(dir, ".tmp-", b, 0o666)
	if err != nil {
		return c, err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := s.fault(faultSync, tmp, 0); err != nil {
		f.Close()
		return c, err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return c, err
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return c, err
	}
	final := filepath.Join(dir, IndexLogPrefix+hex.EncodeToString(id[:])+IndexLogSuffix)
	if err := s.fault(faultRename, final, 0); err != nil {
		return c, err
	}
	if err := renameNoReplace(tmp, final); err != nil {
		return c, err
	}
	if err := s.syncPaths(nil, []string{dir}); err != nil {
		return c, err
	}
	// The new log is durable: what it replaces can go.
	for _, n := range append(append([]string(nil), l.names...), folded...) {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return c, err
		}
	}
	l.reset()
	return c, s.syncPaths(nil, []string{dir})
}
