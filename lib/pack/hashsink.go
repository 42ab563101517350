package pack

import (
	"crypto/sha256"
	"io"

	"github.com/contextsubstrate/ctx/lib/store"
)

// HashSink hashes content without storing it, so a log can become a manifest
// in memory (`ctx diff baseline.json run.json` needs no store).
type HashSink struct{}

// PutBytes returns the hash of data.
func (HashSink) PutBytes(data []byte) (store.Hash, error) { return store.Sum(data), nil }

// PutReader returns the hash and size of what r holds.
func (HashSink) PutReader(r io.Reader) (store.Hash, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	var out store.Hash
	h.Sum(out[:0])
	return out, n, err
}

// PutFile hashes the file rel of tree.
func (s HashSink) PutFile(tree *store.Tree, rel string) <-chan store.Result {
	ch := make(chan store.Result, 1)
	f, err := tree.Open(rel)
	if err != nil {
		ch <- store.Result{Err: err}
		return ch
	}
	defer f.Close()
	h, n, err := s.PutReader(f)
	ch <- store.Result{Hash: h, Size: n, Err: err}
	return ch
}
