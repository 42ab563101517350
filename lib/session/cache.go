package session

import (
	"bytes"
	"crypto/sha256"
	"sort"
	"strings"

	"github.com/contextsubstrate/ctx/lib/store"
)

// The capture cache (.ctx/cache/capture) remembers, for each pack capture
// made, the digest of the session files it holds (digestOf), so that a
// capture finds a session unchanged from the stat cache's hashes and the
// tag alone, without reading the pack's manifest. It is derived data: a
// pack missing from it is read once (pack.Head) and added; a line that
// does not parse makes the whole cache empty. A wrong digest can only
// make a session look changed (a digest is a SHA-256), never unchanged.
type captureCache struct {
	digests map[store.Hash]store.Hash
	changed bool
}

const (
	captureCacheName   = "capture"
	captureCacheHeader = "ctx capture cache 1\n"
	// captureCacheMax bounds the packs remembered: beyond it the cache
	// starts again from this capture's.
	captureCacheMax = 100_000
)

// digestOf is the digest of a session's files: SHA-256 over each file's
// name, a NUL, its hash in hex and a newline, in the given order.
func digestOf(files []File) store.Hash {
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.Rel))
		h.Write([]byte{0})
		h.Write([]byte(f.Ref.Hex()))
		h.Write([]byte{'\n'})
	}
	var d store.Hash
	h.Sum(d[:0])
	return d
}

func loadCaptureCache(st *store.Store) *captureCache {
	b, err := st.ReadCache(captureCacheName)
	if err != nil {
		b = nil
	}
	return &captureCache{digests: parseCaptureCache(b)}
}

// parseCaptureCache decodes the cache file: its header, then a line per
// pack, "<pack hex> <digest hex>". Anything else is a damaged cache,
// read as an empty one.
func parseCaptureCache(b []byte) map[store.Hash]store.Hash {
	m := map[store.Hash]store.Hash{}
	if !bytes.HasPrefix(b, []byte(captureCacheHeader)) {
		return m
	}
	for _, line := range strings.Split(string(b[len(captureCacheHeader):]), "\n") {
		if line == "" {
			continue
		}
		p, d, ok := strings.Cut(line, " ")
		ph, err1 := store.ParseHex(p)
		dh, err2 := store.ParseHex(d)
		if !ok || err1 != nil || err2 != nil {
			return map[store.Hash]store.Hash{}
		}
		m[ph] = dh
	}
	return m
}

func (c *captureCache) get(pack store.Hash) (store.Hash, bool) {
	d, ok := c.digests[pack]
	return d, ok
}

func (c *captureCache) put(pack, digest store.Hash) {
	if old, ok := c.digests[pack]; ok && old == digest {
		return
	}
	if len(c.digests) >= captureCacheMax {
		c.digests = map[store.Hash]store.Hash{}
	}
	c.digests[pack] = digest
	c.changed = true
}

// save writes the cache when it changed; a cache that cannot be written
// only costs time later.
func (c *captureCache) save(st *store.Store) {
	if !c.changed {
		return
	}
	keys := make([]store.Hash, 0, len(c.digests))
	for k := range c.digests {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i][:], keys[j][:]) < 0 })
	b := make([]byte, 0, len(keys)*130+len(captureCacheHeader))
	b = append(b, captureCacheHeader...)
	for _, k := range keys {
		d := c.digests[k]
		b = append(b, k.Hex()...)
		b = append(b, ' ')
		b = append(b, d.Hex()...)
		b = append(b, '\n')
	}
	_ = st.WriteCache(captureCacheName, b)
}
