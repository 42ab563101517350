//go:build !linux

package beneath

import "os"

// OpenFD is Linux's openat2; here ok is always false and the caller takes
// its portable way.
func (d *Dir) OpenFD(string, int, os.FileMode) (int, error, bool) { return -1, nil, false }

// IsEscape is false here: no openat2 ever refused a path.
func IsEscape(error) bool { return false }
