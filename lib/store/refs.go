package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LatestRef is the ref that names the last pack made.
const LatestRef = "latest"

// CheckTagName reports whether name can be a tag: letters, digits, '.', '_'
// and '-', starting with a letter or digit, at most 128 bytes, not "latest",
// and not something that reads as a hash prefix (so names never collide).
func CheckTagName(name string) error {
	if name == "" || len(name) > 128 {
		return fmt.Errorf("tag name %q must be 1 to 128 characters", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || (i > 0 && (c == '.' || c == '_' || c == '-'))
		if !ok {
			return fmt.Errorf("tag name %q may hold only letters, digits, '.', '_' and '-', and must start with a letter or digit", name)
		}
	}
	if name == LatestRef {
		return fmt.Errorf("tag name %q is reserved", name)
	}
	// A name of MinPrefix or more hex digits reads as a hash prefix; a
	// shorter one cannot be a prefix, so it names a tag (Resolve).
	if len(name) >= MinPrefix && isHex(name) {
		return fmt.Errorf("tag name %q reads as a hash prefix", name)
	}
	return nil
}

func (s *Store) refPath(ref string) string {
	if ref == LatestRef {
		return filepath.Join(s.root, refsDir, LatestRef)
	}
	return filepath.Join(s.root, tagsDir, ref)
}

// ReadRef returns the hash a ref names: "latest" or a tag name.
func (s *Store) ReadRef(ref string) (Hash, error) {
	if ref != LatestRef {
		if err := CheckTagName(ref); err != nil {
			return Hash{}, err
		}
	}
	return s.readRefAt(s.refPath(ref), fmt.Sprintf("ref %q", ref))
}

// readRefAt reads the hash the ref file p holds; label names the ref in
// errors (`ref "latest"`, `suite "nightly"`).
func (s *Store) readRefAt(p, label string) (Hash, error) {
	if err := s.CheckDir(filepath.Dir(p)); err != nil {
		return Hash{}, fmt.Errorf("%s: %w", label, err)
	}
	fi, err := os.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Hash{}, notFoundf("%s not found", label)
		}
		return Hash{}, err
	}
	if !fi.Mode().IsRegular() {
		return Hash{}, fmt.Errorf("%s is not a regular file (%s): the store never follows links", label, p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return Hash{}, err
	}
	h, err := ParseHex(strings.TrimSpace(string(b)))
	if err != nil {
		return Hash{}, fmt.Errorf("%s is damaged: %s does not hold a hash", label, p)
	}
	return h, nil
}

// WriteRef points ref at h atomically (temporary file and rename), so a
// reader sees the old or the new value and concurrent writers never mix.
func (s *Store) WriteRef(ref string, h Hash) error {
	if ref != LatestRef {
		if err := CheckTagName(ref); err != nil {
			return err
		}
	}
	return s.writeRefAt(s.refPath(ref), h)
}

// writeRefAt points the ref file p at h.
func (s *Store) writeRefAt(p string, h Hash) error {
	if err := s.CheckDir(filepath.Dir(p)); err != nil {
		return err
	}
	if err := s.MkdirAll(filepath.Dir(p)); err != nil {
		return err
	}
	return s.writeFileAtomic(p, []byte(h.Hex()+"\n"), 0o666)
}

// Refs returns every ref by the hash it names: "latest" and the tag names.
func (s *Store) Refs() (map[Hash][]string, error) {
	out := map[Hash][]string{}
	if h, err := s.ReadRef(LatestRef); err == nil {
		out[h] = append(out[h], LatestRef)
	}
	if err := s.CheckDir(filepath.Join(s.root, tagsDir)); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(filepath.Join(s.root, tagsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, e := range ents {
		if CheckTagName(e.Name()) != nil {
			continue
		}
		if h, err := s.ReadRef(e.Name()); err == nil {
			out[h] = append(out[h], e.Name())
		}
	}
	for h := range out {
		sort.Strings(out[h])
	}
	return out, nil
}

// WriteRefs points each tag of refs at its hash, as WriteRef does for
// one, with one sync for them all (ctx capture moves a tag per session
// it packs): each goes to a temporary file beside its final name, one
// sync makes them durable, then each is renamed into place and the
// folder synced once. A crash part way leaves some tags moved and the
// others as they were.
func (s *Store) WriteRefs(refs map[string]Hash) error {
	if len(refs) == 0 {
		return nil
	}
	for ref := range refs {
		if err := CheckTagName(ref); err != nil {
			return err
		}
	}
	dir := filepath.Join(s.root, tagsDir)
	if err := s.CheckDir(dir); err != nil {
		return err
	}
	if err := s.MkdirAll(dir); err != nil {
		return err
	}
	tmps := make(map[string]string, len(refs))
	defer func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}()
	files := make([]string, 0, len(refs))
	for ref, h := range refs {
		f, err := s.writeTempIn(dir, ".tmp-", []byte(h.Hex()+"\n"), 0o666)
		if err != nil {
			return err
		}
		tmps[ref] = f.Name()
		files = append(files, f.Name())
		if err := f.Close(); err != nil {
			return err
		}
	}
	if err := s.fault(faultSync, dir, 0); err != nil {
		return err
	}
	if err := syncFiles(s.root, files); err != nil {
		return err
	}
	for ref, t := range tmps {
		if err := s.fault(faultRename, s.refPath(ref), 0); err != nil {
			return err
		}
		if err := os.Rename(t, s.refPath(ref)); err != nil {
			return err
		}
		delete(tmps, ref)
	}
	syncDir(dir)
	return nil
}
