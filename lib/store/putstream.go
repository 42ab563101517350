package store

import (
	"bufio"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// PutObjectFrom stores one object durably at once, as PutObject does, from
// what fill writes: the bytes are hashed while they are written, so an
// object of any size (the manifest of a long run) is never whole in
// memory. written is false when the store already had the object; fill's
// own error is returned as it is, a failure of the store as a
// *WriteError.
func (s *Store) PutObjectFrom(fill func(w io.Writer) error) (h Hash, n int64, written bool, err error) {
	unlock, err := s.LockWrites()
	if err != nil {
		return Hash{}, 0, false, &WriteError{Err: err}
	}
	defer unlock()
	return s.putObjectFrom(fill)
}

func (s *Store) putObjectFrom(fill func(w io.Writer) error) (h Hash, n int64, written bool, err error) {
	f, err := s.createTemp(s.tmp(), tempPrefix)
	if err != nil {
		return Hash{}, 0, false, &WriteError{Err: err}
	}
	tmp := f.Name()
	fail := func(err error) (Hash, int64, bool, error) {
		f.Close()
		os.Remove(tmp)
		return Hash{}, 0, false, err
	}
	sw := &storeWriter{s: s, f: f}
	hw := sha256.New()
	cw := &countWriter{w: io.MultiWriter(sw, hw)}
	bw := bufio.NewWriterSize(cw, 256<<10)
	if err := fill(bw); err != nil {
		if sw.err != nil {
			return fail(&WriteError{Err: sw.err})
		}
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(&WriteError{Err: err})
	}
	hw.Sum(h[:0])
	n = cw.n
	if got, err := s.Stat(h); err == nil {
		f.Close()
		os.Remove(tmp)
		if got != n {
			return h, n, false, &ImmutableError{Hash: h, Detail: fmt.Sprintf("the stored copy has %d bytes, not %d (run 'ctx fsck')", got, n)}
		}
		return h, n, false, nil
	}
	err = s.fault(faultSync, tmp, 0)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return Hash{}, 0, false, &WriteError{Err: err}
	}
	if err := s.link(h, tmp); err != nil {
		os.Remove(tmp)
		return h, n, false, err
	}
	// Its objects/ab/, and objects/, where that directory may be new.
	if err := s.syncPaths(nil, []string{filepath.Dir(s.objectPath(h)), filepath.Join(s.root, objectsDir)}); err != nil {
		return h, n, true, &WriteError{Err: err}
	}
	return h, n, true, nil
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// Scratch creates a temporary read-write file in the store's tmp/ for a
// writer's own use (the steps of a pack being built). Where the system
// allows it the name is removed at once, so the file goes with its last
// descriptor, even when the process is killed; elsewhere Close of the
// returned file leaves it for the next writer's sweep of tmp/.
func (s *Store) Scratch() (*os.File, error) {
	if err := s.CheckDir(s.tmp()); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(s.tmp(), ".tmp-scratch-")
	if err != nil {
		return nil, &WriteError{Err: err}
	}
	os.Remove(f.Name()) // fails on Windows, where the sweep removes it
	return f, nil
}
