//go:build !linux

package store

// renameNoReplace moves tmp to final unless final exists.
func renameNoReplace(tmp, final string) error { return linkNoReplace(tmp, final) }
