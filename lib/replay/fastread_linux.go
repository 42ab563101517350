package replay

import (
	"errors"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openReadFast opens rel for reading beneath the workspace with one
// openat2(2) call (lib/beneath) and reports its type, on the bare
// descriptor: os.NewFile would ask whether a non-blocking descriptor can
// join the poller (two system calls a regular file never needs), and a
// replay of many reads feels each one. rc is nil unless the file is
// regular; ok is false when openat2 cannot be used (then, and from then
// on, the caller goes through os.Root).
func (w *Workspace) openReadFast(rel string) (rc io.ReadCloser, mode fs.FileMode, err error, ok bool) {
	fd, err, ok := w.fast.OpenFD(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if !ok {
		return nil, 0, nil, false
	}
	if err != nil {
		return nil, 0, &os.PathError{Op: "openat2", Path: rel, Err: err}, true
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
