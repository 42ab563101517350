package store

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// The index of packs, packs/, is kept in two forms, read together:
//
//   - index logs, packs/index-<16 hex>.log: one record per change of an
//     entry (a pack indexed or stamped again, a pack taken out by ctx
//     rm), appended with O_APPEND by every writer, a commit's records in
//     one write and one sync. A store has one log; one made elsewhere and
//     copied in (two stores merged with cp -R) is a second, read as well;
//   - packs/<hex>, one file per pack, the form earlier versions wrote,
//     still read, never written again: ctx gc and ctx fsck --repair-index
//     fold them into a log (CompactIndex).
//
// A record of a log is one line:
//
//	<crc> + <hex> <time> <entry>   pack <hex> has the entry <entry> (one line of JSON)
//	<crc> - <hex> <time>           pack <hex> has no entry
//
// where <time> is when the record was written (Unix nanoseconds) and
// <crc> the CRC-32C of the rest of the line (after "<crc> "), as 8
// lower-case hex digits. Each append starts with a newline, so the first
// record of the next append stands on its own line after a torn one. A
// line that fails its checksum (a writer killed or a machine stopped in
// the middle of a write, or damage) is skipped; a line without its
// newline at the end of a log is not read yet (a write in progress, or
// torn: the next append ends it).
//
// For each pack the latest record of the logs decides, by its time;
// between records of the same time, the later log by name, then the later
// line. So the logs of two stores merged read as one index. A file
// packs/<hex> counts only for a pack no log has a record of: this
// version never writes one, and an earlier version that writes one
// beside a log (packing again a pack the log has, removing one, repairing
// one) is not heard for that pack.
//
// CompactIndex rewrites the whole index as one log, while the store is
// held alone (no writer can be appending): the latest record of each
// pack, sorted by hash; then the other logs and the files of packs/ go.

// IndexLogPrefix and IndexLogSuffix frame the name of an index log in
// packs/: never 64 hex digits, so earlier versions, which list packs/ by
// such names, pass over it.
const (
	IndexLogPrefix = "index-"
	IndexLogSuffix = ".log"
)

// isIndexLogName reports whether name is that of an index log.
func isIndexLogName(name string) bool {
	id, ok := strings.CutPrefix(name, IndexLogPrefix)
	if !ok {
		return false
	}
	id, ok = strings.CutSuffix(id, IndexLogSuffix)
	return ok && isLowerHex(id, 16)
}

// IndexRecord is one change of the index: pack Hash gets Entry (the bytes
// of its entry, one line), or, with a nil Entry, leaves the index.
type IndexRecord struct {
	Hash  Hash
	Entry []byte
}

// record is the latest record of a pack as read: when it was written,
// the log it lies in (its number in indexLog.names), and where its entry
// lies in that log (len -1 for a record of removal). The entry's bytes are
// not kept: they are read again from the log when asked for, so a
// process that reads the index holds a few dozen bytes per pack, not the
// log.
type record struct {
	time int64
	off  int64
	log  int32
	len  int32
}

// logFile is what was read of one log: which file it is, and how far it
// was read (to the end of its last complete line).
type logFile struct {
	dev, ino uint64
	off      int64
}

// indexLog is what a Store has read of the index logs: the latest
// record of each pack among them.
type indexLog struct {
	mu      sync.Mutex
	dir     string   // the stamp of packs/ when the logs were listed
	names   []string // the logs, sorted
	files   []logFile
	last    map[Hash]record
	order   []Hash // packs in the order their first record was read
	records int    // records read
	bad     int    // lines that failed their checksum
	clock   int64  // the latest time of a record written by this process
}

func castagnoli() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) }

