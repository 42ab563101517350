//go:build !linux

package store

import (
	"fmt"
	"os"
)

// stampOf builds the stamp of a directory from its modification time only:
// the inode change time is not portable, so the stamp is not Complete.
func stampOf(fi os.FileInfo) IndexStamp {
	return IndexStamp{Key: fmt.Sprint(fi.ModTime().UnixNano()), Changed: fi.ModTime()}
}
