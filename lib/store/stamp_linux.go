package store

import (
	"fmt"
	"os"
	"syscall"
	"time"
)

// stampOf builds the stamp of a directory from its device, inode,
// modification time and inode change time.
func stampOf(fi os.FileInfo) IndexStamp {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return IndexStamp{Key: fmt.Sprint(fi.ModTime().UnixNano()), Changed: fi.ModTime()}
	}
	mtime := time.Unix(st.Mtim.Unix())
	ctime := time.Unix(st.Ctim.Unix())
	changed := mtime
	if ctime.After(changed) {
		changed = ctime
	}
	return IndexStamp{
		Key:      fmt.Sprintf("%d.%d.%d.%d", st.Dev, st.Ino, mtime.UnixNano(), ctime.UnixNano()),
		Changed:  changed,
		Complete: true,
	}
}
