package store

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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
}

func (e *CorruptError) Error() string {
	if e.Actual != nil {
		return fmt.Sprintf("object %s is corrupt: its content hashes to %s", e.Hash, *e.Actual)
	}
	return fmt.Sprintf("object %s is corrupt: %s", e.Hash, e.Detail)
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
	f    io.ReadCloser // the loose file, or a section of a packed file
	want Hash
	h    hash.Hash
	size int64
	read int64
	err  error
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
			o.err = &CorruptError{Hash: o.want, Actual: &got}
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

// Open opens object h for reading. The file must be a regular file reached
// without following symlinks.
func (s *Store) Open(h Hash) (*Object, error) {
	f, fi, err := s.openRegular(h)
	if errors.Is(err, ErrNotFound) {
		r, size, _, err := s.openPacked(h)
		if err != nil {
			return nil, err
		}
		return &Object{f: r, want: h, h: sha256.New(), size: size}, nil
	}
	if err != nil {
		return nil, err
	}
	return &Object{f: f, want: h, h: sha256.New(), size: fi.Size()}, nil
}

func (s *Store) openRegular(h Hash) (*os.File, os.FileInfo, error) {
	p := s.objectPath(h)
	if fi, err := os.Lstat(filepath.Dir(p)); err == nil && !fi.IsDir() {
		return nil, nil, &CorruptError{Hash: h, Detail: fmt.Sprintf("%s is not a directory (a symlink or file was planted in the store)", filepath.Dir(p))}
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, &NotFoundError{Hash: h}
		}
		if errors.Is(err, syscall.ELOOP) {
			return nil, nil, &CorruptError{Hash: h, Detail: "it is a symlink, which the store never follows"}
		}
		return nil, nil, err
	}
	return regular(f, func() error { return &CorruptError{Hash: h, Detail: "it is not a regular file"} })
}

// ReadAll returns the verified bytes of object h. Use it for small objects
// (manifests, prompts); stream large ones with Open.
func (s *Store) ReadAll(h Hash) ([]byte, error) {
	var f io.ReadCloser
	var size int64
	lf, fi, err := s.openRegular(h)
	switch {
	case err == nil:
		f, size = lf, fi.Size()
	case errors.Is(err, ErrNotFound):
		if f, size, _, err = s.openPacked(h); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	defer f.Close()
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &CorruptError{Hash: h, Detail: "it shrank while being read"}
		}
		return nil, err
	}
	if got := Sum(b); got != h {
		return nil, &CorruptError{Hash: h, Actual: &got}
	}
	return b, nil
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

// stat is Stat; a writer deduplicating passes sure false: an object
// another writer packed a moment ago may then be missed (and stored
// again, which is harmless), for one system call less per object.
func (s *Store) stat(h Hash, sure bool) (int64, error) {
	if !sure {
		if present, decided := s.looseListed(h); decided && !present {
			if n, ok := s.statPacked(h, false); ok {
				return n, nil
			}
			return 0, &NotFoundError{Hash: h}
		}
	}
	if fi, err := os.Lstat(filepath.Dir(s.objectPath(h))); err == nil && !fi.IsDir() {
		return 0, &CorruptError{Hash: h, Detail: fmt.Sprintf("%s is not a directory (a symlink or file was planted in the store)", filepath.Dir(s.objectPath(h)))}
	}
	fi, err := os.Lstat(s.objectPath(h))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			if n, ok := s.statPacked(h, sure); ok {
				return n, nil
			}
			return 0, &NotFoundError{Hash: h}
		}
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, &CorruptError{Hash: h, Detail: "it is not a regular file"}
	}
	return fi.Size(), nil
}

// Has reports whether object h is present (not whether it is intact).
func (s *Store) Has(h Hash) bool {
	_, err := s.Stat(h)
	return err == nil
}
