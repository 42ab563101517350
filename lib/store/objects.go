package store

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// DirError is an objects/ab/ directory that could not be listed, or that is
// something planted where the store keeps a directory.
type DirError struct {
	Dir string // relative to the store: "objects/ab"
	Err error
}

func (e *DirError) Error() string { return fmt.Sprintf("%s: %v", e.Dir, e.Err) }

// Unwrap returns the reason.
func (e *DirError) Unwrap() error { return e.Err }

// ObjectNames returns every name under objects/ that is an object's
// (objects/ab/<62 lower-case hex>, and the objects of objects/packed/),
// without reading or stating the files,
// and the directories it could not list (a symlink planted for one is never
// followed). It fails only when objects/ itself cannot be read.
func (s *Store) ObjectNames() ([]Hash, []*DirError, error) {
	root := filepath.Join(s.root, objectsDir)
	if err := s.CheckDir(root); err != nil {
		return nil, nil, err
	}
	dirs, err := readNames(root)
	if err != nil {
		return nil, nil, err
	}
	var out []Hash
	var bad []*DirError
	for _, d := range dirs {
		if !isLowerHex(d, 2) {
			continue
		}
		dir := filepath.Join(root, d)
		if err := s.CheckDir(dir); err != nil {
			bad = append(bad, &DirError{Dir: objectsDir + "/" + d, Err: err})
			continue
		}
		names, err := readNames(dir)
		if err != nil {
			bad = append(bad, &DirError{Dir: objectsDir + "/" + d, Err: err})
			continue
		}
		for _, n := range names {
			if isLowerHex(n, 62) {
				h, _ := ParseHex(d + n)
				out = append(out, h)
			}
		}
	}
	// And the packed ones not also loose.
	packed, pbad, err := s.PackedNames()
	if err != nil {
		bad = append(bad, &DirError{Dir: packedDir, Err: err})
	}
	bad = append(bad, pbad...)
	if len(packed) > 0 {
		loose := make(map[Hash]bool, len(out))
		for _, h := range out {
			loose[h] = true
		}
		for h := range packed {
			if !loose[h] {
				out = append(out, h)
			}
		}
	}
	return out, bad, nil
}

// Peek opens object h without following a link and returns its size, its
// modification time (when it was stored) and up to n of its first bytes,
// unverified: enough to age an object and to tell a manifest by how it
// starts. A file that is not a regular file gives a *CorruptError, an
// absent one a *NotFoundError.
func (s *Store) Peek(h Hash, n int) (size int64, stored time.Time, head []byte, err error) {
	var f io.ReadCloser
	lf, fi, err := s.openRegular(h)
	switch {
	case err == nil:
		f, size, stored = lf, fi.Size(), fi.ModTime()
	case errors.Is(err, ErrNotFound):
		// A packed object was stored when its .idx was.
		if f, size, stored, err = s.openPacked(h); err != nil {
			return 0, time.Time{}, nil, err
		}
	default:
		return 0, time.Time{}, nil, err
	}
	defer f.Close()
	head = make([]byte, n)
	m, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return 0, time.Time{}, nil, err
	}
	return size, stored, head[:m], nil
}

// AttestationLinks returns every link of attestations/: for each pack, the
// attestation objects linked to it. Names that are not 64 lower-case hex
// digits are skipped.
func (s *Store) AttestationLinks() (map[Hash][]Hash, error) {
	dir := filepath.Join(s.root, attestationsDir)
	if err := s.CheckDir(dir); err != nil {
		return nil, err
	}
	packs, err := readNames(dir)
	if err != nil {
		return nil, err
	}
	out := map[Hash][]Hash{}
	for _, p := range packs {
		ph, ok := parseLowerHex(p)
		if !ok {
			continue
		}
		sub := filepath.Join(dir, p)
		if err := s.CheckDir(sub); err != nil {
			return nil, err
		}
		names, err := readNames(sub)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			if ah, ok := parseLowerHex(n); ok {
				out[ph] = append(out[ph], ah)
			}
		}
	}
	return out, nil
}

// RemoveAttestationLink removes the link of attestation att to pack, and
// the pack's directory of links when it is left empty.
func (x *Exclusive) RemoveAttestationLink(pack, att Hash) error {
	dir := filepath.Join(x.s.root, attestationsDir, pack.Hex())
	if err := x.s.removeFile(dir, att.Hex()); err != nil {
		return err
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTEMPTY) && !errors.Is(err, syscall.EEXIST) {
		return err
	}
	return nil
}

// DeleteRemoved takes the mark of removal off a pack whose manifest is
// gone.
func (x *Exclusive) DeleteRemoved(h Hash) error { return x.s.DeleteRemoved(h) }

// DraftFiles returns the regular files under drafts/ (relative to it,
// slash-separated), temporary files left out, never following a symlink:
// what users keep there to edit and pack later.
func (s *Store) DraftFiles() ([]string, error) {
	dir := s.DraftsDir()
	if err := s.CheckDir(dir); err != nil {
		return nil, err
	}
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir && errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() || IsTempName(d.Name()) {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	return out, err
}

// OpenDraft opens the draft rel (as DraftFiles names it) for reading,
// refusing a symlink in its place.
func (s *Store) OpenDraft(rel string) (*os.File, error) {
	if !fs.ValidPath(rel) {
		return nil, fmt.Errorf("%q is not a draft's name", rel)
	}
	f, err := os.OpenFile(filepath.Join(s.DraftsDir(), filepath.FromSlash(rel)), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	f, _, err = regular(f, func() error { return fmt.Errorf("drafts/%s is not a regular file", rel) })
	return f, err
}
