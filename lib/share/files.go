package share

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/contextsubstrate/ctx/lib/store"
)

// SaveDraft writes a draft with write into the store's drafts/ directory,
// under a name no other fork takes (the parent's short hash and a random
// suffix), and returns its path. The file appears whole or not at all.
func SaveDraft(st *store.Store, parent store.Hash, write func(io.Writer) error) (string, error) {
	dir := st.DraftsDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// Claim a unique name first (O_EXCL), then put the finished draft
	// under it by rename: two forks at once never share a name, and nobody
	// ever sees half a draft under the final name.
	var final string
	for attempt := 0; ; attempt++ {
		final = filepath.Join(dir, parent.Short()+"-"+randomHex(4)+".json")
		f, err := os.OpenFile(final, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			f.Close()
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt == 10 {
			return "", err
		}
	}
	if err := WriteFileAtomic(final, write); err != nil {
		os.Remove(final)
		return "", err
	}
	return final, nil
}

// WriteFileAtomic replaces path with what write produces: a temporary file
// in the same directory, then a rename, so a reader sees the old file or the
// new one, never a mix; on error the temporary file is removed and path is
// left as it was. The new file gets mode 0666 less the umask.
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	tmp, f, err := createTemp(filepath.Dir(path))
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// createTemp creates a new file in dir with a name that starts with a dot
// (hidden from globs) and the default permissions less the umask, which
// os.CreateTemp would not give (it makes 0600 files).
func createTemp(dir string) (string, *os.File, error) {
	for attempt := 0; ; attempt++ {
		p := filepath.Join(dir, ".ctx-tmp-"+randomHex(8))
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return p, f, nil
		}
		if !errors.Is(err, fs.ErrExist) || attempt == 10 {
			return "", nil, err
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b) // never fails (crypto/rand panics rather than return short)
	return hex.EncodeToString(b)
}
