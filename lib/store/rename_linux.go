package store

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// renameNoReplace moves tmp to final unless final exists, in one system call
// (renameat2 with RENAME_NOREPLACE). It reports fs.ErrExist when final
// exists, and falls back to link and unlink where the filesystem lacks the
// flag.
func renameNoReplace(tmp, final string) error {
	err := unix.Renameat2(unix.AT_FDCWD, tmp, unix.AT_FDCWD, final, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP):
		return linkNoReplace(tmp, final)
	}
	return &os.LinkError{Op: "rename", Old: tmp, New: final, Err: err}
}
