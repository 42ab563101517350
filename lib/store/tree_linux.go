package store

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// openBeneath opens rel below the tree in one system call (openat2 with
// RESOLVE_BENEATH), falling back to os.Root where the kernel or a seccomp
// filter refuses openat2.
func (t *Tree) openBeneath(rel string) (*os.File, error) {
	fd, err := unix.Openat2(int(t.dir.Fd()), rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	})
	switch {
	case err == nil:
		// O_NONBLOCK keeps a FIFO planted in the tree from hanging the
		// open; regular files ignore it, so clear it for plain reads.
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, err
		}
		return os.NewFile(uintptr(fd), rel), nil
	case errors.Is(err, unix.EXDEV):
		return nil, fmt.Errorf("%s: %w", rel, ErrEscapes)
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		return t.root.Open(rel)
	}
	return nil, &os.PathError{Op: "open", Path: rel, Err: err}
}
