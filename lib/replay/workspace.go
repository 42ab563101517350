package replay

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/contextsubstrate/ctx/lib/beneath"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Workspace is the directory the steps of a replay run in: a fresh
// temporary directory holding the pack's inputs, or a real tree
// (--workdir). Every file operation of the built-ins goes through an
// os.Root, so neither "..", an absolute path nor a symlink can lead a step
// outside it.
type Workspace struct {
	dir  string // absolute, symlinks resolved
	root *os.Root
	fast *beneath.Dir // openat2 on Linux; nil if the directory would not open
	temp bool
	// guard is the resolved path of a store that lies inside a --workdir
	// tree; no step may reach it, even through a symlink in the tree.
	guard string
	// unavailable maps an input's name to why it could not be placed in
	// the workspace, so a step that needs it fails with that reason.
	unavailable map[string]string
	// made holds the directories staging created, so a thousand inputs in
	// one directory make it once.
	made map[string]bool
	// checkout is set when the workspace holds a checkout (--repo): the
	// inputs replace the files it has under their names.
	checkout bool
}

// NewWorkspace is the workspace of a replay: the existing tree workdir
// (OpenWorkspace), or a new temporary directory when workdir is empty.
func NewWorkspace(workdir, storeDir string) (*Workspace, error) {
	if workdir != "" {
		return OpenWorkspace(workdir, storeDir)
	}
	return NewTempWorkspace()
}

// NewTempWorkspace creates an empty temporary workspace. Remove deletes it.
func NewTempWorkspace() (*Workspace, error) {
	dir, err := os.MkdirTemp("", "ctx-replay-*")
	if err != nil {
		return nil, fmt.Errorf("cannot create a temporary workspace: %w", err)
	}
	w, err := openWorkspace(dir, "")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	w.temp = true
	return w, nil
}

// OpenWorkspace uses the existing directory dir as the workspace (a real
// tree: nothing is staged into it and nothing is removed). storeDir is the
// .ctx directory of the replay; when it lies inside dir, steps are kept out
// of it.
func OpenWorkspace(dir, storeDir string) (*Workspace, error) {
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("workdir %s: %v", dir, text.UnwrapPath(err))
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("workdir %s is not a directory", dir)
	}
	return openWorkspace(dir, storeDir)
}

func openWorkspace(dir, storeDir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("workdir %s: %v", dir, text.UnwrapPath(err))
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("workdir %s: %v", dir, text.UnwrapPath(err))
	}
	fast, _ := beneath.Open(real, beneath.Inside) // os.Root says why, if it matters
	w := &Workspace{dir: real, root: root, fast: fast, unavailable: map[string]string{}, made: map[string]bool{}}
	if storeDir != "" {
		if s, err := filepath.Abs(storeDir); err == nil {
			if s, err := filepath.EvalSymlinks(s); err == nil && within(real, s) {
				w.guard = s
			}
		}
	}
	return w, nil
}

// Dir returns the workspace's absolute path.
func (w *Workspace) Dir() string { return w.dir }

// Temporary reports whether the workspace is a temporary directory that
// Remove deletes.
func (w *Workspace) Temporary() bool { return w.temp }

// Close releases the workspace's directory handles.
func (w *Workspace) Close() error {
	w.fast.Close()
	return w.root.Close()
}

// openFile opens rel under the workspace, never outside it.
func (w *Workspace) openFile(rel string, flag int, perm os.FileMode) (*os.File, error) {
	if fd, err, ok := w.fast.OpenFD(rel, flag, perm); ok {
		if err != nil {
			return nil, &os.PathError{Op: "openat2", Path: rel, Err: err}
		}
		return os.NewFile(uintptr(fd), filepath.Join(w.dir, rel)), nil
	}
	return w.root.OpenFile(rel, flag, perm)
}

