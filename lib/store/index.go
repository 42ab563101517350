package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
)

// The packs/ index holds one small entry per pack, so listing packs never
// reads every manifest: in the index log, packs/index.log, and, in stores
// written by earlier versions, in one file per pack, packs/<hex>
// (indexlog.go says how the two are read together). The store keeps the
// bytes; what an entry says is the pack package's business.

// WriteIndex writes the index entry of pack h: one record appended to the
// index log, made durable before it returns.
func (s *Store) WriteIndex(h Hash, entry []byte) error {
	return s.WriteIndexes([]IndexRecord{{Hash: h, Entry: entry}})
}

// WriteIndexes appends several records to the index log at once, for
// imports and repairs of many packs: one write, one sync. A crash before
// the sync ends may keep some of them; a record is read whole or not at
// all (its checksum), so 'ctx fsck --repair-index' rebuilds what is lost.
func (s *Store) WriteIndexes(recs []IndexRecord) error {
	files, dirs, err := s.appendIndexRecords(recs)
	if err != nil {
		return err
	}
	return s.syncPaths(files, dirs)
}

// DeleteIndex takes pack h out of the index: a record of removal in the
// log, then the file of an earlier version's entry removed, if any; none
// is not an error.
func (s *Store) DeleteIndex(h Hash) error {
	if err := s.WriteIndexes([]IndexRecord{{Hash: h}}); err != nil {
		return err
	}
	return s.removeFile(filepath.Join(s.root, packsDir), h.Hex())
}

// ReadIndex returns the index entry of pack h.
func (s *Store) ReadIndex(h Hash) ([]byte, error) { return s.AppendIndex(nil, h) }

// AppendIndex appends the index entry of pack h to buf and returns the
// result: what the logs say of h last, else the file packs/<hex>.
func (s *Store) AppendIndex(buf []byte, h Hash) ([]byte, error) {
	b, _, err := s.appendIndex(buf, h)
	return b, err
}

// appendIndex is AppendIndex, also saying where the entry lies.
func (s *Store) appendIndex(buf []byte, h Hash) ([]byte, string, error) {
	start := len(buf)
	for try := 0; try < 3; try++ {
		s.ilog.mu.Lock()
		// A pack no log names is looked for again in a fresh listing of
		// the logs: one may have been made in the same tick as the
		// listing before; so is one whose log was compacted meanwhile.
		err := s.refreshIndexLog(try > 0)
		var r record
		var logged bool
		where := ""
		if err == nil {
			if r, logged = s.ilog.lookup(h); logged && r.len >= 0 {
				buf, err = s.readEntry(buf[:start], r)
			}
			if logged {
				where = s.ilog.where(r)
			}
		}
		s.ilog.mu.Unlock()
		switch {
		case errors.As(err, new(replacedError)):
			continue
		case err != nil:
			return buf[:start], "", err
		case logged && r.len < 0:
			return buf[:start], "", &NotFoundError{Hash: h, What: "index entry of pack"}
		case logged:
			return buf, where, nil
		case try > 0:
			b, err := s.appendIndexFile(buf[:start], h)
			return b, packsDir + "/" + h.Hex(), err
		}
	}
	return buf[:start], "", fmt.Errorf("%s: the index logs changed while the entry of %s was read, again and again", filepath.Join(s.root, packsDir), h)
}

// IndexWhere names, relative to the store, where the index entry of pack
// h is kept: a log, or the file of an earlier version.
func (s *Store) IndexWhere(h Hash) string {
	if _, where, err := s.appendIndex(nil, h); err == nil {
		return where
	}
	return packsDir + "/" + h.Hex()
}

// IndexedPacks returns the hashes that have an index entry: those of the
// logs in the order their first record was read, then those of packs/
// files.
func (s *Store) IndexedPacks() ([]Hash, error) {
	places, err := s.IndexPlaces()
	out := make([]Hash, len(places))
	for i, p := range places {
		out[i] = p.Hash
	}
	return out, err
}

// IndexPlace is one pack of the index and where its entry lies.
type IndexPlace struct {
	Hash  Hash
	Where string    // relative to the store: the log it is in, or packs/<hex>
	rec   *logEntry // in a log: where exactly
}

// logEntry is where an entry lies in a log: the log as it was read, and
// the entry's place in it.
type logEntry struct {
	log      string
	dev, ino uint64
	off      int64
	len      int32
}

