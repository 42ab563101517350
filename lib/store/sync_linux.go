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

// startWriteback asks the kernel to start writing n bytes of f at off to
// disk without waiting for it (sync_file_range(2), SYNC_FILE_RANGE_WRITE):
// the writeback of a large object overlaps with reading and hashing the
// rest of it. Durability still comes from the batch's sync; an error here
// only means no head start.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}
