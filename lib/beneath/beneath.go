// Package beneath opens files below a directory without ever leaving it:
// on Linux with one openat2(2) call and RESOLVE_BENEATH, so the kernel
// refuses any "..", absolute path or symlink that would lead outside, with
// no check-then-open gap for a symlink to be swapped into. Where openat2 is
// missing (before Linux 5.6, other systems) or a sandbox forbids it, a Dir
// says so once and from then on, and its user takes its portable way
// (os.Root, or a walk one element at a time).
package beneath

import (
	"os"
	"sync/atomic"
)

// Symlinks is what a Dir does with a symlink on the way.
type Symlinks uint8

const (
	// Inside follows a symlink that stays below the directory.
	Inside Symlinks = iota
	// None refuses every symlink, inside or not.
	None
)

// Dir is a directory that files are opened beneath. A nil *Dir has no
// fast path: every Open says so.
type Dir struct {
	f     *os.File // nil when the descriptor is the caller's
	fd    int
	links Symlinks
	off   *atomic.Bool // openat2 is not available here
}

// Open opens the directory at path. Close releases it.
func Open(path string, links Symlinks) (*Dir, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &Dir{f: f, fd: int(f.Fd()), links: links, off: new(atomic.Bool)}, nil
}

// At is the directory open as fd, which stays the caller's to close.
func At(fd int, links Symlinks) *Dir {
	return &Dir{fd: fd, links: links, off: new(atomic.Bool)}
}

// Sub is the directory open as fd (the caller's), below d: the same
// symlink rule, and what d has learnt of openat2.
func (d *Dir) Sub(fd int) *Dir {
	if d == nil {
		return nil
	}
	return &Dir{fd: fd, links: d.links, off: d.off}
}

// Fallback makes d take the portable way from now on, as if openat2 were
// missing (tests use it to cover both ways).
func (d *Dir) Fallback() {
	if d != nil {
		d.off.Store(true)
	}
}

// Close releases the directory if Open opened it.
func (d *Dir) Close() error {
	if d == nil || d.f == nil {
		return nil
	}
	return d.f.Close()
}
