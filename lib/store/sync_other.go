//go:build !linux

package store

import "os"

// syncfs is Linux-only; elsewhere each file is synced on its own.
func syncfs(string) bool { return false }

// startWriteback has no portable form: the batch's sync does it all.
func startWriteback(*os.File, int64, int64) {}
