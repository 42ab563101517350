package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncFS flushes the filesystem holding dir in one call, as the store does.
func syncFS(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd())) == nil
}

// writeout starts the writeback of f and waits for it, without a flush of
// the disk's cache (sync_file_range), as git's batch mode does per object.
func writeout(f *os.File) error {
	return unix.SyncFileRange(int(f.Fd()), 0, 0, unix.SYNC_FILE_RANGE_WAIT_BEFORE|unix.SYNC_FILE_RANGE_WRITE|unix.SYNC_FILE_RANGE_WAIT_AFTER)
}
