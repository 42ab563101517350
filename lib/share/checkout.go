package share

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
	"github.com/contextsubstrate/ctx/lib/store"
)

// CheckoutOptions choose what ctx checkout writes.
type CheckoutOptions struct {
	Outputs bool // write the outputs, each with its provenance sidecar, instead of the inputs
	Force   bool // replace files (and sidecars) whose content differs
	// Interrupt, when set, is given what undoes the checkout, to run on an
	// interrupt (cli.OnSignal); the function it returns ends that.
	Interrupt func(undo func()) (stop func())

	beforeWrite func() // tests: runs between the checks and the first write
	staged      func() // tests: runs after each file is staged
}

// CheckoutResult says what a checkout did, by file name under the
// directory, in the pack's order.
type CheckoutResult struct {
	Written   []string `json:"written"`   // files created or replaced
	Unchanged []string `json:"unchanged"` // files that already held the pack's bytes
	Sidecars  []string `json:"sidecars"`  // sidecars written (with Outputs)
}

// Conflict is a file a checkout cannot write.
type Conflict struct {
	Path   string // the file, under the directory
	Reason string
	Force  bool // --force would let the checkout replace it
}

// ConflictError lists every file a checkout refused to write; nothing was
// written.
type ConflictError struct {
	Conflicts []Conflict
}

// Error lists the conflicts, one per line, each with its file.
func (e *ConflictError) Error() string {
	lines := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		lines[i] = c.Path + ": " + c.Reason
	}
	return strings.Join(lines, "\n")
}

// Forceable reports whether --force would resolve every conflict.
func (e *ConflictError) Forceable() bool {
	for _, c := range e.Conflicts {
		if !c.Force {
			return false
		}
	}
	return true
}

// item is one file of a checkout.
type item struct {
	name   string // the name in the pack
	dir    string // the directory of the name ("" for DIR itself)
	base   string // the name's last element
	hash   store.Hash
	size   int64
	output int  // index in the outputs, or -1 for an input
	write  bool // false when the file already holds the bytes
	fresh  bool // nothing was at the name when the checkout was inspected
	// The sidecar of an output: whether to write it, and whether one was
	// there (and is replaced).
	sidecar, sidecarOld bool
}

// Checkout writes the inputs of pack m (or, with Outputs, its outputs and
// their sidecars) into dir, which is created when missing. It checks every
// file before writing any: an unsafe name (absolute, with "..", entering a
// .ctx store or a .git directory), a path through a symlink or a file where
// a directory is needed, and a file that differs from the pack's (unless
// Force) stop the checkout with a *ConflictError or an error listing them,
// and nothing is written. Files already holding the pack's bytes are left
// alone.
//
// Everything under dir is written through directory handles, never by a
// path string, and never through a symlink (store.OutDir): when the tree
// changes between the checks and the writes, the checkout fails (a
// *store.WayError or a *FoldError) and nothing is written outside dir. Each
// file is written to a temporary file beside it, verified against its hash
// as it is copied out of the store, and renamed into place only when every
// file has been staged; a new file is never created under its name before
// its bytes are complete, and never replaces one that appeared meanwhile.
// On any failure, and on an interrupt (Interrupt), what the checkout made
// is removed again: temporary files, new files, new directories. Temporary
// files a killed checkout left (store.StaleTemp) in the directories it
// writes are removed.
func Checkout(st *store.Store, m *pack.Manifest, dir string, opts CheckoutOptions) (*CheckoutResult, error) {
	dir = filepath.Clean(dir)
	items, err := plan(m, dir, opts)
	if err != nil {
		return nil, err
	}
	w := &checkout{st: st, m: m, items: items, opts: opts, dirs: map[string]*store.OutDir{}}
	defer w.close()
	exists := false
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", dir)
	} else if err == nil {
		exists = true
		if w.top, err = store.OpenOutDir(dir); err != nil {
			return nil, err
		}
	}
	if err := w.inspect(opts); err != nil {
		return nil, err
	}
	if opts.Interrupt != nil {
		defer opts.Interrupt(w.undo)()
	}
	if !exists {
		// DIR itself is made by its path, which the user gave.
		if w.madeTop, err = mkdirs(dir); err != nil {
			w.undo()
			return nil, err
		}
		if w.top, err = store.OpenOutDir(dir); err != nil {
			w.undo()
			return nil, err
		}
	}
	w.closeDirs() // the writes open every directory afresh
	if opts.beforeWrite != nil {
		opts.beforeWrite()
	}
	res, err := w.write()
	if err != nil {
		w.undo()
		return nil, err
	}
	return res, nil
}

