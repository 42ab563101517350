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
