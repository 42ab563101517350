package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"time"
)

// ErrNotFound is matched (errors.Is) by every "not found" error of the store.
var ErrNotFound = errors.New("not found")

// NotFoundError says an object is not in the store.
type NotFoundError struct {
	Hash Hash
	What string // "object" or "pack"
}

func (e *NotFoundError) Error() string {
	what := e.What
	if what == "" {
		what = "object"
	}
	return fmt.Sprintf("%s %s not found", what, e.Hash)
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// ErrCorrupt is matched (errors.Is) by every integrity error of the store.
var ErrCorrupt = errors.New("corrupt object")

// CorruptError says an object's bytes do not hash to its name, or the file
// under its name is not a regular file.
type CorruptError struct {
	Hash   Hash
	Actual *Hash  // what the bytes hash to, when they could be read
	Detail string // why, when not a hash mismatch
	// Path is where the object lies, relative to the store and
	// slash-separated: objects/ab/cdef..., or the .pack of its packfile.
	Path string
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("object %s is corrupt: %s", e.Hash, e.Why())
}

// Why says what is wrong with the object, without naming it.
func (e *CorruptError) Why() string {
	if e.Actual != nil {
		return fmt.Sprintf("its content hashes to %s", *e.Actual)
	}
	return e.Detail
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// regular returns f and its status when it is a regular file; otherwise
// it closes f and returns the error notRegular makes.
func regular(f *os.File, notRegular func() error) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular()
	}
	return f, fi, nil
}

// Object is an open object. Reading it to the end checks its hash: the last
// Read returns a *CorruptError instead of io.EOF when the bytes do not match
// the name, so nobody can consume a damaged object without being told.
type Object struct {
	f     io.ReadCloser // the loose file, or a section of a packfile
	want  Hash
	where string // where it lies, for a CorruptError
	h     hash.Hash
	size  int64
	read  int64
	err   error
}

// Size returns the object's size in bytes.
func (o *Object) Size() int64 { return o.size }

// Read reads from the object and verifies its hash at the end.
func (o *Object) Read(p []byte) (int, error) {
	if o.err != nil {
		return 0, o.err
	}
	n, err := o.f.Read(p)
	o.h.Write(p[:n])
	o.read += int64(n)
	if err == io.EOF {
		var got Hash
		o.h.Sum(got[:0])
		if got != o.want {
			o.err = &CorruptError{Hash: o.want, Actual: &got, Path: o.where}
			return n, o.err
		}
		o.err = io.EOF
	}
	return n, err
}

// WriteTo streams the whole object to w, checking the hash at the end.
func (o *Object) WriteTo(w io.Writer) (int64, error) {
	// Sized to the object, up to 256 KiB: checking a pack's thousands of
	// small blobs should not allocate 256 KiB for each.
	buf := make([]byte, min(max(o.size+1, 512), 256<<10))
	var total int64
	for {
		n, err := o.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// Close closes the object.
func (o *Object) Close() error { return o.f.Close() }

// Open opens object h for reading, wherever it lies (lookup.go). A loose
// object must be a regular file reached without following symlinks, a
// packed one a section of such a file.
func (s *Store) Open(h Hash) (*Object, error) {
	loc, err := s.locate(h)
	if err != nil {
		return nil, err
	}
	return &Object{f: loc.r, want: h, where: loc.where, h: sha256.New(), size: loc.size}, nil
}

// ReadAll returns the verified bytes of object h. Use it for small objects
// (manifests, prompts); stream large ones with Open.
func (s *Store) ReadAll(h Hash) ([]byte, error) {
	loc, err := s.locate(h)
	if err != nil {
		return nil, err
	}
	defer loc.r.Close()
	b := make([]byte, loc.size)
	if _, err := io.ReadFull(loc.r, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &CorruptError{Hash: h, Path: loc.where, Detail: "it shrank while being read"}
		}
		return nil, err
	}
	if got := Sum(b); got != h {
		return nil, &CorruptError{Hash: h, Actual: &got, Path: loc.where}
	}
	return b, nil
}

// Peek opens object h without following a link and returns its size, its
// modification time (when it was stored: a packed object was stored when
// its .idx was) and up to n of its first bytes, unverified: enough to age
// an object and to tell a manifest by how it starts. A file that is not a
// regular file gives a *CorruptError, an absent one a *NotFoundError.
func (s *Store) Peek(h Hash, n int) (size int64, stored time.Time, head []byte, err error) {
	loc, err := s.locate(h)
	if err != nil {
		return 0, time.Time{}, nil, err
	}
	defer loc.r.Close()
	head = make([]byte, n)
	m, err := io.ReadFull(loc.r, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, time.Time{}, nil, err
	}
	return loc.size, loc.stored, head[:m], nil
}

// Verify rehashes object h and returns its size; a damaged object gives a
// *CorruptError.
func (s *Store) Verify(h Hash) (int64, error) {
	o, err := s.Open(h)
	if err != nil {
		return 0, err
	}
	defer o.Close()
	return o.WriteTo(io.Discard)
}

// Stat returns the size of object h without reading it, or a *NotFoundError.
func (s *Store) Stat(h Hash) (int64, error) { return s.stat(h, true) }

// Has reports whether object h is present (not whether it is intact).
func (s *Store) Has(h Hash) bool {
	_, err := s.Stat(h)
	return err == nil
}
