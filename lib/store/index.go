package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
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
	for try := 0; try < 2; try++ {
		s.ilog.mu.Lock()
		// A pack no log names is looked for again in a fresh listing of
		// the logs: one may have been made in the same tick as the
		// listing before.
		err := s.refreshIndexLog(try > 0)
		var r record
		var logged bool
		if err == nil {
			var entry []byte
			entry, r, logged = s.ilog.lookup(h)
			buf = append(buf[:start], entry...)
		}
		where := ""
		if logged {
			where = s.ilog.where(r)
		}
		s.ilog.mu.Unlock()
		switch {
		case err != nil:
			return buf[:start], "", err
		case logged && r.len < 0:
			return buf[:start], "", &NotFoundError{Hash: h, What: "index entry of pack"}
		case logged:
			return buf, where, nil
		}
	}
	b, err := s.appendIndexFile(buf[:start], h)
	return b, packsDir + "/" + h.Hex(), err
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
	entries, err := s.indexEntries(false)
	out := make([]Hash, len(entries))
	for i, e := range entries {
		out[i] = e.Hash
	}
	return out, err
}

// IndexPlaces returns the packs that have an index entry and where each
// entry lies, without reading the entries of files.
func (s *Store) IndexPlaces() ([]IndexedEntry, error) { return s.indexEntries(false) }

// IndexedEntry is one pack of the index and the bytes of its entry.
type IndexedEntry struct {
	Hash  Hash
	Entry []byte // nil when Err is set, or when not read (IndexedPacks)
	Err   error  // the entry's file could not be read
	Where string // relative to the store: the log it is in, or packs/<hex>
}

// IndexEntries returns every entry of the index, read at once: ctx log
// and ctx fsck read thousands of them. The bytes must not be changed.
func (s *Store) IndexEntries() ([]IndexedEntry, error) { return s.indexEntries(true) }

func (s *Store) indexEntries(read bool) ([]IndexedEntry, error) {
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
	if err := s.refreshIndexLog(true); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	out := make([]IndexedEntry, 0, len(l.order)+len(names))
	for _, h := range l.order {
		entry, r, _ := l.lookup(h)
		if r.len >= 0 {
			e := IndexedEntry{Hash: h, Where: l.where(r)}
			if read {
				e.Entry = entry
			}
			out = append(out, e)
		}
	}
	fromLog := len(out)
	for _, n := range names {
		if h, ok := parseLowerHex(n); ok {
			if _, logged := l.last[h]; !logged {
				out = append(out, IndexedEntry{Hash: h, Where: packsDir + "/" + n})
			}
		}
	}
	l.mu.Unlock()
	if read {
		s.readIndexFiles(out[fromLog:])
	}
	return out, nil
}

// readIndexFiles reads the entries of earlier versions' files with a few
// goroutines: the time goes into system calls (open, stat, read, close
// per entry), which overlap.
func (s *Store) readIndexFiles(entries []IndexedEntry) {
	workers := min(runtime.GOMAXPROCS(0), 4, len(entries)/512+1)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for i := w; i < len(entries); i += workers {
				e := &entries[i]
				var err error
				start := len(buf)
				buf, err = s.appendIndexFile(buf, e.Hash)
				if err != nil {
					e.Err = err
					continue
				}
				e.Entry = buf[start:len(buf):len(buf)]
			}
		}()
	}
	wg.Wait()
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
