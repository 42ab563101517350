package beneath

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// OpenFD opens rel (relative, in the system's separators) beneath d with
// the open(2) flags flag (O_CLOEXEC is added) and, where it creates, perm.
// ok is false when openat2 cannot be used: the kernel lacks it or a
// sandbox forbids it (ENOSYS, EPERM); d remembers, and every later call
// says the same at once. Otherwise err is the call's error number, as is
// (IsEscape tells a way out).
func (d *Dir) OpenFD(rel string, flag int, perm os.FileMode) (fd int, err error, ok bool) {
	if d == nil || d.off.Load() {
		return -1, nil, false
	}
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_CLOEXEC),
		Mode:    uint64(perm.Perm()),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	if d.links == None {
		how.Resolve |= unix.RESOLVE_NO_SYMLINKS
	}
	for {
		fd, err = unix.Openat2(d.fd, rel, &how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		d.off.Store(true)
		return -1, nil, false
	}
	if err != nil {
		return -1, err, true
	}
	return fd, nil, true
}

// IsEscape reports whether err is RESOLVE_BENEATH refusing a path that
// leads outside the directory.
func IsEscape(err error) bool { return errors.Is(err, unix.EXDEV) }
