package store

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncfs flushes the filesystem holding dir in one system call (syncfs(2)),
// which is how a batch of objects becomes durable without one fsync each.
func syncfs(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd())) == nil
}
