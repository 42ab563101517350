//go:build !linux

package store

import "io/fs"

// fileStat gives nothing where the status change time is not read: the
// stat cache is Linux-only, and elsewhere every file is hashed.
func fileStat(fs.FileInfo) (statEntry, bool) { return statEntry{}, false }

func (t *Tree) statID(string) (statEntry, bool) { return statEntry{}, false }