// appendRecord appends r, written at t, as a line of a log to b.
func appendRecord(b []byte, r IndexRecord, t int64) []byte {
	start := len(b)
	b = append(b, "00000000 "...)
	body := len(b)
	if r.Entry == nil {
		b = append(b, "- "...)
	} else {
		b = append(b, "+ "...)
	}
	b = hex.AppendEncode(b, r.Hash[:])
	b = append(b, ' ')
	b = strconv.AppendInt(b, t, 10)
	if r.Entry != nil {
		b = append(b, ' ')
		b = append(b, bytes.TrimSuffix(r.Entry, []byte("\n"))...)
	}
	sum := crc32.Checksum(b[body:], castagnoli())
	hex.Encode(b[start:start+8], []byte{byte(sum >> 24), byte(sum >> 16), byte(sum >> 8), byte(sum)})
	return append(b, '\n')
}

// parseRecord reads one line of a log (without its newline): the pack,
// the record's time, and where its entry lies in line (from, to), or to
// == -1 for a removal.
func parseRecord(line []byte) (h Hash, t int64, from, to int, ok bool) {
	const head = 8 + 1 + 2 + 64 // "<crc> + <hex>"
	if len(line) < head+2 || line[8] != ' ' || line[10] != ' ' || line[head] != ' ' {
		return h, 0, 0, 0, false
	}
	var s [4]byte
	if !DecodeLowerHex(s[:], line[:8]) {
		return h, 0, 0, 0, false
	}
	want := uint32(s[0])<<24 | uint32(s[1])<<16 | uint32(s[2])<<8 | uint32(s[3])
	if crc32.Checksum(line[9:], castagnoli()) != want {
		return h, 0, 0, 0, false
	}
	if !DecodeLowerHex(h[:], line[11:head]) {
		return h, 0, 0, 0, false
	}
	rest := line[head+1:]
	tf, entry, hasEntry := bytes.Cut(rest, []byte{' '})
	t, err := strconv.ParseInt(string(tf), 10, 64)
	if err != nil {
		return h, 0, 0, 0, false
	}
	switch {
	case line[9] == '-' && !hasEntry:
		return h, t, 0, -1, true
	case line[9] == '+' && hasEntry:
		return h, t, len(line) - len(entry), len(line), true
	}
	return h, 0, 0, 0, false
}

// DecodeLowerHex fills dst from exactly 2*len(dst) lower-case hex digits,
// the only spelling the store writes, with a table lookup per digit and no
// branch (branching on digit or letter mispredicts on random hex):
// readers run it on every name of packs/, every record of a log, every
// line of ctx log's cache.
func DecodeLowerHex[T string | []byte](dst []byte, src T) bool {
	if len(src) != 2*len(dst) {
		return false
	}
	bad := byte(0)
	for i := range dst {
		hi, lo := lowerHexValue[src[2*i]], lowerHexValue[src[2*i+1]]
		bad |= hi | lo
		dst[i] = hi<<4 | lo&0x0f
	}
	return bad&0xf0 == 0
}

// reset forgets what was read (a log was replaced, added or removed).
func (l *indexLog) reset() {
	l.dir, l.names, l.files, l.order, l.records, l.bad = "", nil, nil, nil, 0, 0
	l.last = map[Hash]record{}
}

// olderThan reports whether a record of time t read from log n replaces
// r.
func (r record) olderThan(t int64, log int32) bool {
	return t > r.time || t == r.time && log >= r.log
}

// parse takes the complete lines of data, the bytes of log n from its
// offset base on, and returns how many of them it consumed.
func (l *indexLog) parse(n int32, data []byte, base int64) int {
	used := 0
	for {
		i := bytes.IndexByte(data[used:], '\n')
		if i < 0 {
			return used
		}
		line := data[used : used+i]
		used += i + 1
		if len(line) == 0 {
			continue
		}
		h, t, efrom, eto, ok := parseRecord(line)
		if !ok {
			l.bad++
			continue
		}
		l.records++
		old, seen := l.last[h]
		if seen && !old.olderThan(t, n) {
			continue
		}
		r := record{time: t, log: n, len: -1}
		if eto >= 0 {
			start := used - i - 1 // the line's offset in data
			r.off, r.len = base+int64(start+efrom), int32(eto-efrom)
		}
		if !seen {
			l.order = append(l.order, h)
		}
		l.last[h] = r
	}
}

