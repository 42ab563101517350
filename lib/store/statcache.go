package store

import (
	"bytes"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// StatCache remembers the hash of each file ctx pack read by path, keyed by
// the file's path and checked against its identity and status: device,
// inode, size, modification time and status change time. When all of them
// match, packing the same file again takes the hash from the cache and
// only checks that the object is stored, instead of reading and hashing
// the file: what git's index does for git add.
//
// Any change of the content changes the status change time (ctime), which
// no program can set back, so a matching entry is the content that was
// hashed. The one gap, a change within the same tick of the filesystem's
// clock as the status that was recorded, is closed as git closes it: a
// file whose mtime or ctime is less than racyWindow before the batch began
// is never recorded ("racily clean"), and is hashed again next time.
//
// The cache is derived data (cache/stat): missing, damaged or of another
// version, it is empty; it cannot be written, the pack still succeeds.
// ctx pack --rehash ignores it.
type StatCache struct {
	mu      sync.Mutex
	old     map[string]statEntry // as loaded
	seen    map[string]statEntry // recorded by this batch
	start   int64                // when the batch began, in ns since the epoch
	refresh bool                 // answer no lookup (ctx pack --rehash)
}

// statEntry is one file's identity and status, and its content's hash.
type statEntry struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // ns since the epoch
	hash         Hash
}

func (e statEntry) sameFile(o statEntry) bool {
	return e.dev == o.dev && e.ino == o.ino && e.size == o.size && e.mtime == o.mtime && e.ctime == o.ctime
}

const (
	statCacheName    = "stat"
	statCacheHeader  = "ctx stat cache 1\n"
	statCacheTrailer = "sha256 "
	// racyWindow is how recent a status may be and still be recorded:
	// wider than any filesystem's timestamp granularity (ext4 and tmpfs
	// take a coarse clock of a few ms; FAT has 2 s).
	racyWindow = 3 * time.Second
	// statCacheMax bounds the entries kept across packs: beyond it, only
	// the files of the last pack are kept, and a pack of more files than
	// that is not recorded at all. 100,000 entries are a file of
	// about 15 MB and some 25 MB in memory once read, inside ctx pack's
	// 64 MiB.
	statCacheMax = 100_000
)

// LoadStatCache reads the store's stat cache; a missing or damaged one
// gives an empty cache. Nothing is checked against the store here: a hit
// is used only when its object is present with the file's size.
func (s *Store) LoadStatCache() *StatCache {
	c := &StatCache{old: map[string]statEntry{}, seen: map[string]statEntry{}, start: time.Now().UnixNano()}
	b, err := s.ReadCache(statCacheName)
	if err != nil {
		return c
	}
	if old, ok := parseStatCache(b); ok {
		c.old = old
	}
	return c
}

// parseStatCache decodes the cache file: a header line, one line per file
// (hash, size, mtime, ctime, dev, ino, path; the path last, as it may hold
// spaces), then the SHA-256 of all that. Anything else is a damaged cache.
func parseStatCache(b []byte) (map[string]statEntry, bool) {
	if !bytes.HasPrefix(b, []byte(statCacheHeader)) {
		return nil, false
	}
	i := bytes.LastIndex(b, []byte("\n"+statCacheTrailer))
	if i < 0 {
		return nil, false
	}
	body, trailer := b[:i+1], strings.TrimSuffix(string(b[i+1+len(statCacheTrailer):]), "\n")
	if sum := Sum(body); trailer != sum.Hex() {
		return nil, false
	}
	m := map[string]statEntry{}
	lines := strings.TrimSuffix(string(body[len(statCacheHeader):]), "\n")
	for _, line := range strings.Split(lines, "\n") {
		if line == "" {
			continue
		}
		var f [6]string
		rest := line
		for k := range f {
			var ok bool
			f[k], rest, ok = strings.Cut(rest, " ")
			if !ok {
				return nil, false
			}
		}
		h, err := ParseHex(f[0])
		if err != nil || rest == "" {
			return nil, false
		}
		var e statEntry
		var errs [5]error
		e.size, errs[0] = strconv.ParseInt(f[1], 10, 64)
		e.mtime, errs[1] = strconv.ParseInt(f[2], 10, 64)
		e.ctime, errs[2] = strconv.ParseInt(f[3], 10, 64)
		e.dev, errs[3] = strconv.ParseUint(f[4], 10, 64)
		e.ino, errs[4] = strconv.ParseUint(f[5], 10, 64)
		for _, err := range errs {
			if err != nil {
				return nil, false
			}
		}
		e.hash = h
		m[rest] = e
	}
	return m, true
}

