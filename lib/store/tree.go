package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextsubstrate/ctx/lib/beneath"
)

// ErrEscapes is matched (errors.Is) by an attempt to open a file of a Tree
// through a path or symlink that leads outside it.
var ErrEscapes = errors.New("leads outside the directory")

// Tree is a directory that files are read from without ever leaving it: no
// "..", absolute path or symlink can make Open reach a file outside. It is
// where PutFile reads the files a log names (pack never reads outside its
// root), and the check happens when the file is opened, so nothing can swap
// a symlink in between a check and the read.
type Tree struct {
	path string
	abs  string // path made absolute, for the stat cache
	dir  *beneath.Dir
	root *os.Root
}

// OpenTree opens the directory at path.
func OpenTree(path string) (*Tree, error) {
	dir, err := beneath.Open(path, beneath.Inside)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(path)
	if err != nil {
		dir.Close()
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return &Tree{path: path, abs: abs, dir: dir, root: root}, nil
}

// Path returns the directory's path.
func (t *Tree) Path() string { return t.path }

// Close releases the directory.
func (t *Tree) Close() error {
	t.root.Close()
	return t.dir.Close()
}

// Open opens the regular file rel (slash-separated, relative) for reading.
func (t *Tree) Open(rel string) (*os.File, error) {
	f, _, err := t.OpenStat(rel)
	return f, err
}

// OpenStat is Open that also returns the file's status, taken from the
// open file.
func (t *Tree) OpenStat(rel string) (*os.File, fs.FileInfo, error) {
	if rel == "" || strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) {
		return nil, nil, fmt.Errorf("%s: %w", rel, ErrEscapes)
	}
	f, err := t.openBeneath(filepath.FromSlash(rel))
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes") {
			return nil, nil, fmt.Errorf("%s: %w", rel, ErrEscapes)
		}
		return nil, nil, err
	}
	return regular(f, func() error { return fmt.Errorf("%s is not a regular file", rel) })
}
