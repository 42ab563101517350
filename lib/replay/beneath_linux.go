package replay

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// beneath opens files under the workspace with one openat2(2) call and
// RESOLVE_BENEATH: the kernel refuses any "..", absolute path or symlink
// that would leave the directory, as os.Root does, without os.Root's
// open-every-directory walk. It matters on the hot path, a replay of many
// reads. Kernels without openat2 (before 5.6) fall back to os.Root.
type beneath struct {
	dir *os.File
	fd  int
	off atomic.Bool // openat2 is not available; inputs are staged in parallel
}

func openBeneath(dir string) *beneath {
	f, err := os.Open(dir)
	if err != nil {
		b := &beneath{fd: -1}
		b.off.Store(true)
		return b
	}
	return &beneath{dir: f, fd: int(f.Fd())}
}

// openat2 opens rel beneath the directory. ok is false when openat2
// cannot be used (then, and from then on, the caller goes through os.Root).
func (b *beneath) openat2(rel string, flag int, perm os.FileMode) (fd int, err error, ok bool) {
	if b.off.Load() {
		return -1, nil, false
	}
	how := unix.OpenHow{
		Flags:   uint64(flag | unix.O_CLOEXEC),
		Mode:    uint64(perm.Perm()),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		fd, err = unix.Openat2(b.fd, rel, &how)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	switch {
	case errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM):
		// No openat2 here, or a sandbox that forbids it: os.Root from now
		// on, which also gives the real error if there is one.
		b.off.Store(true)
		return -1, nil, false
	case err != nil:
		return -1, &os.PathError{Op: "openat2", Path: rel, Err: err}, true
	}
	return fd, nil, true
}

// open opens rel as an *os.File; ok as for openat2.
func (b *beneath) open(rel string, flag int, perm os.FileMode) (f *os.File, err error, ok bool) {
	fd, err, ok := b.openat2(rel, flag, perm)
	if !ok || err != nil {
		return nil, err, ok
	}
	return os.NewFile(uintptr(fd), filepath.Join(b.dir.Name(), rel)), nil, true
}

// openRead opens rel for reading and reports its type, on the bare
// descriptor: os.NewFile would ask whether a non-blocking descriptor can
// join the poller (two system calls a regular file never needs), and a
// replay of many reads feels each one. rc is nil unless the file is
// regular.
func (b *beneath) openRead(rel string) (rc io.ReadCloser, mode fs.FileMode, err error, ok bool) {
	fd, err, ok := b.openat2(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if !ok || err != nil {
		return nil, 0, err, ok
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, 0, &os.PathError{Op: "fstat", Path: rel, Err: err}, true
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		return fdReader(fd), 0, nil, true
	case unix.S_IFDIR:
		mode = fs.ModeDir
	default:
		mode = fs.ModeIrregular
	}
	unix.Close(fd)
	return nil, mode, nil, true
}

// fdReader reads a regular file's descriptor.
type fdReader int

func (f fdReader) Read(p []byte) (int, error) {
	for {
		n, err := unix.Read(int(f), p)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f fdReader) Close() error { return unix.Close(int(f)) }

func (b *beneath) close() {
	if b.dir != nil {
		b.dir.Close()
	}
}

// escapeErr reports whether err is RESOLVE_BENEATH refusing a path that
// leaves the directory.
func escapeErr(err error) bool { return errors.Is(err, unix.EXDEV) }
