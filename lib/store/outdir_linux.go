package store

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplaceAt moves tmp to name in dirfd unless name exists, in one
// system call (renameat2 with RENAME_NOREPLACE) where the file system has
// the flag.
func renameNoReplaceAt(dirfd int, tmp, name string) error {
	err := unix.Renameat2(dirfd, tmp, dirfd, name, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.ENOTSUP) {
		return renameLinkAt(dirfd, tmp, name)
	}
	return err
}
