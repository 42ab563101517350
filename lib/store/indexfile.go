package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
)

// appendIndexFile appends the index entry of pack h an earlier version
// wrote, packs/<hex>, to buf and returns the result: for reading
// thousands of entries, with one buffer and four system calls each (open
// without following links, fstat, read, close) where os.ReadFile after
// os.Lstat makes seven.
func (s *Store) appendIndexFile(buf []byte, h Hash) ([]byte, error) {
	p := filepath.Join(s.root, packsDir, h.Hex())
	fd, err := syscall.Open(p, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		switch {
		case errors.Is(err, syscall.ENOENT):
			return buf, &NotFoundError{Hash: h, What: "index entry of pack"}
		case errors.Is(err, syscall.ELOOP):
			return buf, errors.New(p + " is not a regular file")
		}
		return buf, &os.PathError{Op: "open", Path: p, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf, &os.PathError{Op: "stat", Path: p, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf, errors.New(p + " is not a regular file")
	}
	size := int(st.Size)
	if size < 0 || size > maxIndexEntry {
		return buf, fmt.Errorf("%s is %d bytes, too large for an index entry", p, st.Size)
	}
	start := len(buf)
	buf = slices.Grow(buf, size+1)[:start+size+1]
	n := 0
	for {
		m, err := syscall.Read(fd, buf[start+n:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf[:start], &os.PathError{Op: "read", Path: p, Err: err}
		}
		if m == 0 {
			break
		}
		n += m
		if start+n == len(buf) {
			// It grew since fstat: read on.
			buf = slices.Grow(buf, 4096)[:len(buf)+4096]
			if n > maxIndexEntry {
				return buf[:start], fmt.Errorf("%s is too large for an index entry", p)
			}
		}
	}
	return buf[:start+n], nil
}

// maxIndexEntry bounds what is read of one index entry; a real one is a few
// hundred bytes.
const maxIndexEntry = 1 << 20
