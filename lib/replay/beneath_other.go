//go:build !linux

package replay

import (
	"io"
	"io/fs"
	"os"
	"sync/atomic"
)

// beneath is the openat2 fast path of Linux; elsewhere every file
// operation goes through os.Root.
type beneath struct {
	off atomic.Bool // always off here; the field keeps the tests portable
}

func openBeneath(string) *beneath { return &beneath{} }

func (b *beneath) open(string, int, os.FileMode) (*os.File, error, bool) { return nil, nil, false }

func (b *beneath) openRead(string) (io.ReadCloser, fs.FileMode, error, bool) {
	return nil, 0, nil, false
}

func (b *beneath) close() {}

func escapeErr(error) bool { return false }
