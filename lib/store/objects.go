package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
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