// checkout is the state of one Checkout: the directory handles, and what
// was made, to undo on a failure or an interrupt.
type checkout struct {
	st    *store.Store
	m     *pack.Manifest
	items []item
	opts  CheckoutOptions
	top   *store.OutDir
	dirs  map[string]*store.OutDir // by directory under top; nil for one that is missing

	mu      sync.Mutex
	done    bool     // finished or undone: nothing more is made or undone
	madeTop []string // DIR and the directories above it made by path
	made    []string // directories made under top, top first
	temps   []placed // temporary files staged
	fresh   []placed // new files placed under their names
}

// placed is a file in a directory of the checkout.
type placed struct {
	dir  *store.OutDir
	name string
}

// sub returns the directory rel under top (cached; nil when it does not
// exist and create is false).
func (w *checkout) sub(rel string, create bool) (*store.OutDir, error) {
	if d, ok := w.dirs[rel]; ok && (d != nil || !create) {
		return d, nil
	}
	if create {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.done {
			return nil, errors.New("the checkout was stopped")
		}
	}
	d, made, err := w.top.Sub(rel, create)
	w.made = append(w.made, made...)
	if errors.Is(err, fs.ErrNotExist) && !create {
		w.dirs[rel] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	w.dirs[rel] = d
	return d, nil
}

func (w *checkout) closeDirs() {
	for k, d := range w.dirs {
		if d != nil {
			d.Close()
		}
		delete(w.dirs, k)
	}
}

func (w *checkout) close() {
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	w.closeDirs()
	if w.top != nil {
		w.top.Close()
	}
}

// undo removes what the checkout made, once; it runs on a failure, or on
// an interrupt from another goroutine. Once it has run, stage and place
// refuse to make anything more.
func (w *checkout) undo() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return
	}
	w.done = true
	for _, p := range w.temps {
		p.dir.Remove(p.name)
	}
	for _, p := range w.fresh {
		p.dir.Remove(p.name)
	}
	// Directories made, deepest first; a directory not empty stays.
	for i := len(w.made) - 1; i >= 0 && w.top != nil; i-- {
		w.top.RemoveDir(w.made[i])
	}
	for i := len(w.madeTop) - 1; i >= 0; i-- {
		os.Remove(w.madeTop[i])
	}
}

// write stages every file, then places each under its name.
func (w *checkout) write() (*CheckoutResult, error) {
	type staged struct {
		it      *item
		d       *store.OutDir
		tmp     string // the file's, "" when it is unchanged
		sidecar string // its sidecar's, "" when none is written
	}
	var all []staged
	seen := map[string]bool{}
	for i := range w.items {
		it := &w.items[i]
		if !it.write && !it.sidecar {
			continue
		}
		d, err := w.sub(it.dir, true)
		if err != nil {
			return nil, fmt.Errorf("name %q: %w", it.name, wayHint(err))
		}
		if !seen[it.dir] {
			seen[it.dir] = true
			removeLeftovers(d)
		}
		s := staged{it: it, d: d}
		if it.write {
			if s.tmp, err = w.stage(d, func(f *os.File) error { return copyObject(w.st, it.hash, f) }); err != nil {
				return nil, fmt.Errorf("%s: %w", it.name, err)
			}
			if w.opts.staged != nil {
				w.opts.staged()
			}
		}
		if it.sidecar {
			data, err := sidecar.Encode(sidecar.New(w.m, it.output))
			if err == nil {
				s.sidecar, err = w.stage(d, func(f *os.File) error { _, err := f.Write(data); return err })
			}
			if err != nil {
				return nil, fmt.Errorf("%s: %w", it.name+sidecar.Suffix, err)
			}
		}
		all = append(all, s)
	}
	res := &CheckoutResult{Written: []string{}, Unchanged: []string{}, Sidecars: []string{}}
	for i := range w.items {
		if !w.items[i].write {
			res.Unchanged = append(res.Unchanged, w.items[i].name)
		}
	}
	for _, s := range all {
		if s.tmp != "" {
			if err := w.place(s.d, s.tmp, s.it.base, !s.it.fresh); err != nil {
				return nil, w.placeError(s.d, s.it, err)
			}
			res.Written = append(res.Written, s.it.name)
		}
		if s.sidecar != "" {
			if err := w.place(s.d, s.sidecar, s.it.base+sidecar.Suffix, s.it.sidecarOld); err != nil {
				return nil, w.placeError(s.d, &item{name: s.it.name + sidecar.Suffix}, err)
			}
			res.Sidecars = append(res.Sidecars, s.it.name+sidecar.Suffix)
		}
	}
	w.mu.Lock()
	w.done = true
	w.mu.Unlock()
	return res, nil
}

