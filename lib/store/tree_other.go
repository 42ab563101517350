//go:build !linux

package store

import "os"

// openBeneath opens rel below the tree through os.Root.
func (t *Tree) openBeneath(rel string) (*os.File, error) { return t.root.Open(rel) }
