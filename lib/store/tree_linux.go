package store

import (
	"fmt"
	"os"

	"github.com/contextsubstrate/ctx/lib/beneath"
	"golang.org/x/sys/unix"
)

// openBeneath opens rel below the tree in one system call (openat2 with
// RESOLVE_BENEATH), falling back to os.Root where the kernel or a seccomp
// filter refuses openat2.
func (t *Tree) openBeneath(rel string) (*os.File, error) {
	fd, err, ok := t.dir.OpenFD(rel, unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	switch {
	case !ok:
		return t.root.Open(rel)
	case err == nil:
		// O_NONBLOCK keeps a FIFO planted in the tree from hanging the
		// open; regular files ignore it, so clear it for plain reads.
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, err
		}
		return os.NewFile(uintptr(fd), rel), nil
	case beneath.IsEscape(err):
		return nil, fmt.Errorf("%s: %w", rel, ErrEscapes)
	}
	return nil, &os.PathError{Op: "open", Path: rel, Err: err}
}