// stage writes a new temporary file in d with fill, and records it.
func (w *checkout) stage(d *store.OutDir, fill func(*os.File) error) (string, error) {
	w.mu.Lock()
	if w.done {
		w.mu.Unlock()
		return "", errors.New("the checkout was stopped")
	}
	tmp, f, err := d.CreateTemp()
	if err == nil {
		w.temps = append(w.temps, placed{d, tmp})
	}
	w.mu.Unlock()
	if err != nil {
		return "", err
	}
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return tmp, err
}

// place renames a staged file to its name, and records a new one.
func (w *checkout) place(d *store.OutDir, tmp, name string, replace bool) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errors.New("the checkout was stopped")
	}
	if err := d.Place(tmp, name, replace); err != nil {
		return err
	}
	for i, p := range w.temps {
		if p.dir == d && p.name == tmp {
			w.temps = append(w.temps[:i], w.temps[i+1:]...)
			break
		}
	}
	if !replace {
		w.fresh = append(w.fresh, placed{d, name})
	}
	return nil
}

// placeError says why a file could not take its name: a file there that
// was not when the checkout looked is another name of the pack that the
// file system folds into this one, or something made meanwhile.
func (w *checkout) placeError(d *store.OutDir, it *item, err error) error {
	if !errors.Is(err, fs.ErrExist) {
		return err
	}
	fe := &FoldError{Dir: w.top.Path(), Name: it.name}
	if fi, err := d.Lstat(it.base); err == nil {
		for _, p := range w.fresh {
			if pi, err := p.dir.Lstat(p.name); err == nil && store.SameFile(fi, pi) {
				fe.Other = w.nameOf(p)
			}
		}
	}
	return fe
}

// nameOf returns the pack's name of a placed file.
func (w *checkout) nameOf(p placed) string {
	for _, it := range w.items {
		if w.dirs[it.dir] == p.dir && it.base == p.name {
			return it.name
		}
	}
	return p.name
}

// copyObject copies object h out of the store into f, verifying its hash.
func copyObject(st *store.Store, h store.Hash, f *os.File) error {
	o, err := st.Open(h)
	if err != nil {
		return err
	}
	defer o.Close()
	_, err = o.WriteTo(f)
	return err
}

// removeLeftovers removes the temporary files that a killed ctx left in d
// (store.StaleTemp): never another's, nor one a running ctx writes.
func removeLeftovers(d *store.OutDir) {
	names, err := d.Names()
	if err != nil {
		return
	}
	for _, n := range names {
		if store.StaleTemp(n) {
			d.Remove(n)
		}
	}
}

// wayHint words a *store.WayError met while writing: the tree changed
// after it was checked.
func wayHint(err error) error {
	var we *store.WayError
	if errors.As(err, &we) {
		return fmt.Errorf("%w (it changed while the checkout ran); ctx checkout never writes through one", we)
	}
	return err
}

// FoldError says two names of a pack are one file in the checkout's
// directory; nothing was written.
type FoldError struct {
	Dir   string
	Name  string // the name whose file was found already there
	Other string // the name of the pack that is the same file, when known
}

// Error names both names and why they can be one file.
func (e *FoldError) Error() string {
	if e.Other == "" {
		return fmt.Sprintf("name %q: a file appeared in %s while the checkout was writing it", e.Name, e.Dir)
	}
	return fmt.Sprintf("names %q and %q are one file in %s: its filesystem folds them (case or Unicode normalisation) or a mount joins their directories", e.Other, e.Name, e.Dir)
}

// plan lists the files of the checkout and refuses names that are unsafe or
// that collide: a file where another needs a directory, or an output whose
// name is another output's sidecar.
func plan(m *pack.Manifest, dir string, opts CheckoutOptions) ([]item, error) {
	var items []item
	if opts.Outputs {
		for i, o := range m.Outputs {
			items = append(items, item{name: o.Name, hash: o.ContentRef, size: o.Size, output: i})
		}
	} else {
		for _, f := range m.Inputs {
			items = append(items, item{name: f.Name, hash: f.ContentRef, size: f.Size, output: -1})
		}
	}
	var bad []string
	names := make(map[string]bool, len(items))
	for i := range items {
		it := &items[i]
		if err := pack.CheckName(it.name); err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if names[it.name] {
			bad = append(bad, fmt.Sprintf("name %q is given twice", it.name))
			continue
		}
		names[it.name] = true
		it.dir, it.base = "", it.name
		if i := strings.LastIndexByte(it.name, '/'); i >= 0 {
			it.dir, it.base = it.name[:i], it.name[i+1:]
		}
	}
	for _, it := range items {
		if it.base == "" {
			continue
		}
		for p := it.name; ; {
			i := strings.LastIndexByte(p, '/')
			if i < 0 {
				break
			}
			p = p[:i]
			if names[p] {
				bad = append(bad, fmt.Sprintf("name %q needs %q to be a directory, but the pack also has a file of that name", it.name, p))
			}
		}
		if opts.Outputs && names[it.name+sidecar.Suffix] {
			bad = append(bad, fmt.Sprintf("output %q would be overwritten by the sidecar of output %q", it.name+sidecar.Suffix, it.name))
		}
	}
	if len(bad) > 0 {
		return nil, &UnsafeError{Problems: bad}
	}
	return items, nil
}