// maxIndexLog bounds what a process reads of the logs (a few hundred
// bytes per pack: 1 GiB is millions of packs).
const maxIndexLog = 1 << 30

// refreshIndexLog reads what was appended to the logs since they were
// last read, or reads them again whole when one was replaced, added or
// removed (l.mu held). list forces a listing of packs/; otherwise packs/
// is listed only when its stamp changed.
func (s *Store) refreshIndexLog(list bool) error {
	l := &s.ilog
	if l.last == nil {
		l.reset()
	}
	dir := filepath.Join(s.root, packsDir)
	if err := s.CheckDir(dir); err != nil {
		return err
	}
	for try := 0; ; try++ {
		err := s.readIndexLogs(dir, list || try > 0)
		if !errors.As(err, new(replacedError)) {
			return err
		}
		// A log went or was replaced (compacted) while it was read.
		l.reset()
		if try == 3 {
			return fmt.Errorf("%s: the index logs changed while they were read, again and again", dir)
		}
	}
}

// readIndexLogs is one attempt of refreshIndexLog.
func (s *Store) readIndexLogs(dir string, list bool) error {
	l := &s.ilog
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		l.reset()
		return nil
	}
	if err != nil {
		return err
	}
	if stamp := stampOf(fi).Key; list || stamp != l.dir {
		names, err := s.indexLogNames()
		if err != nil {
			return err
		}
		if !slices.Equal(names, l.names) {
			l.reset()
			l.names = names
			l.files = make([]logFile, len(names))
		}
		l.dir = stamp
	}
	total := int64(0)
	for i, name := range l.names {
		p := filepath.Join(dir, name)
		f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return replacedError{}
		case errors.Is(err, syscall.ELOOP):
			return fmt.Errorf("%s is a symlink, which the store never follows (run 'ctx fsck')", p)
		case err != nil:
			return err
		}
		err = l.readLog(int32(i), f, &l.files[i], &total)
		f.Close()
		if err != nil && !errors.As(err, new(replacedError)) {
			return fmt.Errorf("%s: %w", p, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// replacedError says a log is no longer the file read before (a
// compaction replaced or removed it).
type replacedError struct{}

func (replacedError) Error() string { return "replaced while it was read" }

// readLog reads what log n, open as f, holds past lf.off.
func (l *indexLog) readLog(n int32, f *os.File, lf *logFile, total *int64) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errors.New("not a regular file (run 'ctx fsck')")
	}
	dev, ino := fileID(fi)
	off := lf.off
	switch {
	case lf.dev == 0 && lf.ino == 0 && off == 0:
		lf.dev, lf.ino = dev, ino
	case dev != lf.dev || ino != lf.ino || fi.Size() < off:
		return replacedError{}
	}
	size := fi.Size()
	if *total += size; *total > maxIndexLog {
		return fmt.Errorf("the index logs hold more than the %d bytes a store's index may take", maxIndexLog)
	}
	if size == off {
		return nil
	}
	// Only what fstat counted: the bytes below the file's size are written
	// whole, those of an append in progress beyond it are not read. A
	// chunk at a time, so a long log is never whole in memory.
	buf := make([]byte, min(size-off, logChunk))
	for off < size {
		m, err := f.ReadAt(buf[:min(int64(len(buf)), size-off)], off)
		if m == 0 && err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		used := l.parse(n, buf[:m], off)
		if used == 0 {
			if int64(m) < size-off && m == len(buf) {
				buf = make([]byte, 2*len(buf)) // a line longer than the chunk
				continue
			}
			break // the rest is an incomplete line
		}
		off += int64(used)
	}
	lf.off = off
	return nil
}

