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

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/verify"
)

// CheckoutOptions choose what ctx checkout writes.
type CheckoutOptions struct {
	Outputs bool // write the outputs, each with its provenance sidecar, instead of the inputs
	Force   bool // replace files (and sidecars) whose content differs
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
	name    string // the name in the pack
	hash    store.Hash
	size    int64
	output  int    // index in the outputs, or -1 for an input
	target  string // the path under dir
	write   bool   // false when the file already holds the bytes
	sidecar bool   // write the sidecar
	tmp     string // the staged file, before it is renamed into place
	fresh   bool   // target did not exist when the checkout was inspected
}

// Checkout writes the inputs of pack m (or, with Outputs, its outputs and
// their sidecars) into dir, which is created when missing. It checks every
// file before writing any: an unsafe name (absolute, with "..", entering a
// .ctx store), a path through a symlink or a file where a directory is
// needed, and a file that differs from the pack's (unless Force) stop the
// checkout with a *ConflictError or an error listing them, and nothing is
// written. Files already holding the pack's bytes are left alone. Each file
// is written to a temporary file beside it, verified against its hash as it
// is copied out of the store, and renamed into place only when every file
// has been staged, so a damaged object also leaves dir as it was.
func Checkout(st *store.Store, m *pack.Manifest, dir string, opts CheckoutOptions) (*CheckoutResult, error) {
	dir = filepath.Clean(dir)
	items, err := plan(m, dir, opts)
	if err != nil {
		return nil, err
	}
	if err := inspect(m, dir, items, opts); err != nil {
		return nil, err
	}
	var made []string
	cleanup := func() {
		for _, it := range items {
			if it.tmp != "" {
				os.Remove(it.tmp)
			}
		}
		// Directories made for this checkout, deepest first; Remove leaves
		// any that are not empty.
		for i := len(made) - 1; i >= 0; i-- {
			os.Remove(made[i])
		}
	}
	made, err = mkdirs(dir)
	if err != nil {
		cleanup()
		return nil, err
	}
	for i := range items {
		it := &items[i]
		if !it.write {
			continue
		}
		dirs, err := mkdirs(filepath.Dir(it.target))
		made = append(made, dirs...)
		if err != nil {
			cleanup()
			return nil, err
		}
		if it.tmp, err = stage(st, it.hash, filepath.Dir(it.target)); err != nil {
			cleanup()
			return nil, fmt.Errorf("%s: %w", it.name, err)
		}
	}
	if err := claim(dir, items); err != nil {
		cleanup()
		return nil, err
	}
	res := &CheckoutResult{Written: []string{}, Unchanged: []string{}, Sidecars: []string{}}
	for i := range items {
		it := &items[i]
		if !it.write {
			res.Unchanged = append(res.Unchanged, it.name)
			continue
		}
		if err := os.Rename(it.tmp, it.target); err != nil {
			cleanup()
			return res, err
		}
		it.tmp = ""
		res.Written = append(res.Written, it.name)
	}
	for _, it := range items {
		if it.sidecar {
			if err := verify.WriteSidecar(m, it.output, it.target); err != nil {
				return res, err
			}
			res.Sidecars = append(res.Sidecars, it.name+verify.SidecarSuffix)
		}
	}
	return res, nil
}

// claim creates every new file of the checkout, empty, before any is
// written. Two names of a pack can be one file where a filesystem folds
// them (README and readme on a case-insensitive one, café in NFC and NFD on
// one that normalises, as macOS does), or where a mount joins two
// directories: the second claim then finds the first, and the checkout
// stops with both names before writing anything, instead of letting one
// file silently replace the other. On error the claims are removed.
func claim(dir string, items []item) error {
	var claimed []*item
	undo := func() {
		for _, c := range claimed {
			os.Remove(c.target)
		}
	}
	for i := range items {
		it := &items[i]
		if !it.write || !it.fresh {
			continue
		}
		f, err := os.OpenFile(it.target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				err = &FoldError{Dir: dir, Name: it.name, Other: sameAs(it.target, claimed)}
			}
			undo()
			return err
		}
		f.Close()
		claimed = append(claimed, it)
	}
	return nil
}

