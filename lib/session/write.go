package session

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/contextsubstrate/ctx/lib/store"
)

// A restore writes the files of one session as the agents keep theirs:
// each to a temporary file beside its place (0600), synced, then renamed
// over it, the session file last; folders it makes are 0700. Before
// anything is renamed, each file is compared with what is there: the same
// bytes are left alone (a second restore of a run changes nothing), a
// file the new one extends is replaced (the session grew since), anything
// else is a different session and nothing is written.

// output is one file a restore writes.
type output struct {
	path string
	fill func(w io.Writer) error
	// stamp, when set, finds in a file of this kind the part that says
	// when the agent last used the session (Gemini CLI's lastUpdated),
	// which a restore sets to its own time: two files that differ only
	// there hold the same session (stamped.go).
	stamp func(f *os.File, size int64) (start, end int64, err error)
}

// The outcome of a restore, or of one file of it.
const (
	Written   = "written"   // the file was not there
	Updated   = "updated"   // the file there was the start of this one
	Unchanged = "unchanged" // the file there is this one
)

// ConflictError is a file of the session that holds something else.
type ConflictError struct {
	Path string
	Why  string
}

func (e *ConflictError) Error() string {
	return fmt.Sprintf("%s holds a different session with this id (%s): nothing was written", e.Path, e.Why)
}

// ErrorHints say how to restore it anyway.
func (e *ConflictError) ErrorHints() []string {
	return []string{"--session-id new restores the run as a new session, beside that one"}
}

// staged is an output written to its temporary file.
type staged struct {
	out    output
	tmp    string
	status string
	// size and sum are those of the file that is there once written (the
	// one there before, when unchanged).
	size int64
	sum  store.Hash
}

// writeAll writes outs (the session file last) and returns the outcome:
// Written when any file was new, else Updated when any grew, else
// Unchanged, and what the session file holds then.
func writeAll(outs []output) (string, written, error) {
	var main written
	status, err := writeStaged(outs, func(s staged) { main = written{size: s.size, sum: s.sum} })
	return status, main, err
}

// written is the size and SHA-256 of a file a restore left.
type written struct {
	size int64
	sum  store.Hash
}

func writeStaged(outs []output, last func(staged)) (string, error) {
	var done []staged
	clean := func() {
		for _, s := range done {
			if s.tmp != "" {
				os.Remove(s.tmp)
			}
		}
	}
	for _, o := range outs {
		s, err := stage(o)
		if s.tmp != "" {
			done = append(done, s)
		}
		if err != nil {
			clean()
			return "", err
		}
		if s.tmp == "" {
			done = append(done, s)
		}
	}
	last(done[len(done)-1])
	status := Unchanged
	for i, s := range done {
		if s.status == Unchanged {
			continue
		}
		if err := os.Rename(s.tmp, s.out.path); err != nil {
			clean()
			return "", err
		}
		done[i].tmp = ""
		syncDir(filepath.Dir(s.out.path))
		if s.status == Written || status == Unchanged {
			status = s.status
		}
	}
	return status, nil
}

// stage writes o to a temporary file beside its place and compares it
// with what is there.
func stage(o output) (staged, error) {
	s := staged{out: o}
	dir := filepath.Dir(o.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return s, err
	}
	f, err := os.CreateTemp(dir, ".ctx-restore-*")
	if err != nil {
		return s, err
	}
	s.tmp = f.Name()
	sum := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(f, sum), 256<<10)
	err = o.fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	sum.Sum(s.sum[:0])
	if err == nil {
		err = f.Chmod(0o600)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return s, fmt.Errorf("%s: %w", o.path, err)
	}
	if fi, err := os.Stat(s.tmp); err == nil {
		s.size = fi.Size()
	}
	s.status, err = compare(s.tmp, o.path, o.stamp)
	if s.status == Unchanged {
		os.Remove(s.tmp)
		s.tmp = ""
		if o.stamp != nil {
			// The file there may have another stamp: its own bytes.
			s.size, s.sum, err = fileSum(o.path)
		}
	}
	return s, err
}

// fileSum is the size and SHA-256 of the file at path.
func fileSum(path string) (int64, store.Hash, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0, store.Hash{}, err
	}
	defer f.Close()
	sum := sha256.New()
	n, err := io.Copy(sum, f)
	var h store.Hash
	sum.Sum(h[:0])
	return n, h, err
}

// compare says what writing the file at tmp over path would do. With
// stamp, each file is compared without the part stamp finds in it; a
// file there that is the same with a shorter stamp (none, or only the
// agent's own records where the restore adds one) is Updated: it gets
// the restore's.
func compare(tmp, path string, stamp func(*os.File, int64) (int64, int64, error)) (string, error) {
	old, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return Written, nil
	}
	if err != nil {
		return "", &ConflictError{Path: path, Why: fmt.Sprintf("it cannot be read: %v", err)}
	}
	defer old.Close()
	fi, err := old.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", &ConflictError{Path: path, Why: "it is not a regular file"}
	}
	cur, err := os.Open(tmp)
	if err != nil {
		return "", err
	}
	defer cur.Close()
	ci, err := cur.Stat()
	if err != nil {
		return "", err
	}
	oldR, oldStamp, err := unstamped(old, fi.Size(), stamp)
	if err != nil {
		return "", err
	}
	curR, curStamp, err := unstamped(cur, ci.Size(), stamp)
	if err != nil {
		return "", err
	}
	status, err := compareReaders(path, oldR, curR)
	if status == Unchanged && oldStamp < curStamp {
		status = Updated
	}
	return status, err
}

// unstamped reads f (size bytes) without the part stamp finds in it, and
// says how long that part is.
func unstamped(f *os.File, size int64, stamp func(*os.File, int64) (int64, int64, error)) (io.Reader, int64, error) {
	if stamp == nil {
		return f, 0, nil
	}
	start, end, err := stamp(f, size)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return io.MultiReader(io.NewSectionReader(f, 0, start), io.NewSectionReader(f, end, size-end)), end - start, nil
}

// compareReaders compares the file there (old) with the one a restore
// would write (cur).
func compareReaders(path string, old, cur io.Reader) (string, error) {
	a, b := bufio.NewReaderSize(old, 64<<10), bufio.NewReaderSize(cur, 64<<10)
	bufA, bufB := make([]byte, 32<<10), make([]byte, 32<<10)
	for {
		na, errA := io.ReadFull(a, bufA)
		nb, errB := io.ReadFull(b, bufB)
		n := min(na, nb)
		if !bytes.Equal(bufA[:n], bufB[:n]) {
			return "", &ConflictError{Path: path, Why: "its lines differ from the pack's"}
		}
		endA, endB := errA != nil, errB != nil
		switch {
		case errA != nil && !isEOF(errA):
			return "", errA
		case errB != nil && !isEOF(errB):
			return "", errB
		case endA && endB && na == nb:
			return Unchanged, nil
		case endA && na < nb || endA && !endB:
			return Updated, nil
		case endB:
			return "", &ConflictError{Path: path, Why: "the session there has gone on past the pack's"}
		}
	}
}

func isEOF(err error) bool { return err == io.EOF || err == io.ErrUnexpectedEOF }

// syncDir makes a rename in dir durable; a folder that cannot be synced
// only loses that.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// copyObject is a fill that copies object h of st.
func copyObject(st *store.Store, h store.Hash) func(io.Writer) error {
	return func(w io.Writer) error {
		obj, err := st.Open(h)
		if err != nil {
			return err
		}
		defer obj.Close()
		_, err = obj.WriteTo(w)
		return err
	}
}
