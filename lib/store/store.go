// Package store is the content-addressed object store under .ctx/: objects
// named by the SHA-256 of their bytes, the packs/ index, refs and drafts.
//
// It knows nothing of manifests, drift or replay: it stores and returns bytes,
// and it must never return an object whose bytes do not hash to its name,
// never rewrite an object, never follow a symlink planted in the store, and
// never expose a half-written object under its final name.
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Dir is the name of the store directory that discovery looks for.
const Dir = ".ctx"

// Layout names, relative to the store root.
const (
	objectsDir = "objects"
	packsDir   = "packs"
	refsDir    = "refs"
	tagsDir    = "refs/tags"
	draftsDir  = "drafts"
	tmpDir     = "tmp"
	configFile = "config.json"
)

// Store is an open .ctx directory.
type Store struct {
	root   string
	faults faultHook // nil but in tests: see fault.go
}

// Root returns the path of the .ctx directory.
func (s *Store) Root() string { return s.root }

// DraftsDir returns the directory forked drafts are written to.
func (s *Store) DraftsDir() string { return filepath.Join(s.root, draftsDir) }

// ConfigPath returns the path of config.json.
func (s *Store) ConfigPath() string { return filepath.Join(s.root, configFile) }

// Init creates a store at root (the .ctx directory itself). When a store is
// already there it changes nothing and reports created == false.
func Init(root string) (created bool, err error) {
	if fi, err := os.Lstat(root); err == nil {
		if !fi.IsDir() {
			return false, fmt.Errorf("%s exists and is not a directory", root)
		}
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	// Build the layout beside the final name and rename it into place, so a
	// crash or a concurrent init never leaves half a store.
	parent := filepath.Dir(root)
	tmp, err := os.MkdirTemp(parent, ".ctx-init-*")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	for _, d := range []string{objectsDir, packsDir, refsDir, tagsDir, draftsDir, tmpDir} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			return false, err
		}
	}
	cfg, _ := json.Marshal(map[string]any{"version": 1})
	if err := os.WriteFile(filepath.Join(tmp, configFile), append(cfg, '\n'), 0o644); err != nil {
		return false, err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, root); err != nil {
		if _, statErr := os.Lstat(root); statErr == nil {
			return false, nil // another init won the race
		}
		return false, err
	}
	syncDir(parent)
	return true, nil
}

// Open opens the store at root, the .ctx directory itself.
func Open(root string) (*Store, error) {
	fi, err := os.Stat(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("no ctx store at %s (run 'ctx init')", root)
		}
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a ctx store: not a directory", root)
	}
	if fi, err := os.Lstat(filepath.Join(root, objectsDir)); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a ctx store: no objects/ directory", root)
	}
	return &Store{root: root}, nil
}

// Find walks up from dir to the nearest directory holding a .ctx store, like
// git looks for .git, and returns the store's path.
func Find(dir string) (string, bool) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		p := filepath.Join(dir, Dir)
		if fi, err := os.Stat(filepath.Join(p, objectsDir)); err == nil && fi.IsDir() {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// objectPath returns the path of h: objects/ab/cdef...
func (s *Store) objectPath(h Hash) string {
	hx := h.Hex()
	return filepath.Join(s.root, objectsDir, hx[:2], hx[2:])
}

// ObjectPath returns where h is (or would be) stored, for messages and for
// tools that hand the file to sha256sum.
func (s *Store) ObjectPath(h Hash) string { return s.objectPath(h) }

func (s *Store) tmp() string { return filepath.Join(s.root, tmpDir) }

// syncDir makes a directory's entries durable; errors are ignored because
// some filesystems cannot sync directories and the data itself was synced.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
