//go:build unix && !linux

package store

// renameNoReplaceAt moves tmp to name in dirfd unless name exists.
func renameNoReplaceAt(dirfd int, tmp, name string) error { return renameLinkAt(dirfd, tmp, name) }