// UnsafeError lists the names of a pack that cannot be written safely;
// nothing was written.
type UnsafeError struct {
	Problems []string
}

// Error lists the problems, one per line.
func (e *UnsafeError) Error() string { return strings.Join(e.Problems, "\n") }

// inspect looks at what is on disk where each file goes, through the
// directory handles: which files need writing, and what stands in the way.
func (w *checkout) inspect(opts CheckoutOptions) error {
	var conflicts []Conflict
	add := func(path, reason string, force bool) {
		if !(force && opts.Force) {
			conflicts = append(conflicts, Conflict{Path: path, Reason: reason, Force: force})
		}
	}
	for i := range w.items {
		it := &w.items[i]
		it.write, it.fresh, it.sidecar = true, true, it.output >= 0
		if w.top == nil {
			continue // DIR does not exist: every file is new
		}
		d, err := w.sub(it.dir, false)
		var we *store.WayError
		switch {
		case errors.As(err, &we) && we.What == "a symlink":
			add(it.name, we.Path+" is a symlink; ctx checkout never writes through one", false)
			continue
		case errors.As(err, &we):
			add(it.name, we.Path+" is a file where a directory is needed", false)
			continue
		case err != nil:
			return err
		case d == nil:
			continue // its directory is missing: the file is new
		}
		fi, err := d.Lstat(it.base)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case fi.Mode().IsRegular():
			it.fresh = false
			same, err := sameContent(d, it.base, fi.Size(), it.size, it.hash)
			if err != nil {
				return err
			}
			if same {
				it.write = false
			} else {
				add(it.name, "exists with other content", true)
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			it.fresh = false
			add(it.name, "is a symlink; ctx checkout never writes through one", true)
		case fi.IsDir():
			add(it.name, "is a directory", false)
		default:
			add(it.name, "is not a regular file", false)
		}
		if it.sidecar {
			if err := w.inspectSidecar(d, it, add); err != nil {
				return err
			}
		}
	}
	if len(conflicts) > 0 {
		sort.SliceStable(conflicts, func(i, j int) bool { return conflicts[i].Path < conflicts[j].Path })
		return &ConflictError{Conflicts: conflicts}
	}
	return nil
}

// inspectSidecar decides whether the sidecar of an output needs writing.
// A sidecar that says something else is replaced only with --force; a file
// there that is not a sidecar never is.
func (w *checkout) inspectSidecar(d *store.OutDir, it *item, add func(string, string, bool)) error {
	name := it.name + sidecar.Suffix
	fi, err := d.Lstat(it.base + sidecar.Suffix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.Mode().IsRegular():
		add(name, "is not a regular file, so no sidecar can be written there", false)
		it.sidecar = false
		return nil
	}
	it.sidecarOld = true
	f, err := d.OpenRead(it.base + sidecar.Suffix)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, sidecar.MaxSize+1))
	if err != nil {
		return err
	}
	sc, err := sidecar.Parse(b)
	switch {
	case len(b) > sidecar.MaxSize || errors.Is(err, sidecar.ErrNotSidecar):
		add(name, "exists and is not a ctx sidecar", false)
		it.sidecar = false
	case err != nil:
		return err
	case reflect.DeepEqual(sc, sidecar.New(w.m, it.output)):
		it.sidecar = false
	default:
		add(name, fmt.Sprintf("is the sidecar of another pack (%s)", sc.ContextPack), true)
	}
	return nil
}

// sameContent reports whether the file name of d, of the given size, holds
// exactly the object h of the given size.
func sameContent(d *store.OutDir, name string, size, want int64, h store.Hash) (bool, error) {
	if size != want {
		return false, nil
	}
	f, err := d.OpenRead(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	sum := sha256.New()
	if _, err := io.Copy(sum, f); err != nil {
		return false, err
	}
	var got store.Hash
	sum.Sum(got[:0])
	return got == h, nil
}

// mkdirs creates sub and the directories above it that are missing, and
// returns those it made, top first, so a failed checkout can remove them
// again.
func mkdirs(sub string) ([]string, error) {
	var missing []string
	for p := sub; ; p = filepath.Dir(p) {
		if _, err := os.Lstat(p); err == nil {
			break
		}
		missing = append(missing, p)
		if filepath.Dir(p) == p {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o777); err != nil && !errors.Is(err, fs.ErrExist) {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}