// IndexPlaces returns the packs that have an index entry and where each
// entry lies, without reading the entries (ReadIndexEntries reads them).
func (s *Store) IndexPlaces() ([]IndexPlace, error) {
	dir := filepath.Join(s.root, packsDir)
	if err := s.CheckDir(dir); err != nil {
		return nil, err
	}
	names, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	l := &s.ilog
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := s.refreshIndexLog(true); err != nil {
		return nil, err
	}
	out := make([]IndexPlace, 0, len(l.order)+len(names))
	for _, h := range l.order {
		if r, _ := l.lookup(h); r.len >= 0 {
			f := l.files[r.log]
			out = append(out, IndexPlace{Hash: h, Where: l.where(r),
				rec: &logEntry{log: l.names[r.log], dev: f.dev, ino: f.ino, off: r.off, len: r.len}})
		}
	}
	for _, n := range names {
		if h, ok := parseLowerHex(n); ok {
			if _, logged := l.last[h]; !logged {
				out = append(out, IndexPlace{Hash: h, Where: packsDir + "/" + n})
			}
		}
	}
	return out, nil
}

// entryChunk is a piece of a log and the places whose entries lie in it.
type entryChunk struct {
	data  []byte
	base  int64 // data's offset in the log
	items []int // in places
}

// ReadIndexEntries reads the entries of places and calls fn with each: i
// its position in places, and its bytes, valid only during the call, or
// why it could not be read. A log is read a chunk at a time and the files
// of an earlier version one at a time, so neither the index nor a log is
// ever whole in memory; fn is called from a few goroutines at once. ctx
// log and ctx fsck read every entry this way.
func (s *Store) ReadIndexEntries(places []IndexPlace, fn func(i int, entry []byte, err error)) {
	chunks := make(chan entryChunk, 2)
	files := make(chan int, 64)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 4, len(places)/512+1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for c, f := chunks, files; c != nil || f != nil; {
				select {
				case ch, ok := <-c:
					if !ok {
						c = nil
						continue
					}
					for _, i := range ch.items {
						e := places[i].rec
						fn(i, ch.data[e.off-ch.base:e.off-ch.base+int64(e.len)], nil)
					}
				case i, ok := <-f:
					if !ok {
						f = nil
						continue
					}
					var err error
					buf, err = s.appendIndexFile(buf[:0], places[i].Hash)
					fn(i, buf, err)
				}
			}
		}()
	}
	go func() {
		for i, p := range places {
			if p.rec == nil {
				files <- i
			}
		}
		close(files)
	}()
	byLog := map[string][]int{}
	for i, p := range places {
		if p.rec != nil {
			byLog[p.rec.log] = append(byLog[p.rec.log], i)
		}
	}
	var moved []int // entries whose log was replaced since it was listed
	for log, items := range byLog {
		moved = append(moved, s.readLogEntries(log, places, items, chunks)...)
	}
	close(chunks)
	wg.Wait()
	// A log compacted meanwhile: those entries are looked up again.
	for _, i := range moved {
		b, err := s.ReadIndex(places[i].Hash)
		fn(i, b, err)
	}
}

// readLogEntries reads log a chunk at a time and sends each chunk with the
// places (items) whose entries it holds. It returns the items it could not
// read from the log as it was listed (replaced by a compaction since).
func (s *Store) readLogEntries(log string, places []IndexPlace, items []int, out chan<- entryChunk) []int {
	e := places[items[0]].rec
	f, err := openLog(filepath.Join(s.root, packsDir, log), logFile{dev: e.dev, ino: e.ino})
	if err != nil {
		return items
	}
	defer f.Close()
	sort.Slice(items, func(a, b int) bool { return places[items[a]].rec.off < places[items[b]].rec.off })
	for k := 0; k < len(items); {
		base := places[items[k]].rec.off
		end, n := base, k
		for ; n < len(items); n++ {
			e := places[items[n]].rec
			if n > k && e.off+int64(e.len)-base > logChunk {
				break
			}
			end = max(end, e.off+int64(e.len))
		}
		data := make([]byte, end-base)
		if _, err := f.ReadAt(data, base); err != nil {
			return items[k:]
		}
		out <- entryChunk{data: data, base: base, items: items[k:n]}
		k = n
	}
	return nil
}

// hashNames returns the names of dir, a directory of the store, that are
// 64 lower-case hex digits, in directory order; none when there is no
// such directory.
func (s *Store) hashNames(dir string) ([]Hash, error) {
	if err := s.CheckDir(dir); err != nil {
		return nil, err
	}
	names, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	out := make([]Hash, 0, len(names))
	for _, n := range names {
		if h, ok := parseLowerHex(n); ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// readNames returns the names in directory dir, in directory order; none
// when there is no such directory.
func readNames(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// parseLowerHex parses a name that is exactly 64 lower-case hex digits, the
// only form an index entry is written under, without allocating: ctx log
// runs it on every name of packs/.
func parseLowerHex(n string) (Hash, bool) {
	var h Hash
	return h, DecodeLowerHex(h[:], n)
}

// lowerHexValue maps a byte to its value as a lower-case hex digit, 0xff
// for anything else. A constant string is a lookup table without a
// package-level variable.
const lowerHexValue = "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x0a\x0b\x0c\x0d\x0e\x0f\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff"
