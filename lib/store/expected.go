package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
)

// MismatchError says bytes offered under a name do not hash to it: an
// import entry whose content is not what its name claims.
type MismatchError struct {
	Hash   Hash // the name claimed
	Actual Hash // what the bytes hash to
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("content hashes to %s, not %s", e.Actual, e.Hash)
}

// PutExpected streams r into the batch as the object named h and returns its
// size. The bytes are hashed as they are written; unless they hash to h the
// object is refused with a *MismatchError and nothing of it stays. When h is
// already stored (or pending in this batch) nothing is written, but the
// bytes are still read and checked, so a stream that lies about a name is
// refused whatever the store holds; a stored copy of another size gives an
// *ImmutableError. Memory stays bounded whatever the size of r.
func (b *Batch) PutExpected(h Hash, r io.Reader) (int64, error) {
	if err := b.hold(); err != nil {
		return 0, err
	}
	if b.Has(h) {
		hw := sha256.New()
		n, err := copyBuffer(hw, r)
		if err != nil {
			return n, err
		}
		var got Hash
		hw.Sum(got[:0])
		if got != h {
			return n, &MismatchError{Hash: h, Actual: got}
		}
		_, err = b.present(h, n)
		return n, err
	}
	var got Hash
	var n int64
	tmp, err := b.writeTemp(b.s.tempDirFor(h), func(w io.Writer) error {
		var err error
		got, n, err = hashCopy(w, r)
		return err
	})
	if err != nil {
		return n, err
	}
	if got != h {
		os.Remove(tmp)
		return n, &MismatchError{Hash: h, Actual: got}
	}
	// Another writer may have stored h meanwhile: present checks again.
	if ok, err := b.present(h, n); err != nil || ok {
		os.Remove(tmp)
		return n, err
	}
	b.addPending(h, tmp, n)
	return n, nil
}

// PutExpectedBytes is PutExpected for content already in memory (a small
// object fetched whole): data is stored as object h only if it hashes to
// h, and is refused with a *MismatchError otherwise.
func (b *Batch) PutExpectedBytes(h Hash, data []byte) error {
	if got := Sum(data); got != h {
		return &MismatchError{Hash: h, Actual: got}
	}
	return b.putBytes(h, data)
}

// Has reports whether object h is pending in this batch or present in the
// store (not whether the stored copy is intact).
func (b *Batch) Has(h Hash) bool {
	// A writer that asks counts on the answer: from now on ctx gc waits.
	_ = b.hold()
	b.mu.Lock()
	_, pending := b.pending[h]
	known := b.known[h]
	b.mu.Unlock()
	return pending || known || b.s.Has(h)
}

// Open opens object h as this batch sees it: a pending object from its
// temporary file, else the stored one. Like Store.Open, reading to the end
// checks the hash.
func (b *Batch) Open(h Hash) (*Object, error) {
	b.mu.Lock()
	ref, pending := b.pending[h]
	b.mu.Unlock()
	if !pending {
		return b.s.Open(h)
	}
	f, err := os.Open(b.s.tempPath(h, ref))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &NotFoundError{Hash: h}
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	return &Object{f: f, want: h, h: sha256.New(), size: fi.Size()}, nil
}
