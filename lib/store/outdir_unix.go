//go:build unix

package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/contextsubstrate/ctx/lib/beneath"
	"golang.org/x/sys/unix"
)

// OutDir is a directory written into without leaving it (see outdir.go).
type OutDir struct {
	path string // for messages: the directory as the caller named it
	rel  string // relative to the top OutDir, "" for the top
	fd   int
	// beneath opens below fd in one call where the system can, refusing
	// every symlink on the way.
	beneath *beneath.Dir
}

// OpenOutDir opens the existing directory at path, which the user named:
// it may itself be reached through a symlink. Close releases it.
func OpenOutDir(path string) (*OutDir, error) {
	fd, err := openRetry(unix.AT_FDCWD, path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, unix.ENOTDIR) {
			return nil, &os.PathError{Op: "open", Path: path, Err: errors.New("not a directory")}
		}
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &OutDir{path: path, fd: fd, beneath: beneath.At(fd, beneath.None)}, nil
}

// Path returns the directory's path, for messages.
func (d *OutDir) Path() string { return d.path }

// Close releases the directory.
func (d *OutDir) Close() error { return unix.Close(d.fd) }

// full is the path of name in d, for messages.
func (d *OutDir) full(name string) string { return filepath.Join(d.path, filepath.FromSlash(name)) }

// Sub opens the directory rel below d. With create, missing directories
// are made (mode 0777 less the umask) and returned, relative to d, top
// first, so a writer that fails can remove them again. A symlink, or
// anything not a directory, on the way is a *WayError; a missing directory
// without create matches fs.ErrNotExist.
func (d *OutDir) Sub(rel string, create bool) (*OutDir, []string, error) {
	if rel == "" || rel == "." {
		fd, err := unix.Dup(d.fd)
		if err != nil {
			return nil, nil, err
		}
		unix.CloseOnExec(fd)
		return &OutDir{path: d.path, rel: d.rel, fd: fd, beneath: d.beneath.Sub(fd)}, nil, nil
	}
	if fd, err, ok := d.beneath.OpenFD(rel, unix.O_RDONLY|unix.O_DIRECTORY, 0); ok && err == nil {
		return d.sub(rel, fd), nil, nil
	} else if ok && errors.Is(err, unix.ENOENT) && !create {
		return nil, nil, &os.PathError{Op: "open", Path: d.full(rel), Err: fs.ErrNotExist}
	}
	// One element at a time: where openat2 is missing, to make what is
	// missing, and to say which element is in the way (ELOOP, ENOTDIR and
	// EXDEV from openat2 do not).
	cur := d.fd
	var made []string
	closeCur := func() {
		if cur != d.fd {
			unix.Close(cur)
		}
	}
	els := strings.Split(rel, "/")
	for i, el := range els {
		sofar := strings.Join(els[:i+1], "/")
		fd, err := openRetry(cur, el, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) && create {
			if err = unix.Mkdirat(cur, el, 0o777); err == nil {
				made = append(made, sofar)
			}
			if err == nil || errors.Is(err, unix.EEXIST) {
				fd, err = openRetry(cur, el, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		if err != nil {
			var st unix.Stat_t
			switch {
			case errors.Is(err, unix.ENOENT):
				err = &os.PathError{Op: "open", Path: d.full(sofar), Err: fs.ErrNotExist}
			case unix.Fstatat(cur, el, &st, unix.AT_SYMLINK_NOFOLLOW) != nil:
				err = &os.PathError{Op: "open", Path: d.full(sofar), Err: err}
			case st.Mode&unix.S_IFMT == unix.S_IFLNK:
				err = wayError(joinRel(d.rel, sofar), "a symlink")
			case st.Mode&unix.S_IFMT != unix.S_IFDIR:
				err = wayError(joinRel(d.rel, sofar), "not a directory")
			default:
				err = &os.PathError{Op: "open", Path: d.full(sofar), Err: err}
			}
			closeCur()
			return nil, made, err
		}
		closeCur()
		cur = fd
	}
	return d.sub(rel, cur), made, nil
}

func (d *OutDir) sub(rel string, fd int) *OutDir {
	return &OutDir{path: d.full(rel), rel: joinRel(d.rel, rel), fd: fd, beneath: d.beneath.Sub(fd)}
}

// Lstat returns what name is in d, not following a symlink.
func (d *OutDir) Lstat(name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "lstat", Path: d.full(name), Err: err}
		}
		return &statInfo{name: name, st: st}, nil
	}
}