// openLog opens the log at p, which must still be the file lf was read
// from: a *replacedError when it is gone or another file.
func openLog(p string, lf logFile) (*os.File, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, replacedError{}
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		if dev, ino := fileID(fi); dev != lf.dev || ino != lf.ino {
			err = replacedError{}
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// logChunk is how much of a log is read at a time.
const logChunk = 1 << 20

// indexLogNames lists the logs of packs/, sorted.
func (s *Store) indexLogNames() ([]string, error) {
	names, err := readNames(filepath.Join(s.root, packsDir))
	if err != nil {
		return nil, err
	}
	out := names[:0]
	for _, n := range names {
		if isIndexLogName(n) {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// lookup returns the latest record of pack h among the logs (l.mu held,
// refreshed); ok is false when no log has one.
func (l *indexLog) lookup(h Hash) (r record, ok bool) {
	r, ok = l.last[h]
	return r, ok
}

// readEntry appends to buf the entry of record r, read from its log, which
// must still be the file it was read from (l.mu held).
func (s *Store) readEntry(buf []byte, r record) ([]byte, error) {
	l := &s.ilog
	p := filepath.Join(s.root, packsDir, l.names[r.log])
	f, err := openLog(p, l.files[r.log])
	if err != nil {
		return buf, err
	}
	defer f.Close()
	start := len(buf)
	buf = slices.Grow(buf, int(r.len))[:start+int(r.len)]
	if _, err := f.ReadAt(buf[start:], r.off); err != nil {
		return buf[:start], fmt.Errorf("%s: %w", p, err)
	}
	return buf, nil
}

// where names the log record r lies in, relative to the store.
func (l *indexLog) where(r record) string { return packsDir + "/" + l.names[r.log] }

// stamp returns when this process writes its next record: now, or just
// after its last one when the clock went back.
func (l *indexLog) stamp() int64 {
	t := max(time.Now().UnixNano(), l.clock+1)
	l.clock = t
	return t
}

// appendIndexRecords appends recs to a log of packs/ in one write,
// creating one when there is none. It does not sync: it returns the paths
// whose sync makes the records durable (the log, and packs/ when the log
// is new), for the caller's one sync of everything it publishes.
func (s *Store) appendIndexRecords(recs []IndexRecord) (files, dirs []string, err error) {
	if len(recs) == 0 {
		return nil, nil, nil
	}
	dir := filepath.Join(s.root, packsDir)
	if err := s.CheckDir(dir); err != nil {
		return nil, nil, err
	}
	s.ilog.mu.Lock()
	defer s.ilog.mu.Unlock()
	b := []byte{'\n'}
	for _, r := range recs {
		if bytes.ContainsRune(bytes.TrimSuffix(r.Entry, []byte("\n")), '\n') {
			return nil, nil, fmt.Errorf("the index entry of %s is more than one line", r.Hash)
		}
		b = appendRecord(b, r, s.ilog.stamp())
	}
	const flags = os.O_WRONLY | os.O_APPEND | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	for try := 0; ; try++ {
		// Any log will do (the times order the records): the first by
		// name as last listed, or a new one.
		names := s.ilog.names
		if try > 0 || len(names) == 0 {
			var err error
			if names, err = s.indexLogNames(); err != nil {
				return nil, nil, err
			}
		}
		created := len(names) == 0
		var f *os.File
		var p string
		if created {
			if err := s.fault(faultCreate, dir, 0); err != nil {
				return nil, nil, err
			}
			var id [8]byte
			if _, err := rand.Read(id[:]); err != nil {
				return nil, nil, err
			}
			p = filepath.Join(dir, IndexLogPrefix+hex.EncodeToString(id[:])+IndexLogSuffix)
			f, err = os.OpenFile(p, flags|os.O_CREATE|os.O_EXCL, 0o666)
		} else {
			p = filepath.Join(dir, names[0])
			f, err = os.OpenFile(p, flags, 0)
		}
		if errors.Is(err, fs.ErrNotExist) && try < 3 {
			continue // compacted meanwhile: list again
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, fmt.Errorf("%s is a symlink, which the store never follows (run 'ctx fsck')", p)
		}
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		if created {
			if err := s.ShareFile(f); err != nil {
				return nil, nil, err
			}
			dirs = append(dirs, dir)
		}
		if _, err := s.writeTo(f, b); err != nil {
			return nil, nil, err
		}
		return []string{p}, dirs, nil
	}
}