// has reports whether anything is recorded for key, so a file never
// recorded is not looked at twice.
func (c *StatCache) has(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.old[key]
	return ok && !c.refresh
}

// lookup returns the hash recorded for the file at key when the file is
// still the one that was hashed.
func (c *StatCache) lookup(key string, now statEntry) (Hash, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.old[key]
	if !ok || c.refresh || !e.sameFile(now) {
		return Hash{}, false
	}
	return e.hash, true
}

// Known returns the hash recorded for the file at the absolute path p
// when it is still the file that was hashed: the check of ctx capture,
// which looks at a session file without reading it. A hit is recorded
// again, so the entry stays in the cache.
func (c *StatCache) Known(p string) (Hash, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || !c.has(p) {
		return Hash{}, false
	}
	id, ok := fileStat(fi)
	if !ok {
		return Hash{}, false
	}
	h, ok := c.lookup(p, id)
	if ok {
		c.record(p, id, h)
	}
	return h, ok
}

// Note records h as the hash of the file at the absolute path p, whose
// status before it was read is fi (unless that status is too recent to
// be trusted, as for a file a pack reads).
func (c *StatCache) Note(p string, fi fs.FileInfo, h Hash) {
	if id, ok := fileStat(fi); ok {
		c.record(p, id, h)
	}
}

// Refresh makes c answer no lookup: every file is read and hashed again,
// and recorded anew.
func (c *StatCache) Refresh() { c.refresh = true }

// record notes the hash of the file at key with the status it had before
// it was read, unless that status is too recent to be trusted.
func (c *StatCache) record(key string, st statEntry, h Hash) {
	limit := c.start - int64(racyWindow)
	if st.mtime >= limit || st.ctime >= limit || strings.ContainsAny(key, "\n\r") {
		return
	}
	st.hash = h
	c.mu.Lock()
	c.seen[key] = st
	c.mu.Unlock()
}

// SaveStatCache writes what the batches that used c recorded, with the
// entries loaded that they did not replace (up to statCacheMax), when
// there is anything new.
func (s *Store) SaveStatCache(c *StatCache) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	changed := false
	for k, e := range c.seen {
		if o, ok := c.old[k]; !ok || o != e {
			changed = true
			break
		}
	}
	if !changed || len(c.seen) > statCacheMax {
		// Nothing new; or a pack of more files than the cache keeps,
		// which then goes on without it.
		return nil
	}
	all := c.seen
	if len(c.seen)+len(c.old) <= statCacheMax {
		all = make(map[string]statEntry, len(c.seen)+len(c.old))
		for k, e := range c.old {
			all[k] = e
		}
		for k, e := range c.seen {
			all[k] = e
		}
	}
	keys := make([]string, 0, len(all))
	for k := range all {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b := make([]byte, 0, len(keys)*160)
	b = append(b, statCacheHeader...)
	for _, k := range keys {
		e := all[k]
		b = hex.AppendEncode(b, e.hash[:])
		for _, n := range []int64{e.size, e.mtime, e.ctime} {
			b = append(b, ' ')
			b = strconv.AppendInt(b, n, 10)
		}
		for _, n := range []uint64{e.dev, e.ino} {
			b = append(b, ' ')
			b = strconv.AppendUint(b, n, 10)
		}
		b = append(b, ' ')
		b = append(b, k...)
		b = append(b, '\n')
	}
	sum := Sum(b)
	b = append(b, statCacheTrailer...)
	b = hex.AppendEncode(b, sum[:])
	b = append(b, '\n')
	return s.WriteCache(statCacheName, b)
}

// UseStatCache makes PutFile consult and fill c.
func (b *Batch) UseStatCache(c *StatCache) { b.cache = c }

// statKey is where a file of a tree is recorded: the tree's absolute path
// and the file's name in it.
func statKey(tree *Tree, rel string) string {
	return filepath.Join(tree.abs, filepath.FromSlash(rel))
}