// OpenRead opens the regular file name of d for reading, never through a
// symlink; anything else is an error saying what it is.
func (d *OutDir) OpenRead(name string) (*os.File, error) {
	fd, err := openRetry(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.full(name), Err: err}
	}
	f := os.NewFile(uintptr(fd), d.full(name))
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = &os.PathError{Op: "open", Path: d.full(name), Err: errors.New("not a regular file")}
	}
	if err == nil {
		err = unix.SetNonblock(fd, false)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// CreateTemp creates a new empty file in d under a TempName, with mode
// 0666 less the umask, and returns its name and the file open for writing.
func (d *OutDir) CreateTemp() (string, *os.File, error) {
	return d.CreateTempMode(0o666)
}

// CreateTempMode is CreateTemp with another mode (less the umask).
func (d *OutDir) CreateTempMode(perm os.FileMode) (string, *os.File, error) {
	for attempt := 0; ; attempt++ {
		name := TempName()
		fd, err := openRetry(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err == nil {
			return name, os.NewFile(uintptr(fd), d.full(name)), nil
		}
		if !errors.Is(err, unix.EEXIST) || attempt == 10 {
			return "", nil, &os.PathError{Op: "open", Path: d.full(name), Err: err}
		}
	}
}

// Place renames tmp to name, both in d. With replace it replaces what is
// there (a regular file, never following a symlink: the symlink itself is
// replaced); without, it fails matching fs.ErrExist when name exists, and
// never replaces it, even in a race.
func (d *OutDir) Place(tmp, name string, replace bool) error {
	var err error
	if replace {
		err = unix.Renameat(d.fd, tmp, d.fd, name)
	} else {
		err = renameNoReplaceAt(d.fd, tmp, name)
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: d.full(tmp), New: d.full(name), Err: err}
	}
	return nil
}

// Remove removes the file name of d (not a directory).
func (d *OutDir) Remove(name string) error {
	if err := unix.Unlinkat(d.fd, name, 0); err != nil {
		return &os.PathError{Op: "remove", Path: d.full(name), Err: err}
	}
	return nil
}

// RemoveDir removes the empty directory rel (slash-separated) below d.
func (d *OutDir) RemoveDir(rel string) error {
	dir, name := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = rel[:i], rel[i+1:]
	}
	parent, _, err := d.Sub(dir, false)
	if err != nil {
		return err
	}
	defer parent.Close()
	if err := unix.Unlinkat(parent.fd, name, unix.AT_REMOVEDIR); err != nil {
		return &os.PathError{Op: "remove", Path: d.full(rel), Err: err}
	}
	return nil
}

// Names lists the names in d.
func (d *OutDir) Names() ([]string, error) {
	fd, err := openRetry(d.fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: d.path, Err: err}
	}
	f := os.NewFile(uintptr(fd), d.path)
	defer f.Close()
	return f.Readdirnames(-1)
}

// renameLinkAt moves tmp to name unless name exists, by a hard link and an
// unlink; where the file system has no hard links, by a check and a rename
// (a race can then replace a file that appeared in between, as any
// rename would).
func renameLinkAt(dirfd int, tmp, name string) error {
	err := unix.Linkat(dirfd, tmp, dirfd, name, 0)
	switch {
	case err == nil:
		unix.Unlinkat(dirfd, tmp, 0)
		return nil
	case errors.Is(err, unix.EEXIST):
		return err
	case errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EMLINK) || errors.Is(err, unix.EXDEV):
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
			return unix.EEXIST
		}
		return unix.Renameat(dirfd, tmp, dirfd, name)
	}
	return err
}

// openRetry is openat, again when a signal interrupts it.
func openRetry(dirfd int, name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, perm)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// processAlive reports whether a process pid runs on this machine.
func processAlive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// statInfo is the fs.FileInfo of an fstatat.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Time{} }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
	case syscall.S_IFDIR:
		m |= fs.ModeDir
	case syscall.S_IFLNK:
		m |= fs.ModeSymlink
	default:
		m |= fs.ModeIrregular
	}
	return m
}

// SameFile reports whether two results of OutDir.Lstat are one file.
func SameFile(a, b fs.FileInfo) bool {
	sa, ok1 := a.(*statInfo)
	sb, ok2 := b.(*statInfo)
	return ok1 && ok2 && uint64(sa.st.Dev) == uint64(sb.st.Dev) && uint64(sa.st.Ino) == uint64(sb.st.Ino)
}
