package verify

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
	"github.com/contextsubstrate/ctx/lib/text"
)

// skipDir reports whether a directory met in a walk is left out: stores
// (.ctx) hold objects, not artifacts, and version control directories
// (.git) hold nothing of ours but can be large.
func skipDir(name string) bool { return name == ".ctx" || name == ".git" }

// Walk calls fn with the artifact of every sidecar under dir, in a sorted
// depth-first walk (names sorted within each directory), so a tree always
// gives the same order. An artifact is the sidecar's path without its
// .ctx.json suffix, joined to dir; it need not exist (a deleted artifact is
// for the check to report). dir itself is followed when it is a symlink, as
// it was named on purpose; below it, symlinked directories are never
// entered, so the walk never leaves dir. A symlink named like a sidecar is
// passed on, for the check to report. An error from fn stops the walk and
// is returned.
func Walk(dir string, fn func(artifact string) error) error {
	fsys := os.DirFS(dir)
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(dir, filepath.FromSlash(p)), text.UnwrapPath(err))
		}
		if d.IsDir() {
			if p != "." && skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		base, ok := strings.CutSuffix(d.Name(), sidecar.Suffix)
		if !ok || base == "" {
			return nil
		}
		artifact := strings.TrimSuffix(p, sidecar.Suffix)
		return fn(filepath.Join(dir, filepath.FromSlash(artifact)))
	})
}
