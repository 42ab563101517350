package store

import (
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// fileStat takes device, inode and times from the system's stat.
func fileStat(fi fs.FileInfo) (statEntry, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statEntry{}, false
	}
	return statEntry{
		dev:   uint64(st.Dev),
		ino:   st.Ino,
		size:  st.Size,
		mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
	}, true
}

// statID is the identity and status of the regular file rel of tree,
// without opening it for reading: openat2 with O_PATH and the tree's
// RESOLVE_BENEATH (so nothing outside the tree is even looked at), fstat,
// close. ok is false for anything else, which the open that follows then
// reports.
func (t *Tree) statID(rel string) (statEntry, bool) {
	if rel == "" || strings.HasPrefix(rel, "/") {
		return statEntry{}, false
	}
	fd, err, ok := t.dir.OpenFD(filepath.FromSlash(rel), unix.O_PATH, 0)
	if !ok || err != nil {
		return statEntry{}, false
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return statEntry{}, false
	}
	return statEntry{
		dev:   st.Dev,
		ino:   st.Ino,
		size:  st.Size,
		mtime: st.Mtim.Sec*1e9 + st.Mtim.Nsec,
		ctime: st.Ctim.Sec*1e9 + st.Ctim.Nsec,
	}, true
}