// Remove deletes a temporary workspace and everything in it, even what a
// shell step made read-only. It does nothing to a --workdir tree.
func (w *Workspace) Remove() error {
	if !w.temp {
		return nil
	}
	if err := os.RemoveAll(w.dir); err == nil {
		return nil
	}
	// Something (a shell step's chmod) left a directory without write
	// permission: give it back and try once more. Symlinks are not
	// followed, so nothing outside the workspace changes mode.
	filepath.WalkDir(w.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(w.dir)
}

// CleanPath turns a path taken from a step's parameters into a clean,
// slash-separated path relative to the workspace ("." for the workspace
// itself). It refuses what could reach outside: an absolute path, a drive
// letter, a ".." element, a backslash or NUL; and any element naming a .ctx
// store. "./a//b/" is a/b.
func CleanPath(p string) (string, error) {
	switch {
	case p == "":
		return "", errors.New("empty path")
	case strings.ContainsRune(p, 0):
		return "", fmt.Errorf("%q holds a NUL byte", p)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return "", fmt.Errorf("%s is absolute; paths are relative to the workspace", p)
	case len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z'):
		return "", fmt.Errorf("%s has a drive letter; paths are relative to the workspace", p)
	case strings.Contains(p, `\`):
		return "", fmt.Errorf("%s holds a backslash; paths are slash-separated", p)
	}
	elems := strings.Split(p, "/")
	out := elems[:0]
	for _, el := range elems {
		switch {
		case el == "" || el == ".":
			continue
		case el == "..":
			return "", fmt.Errorf("%s leaves the workspace", p)
		case strings.EqualFold(el, store.Dir):
			return "", fmt.Errorf("%s enters a .ctx store", p)
		}
		out = append(out, el)
	}
	if len(out) == 0 {
		return ".", nil
	}
	return strings.Join(out, "/"), nil
}

// resolve is CleanPath plus the store guard of a --workdir tree.
func (w *Workspace) resolve(p string) (string, error) {
	rel, err := CleanPath(p)
	if err != nil {
		return "", err
	}
	if w.guard != "" && within(w.guard, w.realPath(rel)) {
		return "", fmt.Errorf("%s reaches the ctx store through a symlink", p)
	}
	return rel, nil
}

// realPath resolves the symlinks of rel as far as it exists, for the checks
// that need to know where a path really leads.
func (w *Workspace) realPath(rel string) string {
	full := filepath.Join(w.dir, filepath.FromSlash(rel))
	rest := ""
	for {
		if real, err := filepath.EvalSymlinks(full); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(full)
		if parent == full || !within(w.dir, parent) {
			return filepath.Join(w.dir, filepath.FromSlash(rel))
		}
		rest = filepath.Join(filepath.Base(full), rest)
		full = parent
	}
}

// escapes reports whether rel leads outside the workspace through a
// symlink. It is asked only after an operation failed, to say why.
func (w *Workspace) escapes(rel string) bool {
	return !within(w.dir, w.realPath(rel))
}

// needs fails when rel is an input that could not be placed in the
// workspace, or (tree) a directory holding one, with the reason: a step
// that needs a missing input fails rather than run on half the data.
func (w *Workspace) needs(rel string, tree bool) error {
	if len(w.unavailable) == 0 {
		return nil
	}
	if why, ok := w.unavailable[rel]; ok {
		return errors.New(why)
	}
	if tree {
		for name, why := range w.unavailable {
			if rel == "." || strings.HasPrefix(name, rel+"/") {
				return errors.New(why)
			}
		}
	}
	return nil
}

// wrote records that a step created rel, which is then no longer missing.
func (w *Workspace) wrote(rel string) {
	if len(w.unavailable) > 0 {
		delete(w.unavailable, rel)
	}
}

// opError explains a failed file operation on rel in the words of the
// workspace: no such file, a symlink that leaves it, or the system's reason.
// The cause stays reachable with errors.Is.
func (w *Workspace) opError(rel string, err error) error {
	if why, ok := w.unavailable[rel]; ok {
		return &wsError{why, err}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if w.escapes(rel) {
			return &wsError{rel + " leads outside the workspace through a symlink", err}
		}
		return &wsError{rel + ": no such file in the workspace", err}
	case beneath.IsEscape(err) || w.escapes(rel) || strings.Contains(err.Error(), "escapes from parent"):
		return &wsError{rel + " leads outside the workspace through a symlink", err}
	}
	return &wsError{fmt.Sprintf("%s: %v", rel, text.UnwrapPath(err)), err}
}

// wsError is a file operation's failure, said for the workspace.
type wsError struct {
	msg string
	err error
}

func (e *wsError) Error() string { return e.msg }
func (e *wsError) Unwrap() error { return e.err }

// openRead opens the regular file rel for reading. O_NONBLOCK keeps a
// named pipe from blocking the replay; anything but a regular file is
// refused.
func (w *Workspace) openRead(rel string) (io.ReadCloser, error) {
	rc, mode, err, ok := w.openReadFast(rel)
	if !ok {
		rc, mode, err = w.openReadRoot(rel)
	}
	switch {
	case err != nil:
		return nil, w.opError(rel, err)
	case mode.IsDir():
		return nil, fmt.Errorf("%s is a directory", rel)
	case rc == nil:
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	return rc, nil
}

// openReadRoot is openRead through os.Root; rc is nil unless the file is
// regular.
func (w *Workspace) openReadRoot(rel string) (rc io.ReadCloser, mode fs.FileMode, err error) {
	f, err := w.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fi.Mode(), nil
	}
	return f, fi.Mode(), nil
}

// create opens rel for writing, making its parent directories; append
// keeps what is there. Only a regular file (or none) may be at rel.
func (w *Workspace) create(rel string, appendTo bool) (*os.File, error) {
	if rel == "." {
		return nil, errors.New("the workspace itself is not a file")
	}
	if err := w.noDotGit(rel); err != nil {
		return nil, err
	}
	if fi, err := w.root.Stat(rel); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return nil, fmt.Errorf("%s is a directory", rel)
		}
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	if dir := path.Dir(rel); dir != "." {
		if err := w.root.MkdirAll(dir, 0o755); err != nil {
			return nil, w.opError(rel, err)
		}
	}
	flag := os.O_WRONLY | os.O_CREATE | syscall.O_NONBLOCK
	if appendTo {
		flag |= os.O_APPEND
	} else {
		flag |= os.O_TRUNC
	}
	f, err := w.openFile(rel, flag, 0o644)
	if err != nil {
		return nil, w.opError(rel, err)
	}
	return f, nil
}

// noDotGit refuses a write into a .git directory, named so or reached
// through a symlink of the tree: a step that rewrites .git/config or plants
// a hook would run a command on the next git status, which only a shell
// step, with --allow-exec, may do.
func (w *Workspace) noDotGit(rel string) error {
	real, err := filepath.Rel(w.dir, w.realPath(rel))
	if err != nil {
		real = rel
	}
	for _, p := range []string{rel, filepath.ToSlash(real)} {
		for _, el := range strings.Split(p, "/") {
			if pack.IsDotGit(el) {
				return fmt.Errorf("%s enters a .git directory (%q): replay never writes into one", rel, el)
			}
		}
	}
	return nil
}

// prepareDir makes the directory of input name, once per directory. The
// directories are made one by one before the files are copied in
// parallel, so no two copies race to make one; a failure is left for
// stage to report.
func (w *Workspace) prepareDir(name string) {
	if pack.CheckName(name) != nil {
		return
	}
	if dir := path.Dir(name); dir != "." && !w.made[dir] {
		if w.root.MkdirAll(dir, 0o755) == nil {
			w.made[dir] = true
		}
	}
}

// stage copies input f from the store into a temporary workspace whose
// directories prepareDir made, verifying the hash as it goes (through
// buf). A missing or damaged blob leaves the file out and returns the drift
// and what a step that needs the input will say. stage may run for several
// inputs at once.
func (w *Workspace) stage(st *store.Store, f pack.File, buf []byte) (*replaystream.Drift, string) {
	cannot := func(err error) (*replaystream.Drift, string) {
		err = text.UnwrapPath(err)
		return &replaystream.Drift{Kind: replaystream.DriftMissingInput, Name: f.Name, Expected: f.ContentRef, Reason: err.Error()},
			fmt.Sprintf("input %s cannot be placed in the workspace: %v", f.Name, err)
	}
	if err := pack.CheckName(f.Name); err != nil {
		return cannot(err)
	}
	obj, err := st.Open(f.ContentRef)
	if err != nil {
		return objectDrift(err, f.Name, f.ContentRef), inputReason(err, f.Name, f.ContentRef)
	}
	defer obj.Close()
	if w.checkout {
		// The input is the run's version of a file of the checkout: it
		// replaces it (a symlink too, never followed).
		w.root.Remove(f.Name)
	}
	// The workspace is fresh: O_EXCL, so two inputs can never share a file.
	out, err := w.openFile(f.Name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return cannot(err)
	}
	_, err = copyBuffer(out, obj, buf)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		w.root.Remove(f.Name)
		var ce *store.CorruptError
		if errors.As(err, &ce) {
			return objectDrift(err, f.Name, f.ContentRef), inputReason(err, f.Name, f.ContentRef)
		}
		return cannot(err)
	}
	return nil, ""
}

// hashFile hashes the regular file rel of the workspace into c.
func (w *Workspace) hashFile(rel string, c *capture, buf []byte) error {
	f, err := w.openRead(rel)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = copyBuffer(c, f, buf)
	return err
}

// objectDrift is the drift of an input whose blob the store cannot give.
func objectDrift(err error, name string, h store.Hash) *replaystream.Drift {
	var ce *store.CorruptError
	if errors.As(err, &ce) {
		return &replaystream.Drift{Kind: replaystream.DriftCorruptInput, Name: name, Expected: h, Actual: ce.Actual}
	}
	d := &replaystream.Drift{Kind: replaystream.DriftMissingInput, Name: name, Expected: h}
	if !errors.Is(err, store.ErrNotFound) {
		d.Reason = err.Error()
	}
	return d
}

// inputReason is what a step that needs a missing input says.
func inputReason(err error, name string, h store.Hash) string {
	var ce *store.CorruptError
	switch {
	case errors.As(err, &ce) && ce.Actual != nil:
		return fmt.Sprintf("input %s is corrupt in the store (expected %s, found %s)", name, h, ce.Actual)
	case errors.As(err, &ce):
		return fmt.Sprintf("input %s is corrupt in the store (expected %s)", name, h)
	case errors.Is(err, store.ErrNotFound):
		return fmt.Sprintf("input %s is missing from the store (expected %s)", name, h)
	}
	return fmt.Sprintf("input %s cannot be read from the store: %v", name, err)
}

// within reports whether p is dir or below it (both clean, absolute).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// copyBuffer copies src to dst through buf, without the io.Copy shortcuts
// (WriterTo, ReaderFrom) that would bypass the buffer or allocate.
func copyBuffer(dst io.Writer, src io.Reader, buf []byte) (int64, error) {
	var n int64
	for {
		m, err := src.Read(buf)
		if m > 0 {
			w, werr := dst.Write(buf[:m])
			n += int64(w)
			if werr != nil {
				return n, werr
			}
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}