// sameAs returns the name of the claimed file that path is, or "".
func sameAs(path string, claimed []*item) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	for _, c := range claimed {
		if ci, err := os.Stat(c.target); err == nil && os.SameFile(fi, ci) {
			return c.name
		}
	}
	return ""
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
		it.target = filepath.Join(dir, filepath.FromSlash(it.name))
	}
	for _, it := range items {
		if it.target == "" {
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
		if opts.Outputs && names[it.name+verify.SidecarSuffix] {
			bad = append(bad, fmt.Sprintf("output %q would be overwritten by the sidecar of output %q", it.name+verify.SidecarSuffix, it.name))
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

// inspect looks at what is on disk where each file goes: which files need
// writing, and what stands in the way.
func inspect(m *pack.Manifest, dir string, items []item, opts CheckoutOptions) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	var conflicts []Conflict
	add := func(path, reason string, force bool) {
		if !(force && opts.Force) {
			conflicts = append(conflicts, Conflict{Path: path, Reason: reason, Force: force})
		}
	}
	kinds := map[string]fs.FileMode{} // what each directory on the way is, once
	for i := range items {
		it := &items[i]
		it.write = true
		if blocked := parents(dir, it.name, kinds); blocked != "" {
			add(it.name, blocked, false)
			continue
		}
		fi, err := os.Lstat(it.target)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			it.fresh = true
		case err != nil:
			return err
		case fi.Mode().IsRegular():
			same, err := sameContent(it.target, fi.Size(), it.size, it.hash)
			if err != nil {
				return err
			}
			if same {
				it.write = false
			} else {
				add(it.name, "exists with other content", true)
			}
		case fi.Mode()&fs.ModeSymlink != 0:
			add(it.name, "is a symlink; ctx checkout never writes through one", true)
		case fi.IsDir():
			add(it.name, "is a directory", false)
		default:
			add(it.name, "is not a regular file", false)
		}
		if it.output >= 0 {
			it.sidecar = true
			if err := inspectSidecar(m, it, add); err != nil {
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
// there that is not a sidecar never is (verify.WriteSidecar refuses it).
func inspectSidecar(m *pack.Manifest, it *item, add func(string, string, bool)) error {
	path := verify.SidecarPath(it.target)
	name := it.name + verify.SidecarSuffix
	fi, err := os.Lstat(path)
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
	sc, err := verify.ReadSidecar(it.target)
	switch {
	case errors.Is(err, verify.ErrNotSidecar):
		add(name, "exists and is not a ctx sidecar", false)
		it.sidecar = false
	case err != nil:
		return err
	case reflect.DeepEqual(sc, verify.NewSidecar(m, it.output)):
		it.sidecar = false
	default:
		add(name, fmt.Sprintf("is the sidecar of another pack (%s)", sc.ContextPack), true)
	}
	return nil
}

// parents checks the directories between dir and a file: each must be a
// directory or not exist yet. A symlink is refused even when it points
// inside dir, as git refuses to check out beyond one: what it points at can
// change between the check and the write. kinds remembers what was seen.
func parents(dir, name string, kinds map[string]fs.FileMode) string {
	els := strings.Split(name, "/")
	p := dir
	for _, el := range els[:len(els)-1] {
		p = filepath.Join(p, el)
		mode, seen := kinds[p]
		if !seen {
			fi, err := os.Lstat(p)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				mode = fs.ModeIrregular // stands for "missing": nothing deeper exists
			case err != nil:
				return err.Error()
			default:
				mode = fi.Mode()
			}
			kinds[p] = mode
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, dir+string(filepath.Separator)))
		switch {
		case mode == fs.ModeIrregular:
			return ""
		case mode&fs.ModeSymlink != 0:
			return fmt.Sprintf("%s is a symlink; ctx checkout never writes through one", rel)
		case !mode.IsDir():
			return fmt.Sprintf("%s is a file where a directory is needed", rel)
		}
	}
	return ""
}

// sameContent reports whether the file at path, of the given size, holds
// exactly the object h of the given size.
func sameContent(path string, size, want int64, h store.Hash) (bool, error) {
	if size != want {
		return false, nil
	}
	f, err := os.Open(path)
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

// stage copies object h out of the store into a new temporary file in dir,
// verifying its hash, and returns the file's path.
func stage(st *store.Store, h store.Hash, dir string) (string, error) {
	o, err := st.Open(h)
	if err != nil {
		return "", err
	}
	defer o.Close()
	tmp, f, err := createTemp(dir)
	if err != nil {
		return "", err
	}
	_, err = o.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}
