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
	if err := st.CheckDir(dir); err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	tmp, f, err := createTemp(dir)
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp)
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	// A hard link never replaces an existing file: two forks at once never
	// share a name, and the draft appears under its name complete.
	for attempt := 0; ; attempt++ {
		final := filepath.Join(dir, parent.Short()+"-"+randomHex(4)+".json")
		err := os.Link(tmp, final)
		switch {
		case err == nil:
			return final, nil
		case errors.Is(err, fs.ErrExist) && attempt < 10:
			continue
		case errors.Is(err, fs.ErrExist):
			return "", err
		}
		// No hard links on this file system: claim the name, then rename
		// the draft over it.
		g, cerr := os.OpenFile(final, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if cerr != nil {
			if errors.Is(cerr, fs.ErrExist) && attempt < 10 {
				continue
			}
			return "", cerr
		}
		g.Close()
		if err := os.Rename(tmp, final); err != nil {
			os.Remove(final)
			return "", err
		}
		return final, nil
	}
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

// createTemp creates a new file in dir with the default permissions less the
// umask, which os.CreateTemp would not give (it makes 0600 files). Its name
// starts with ".tmp-", which ctx fsck knows for a temporary file, and says
// who left it there.
func createTemp(dir string) (string, *os.File, error) {
	for attempt := 0; ; attempt++ {
		p := filepath.Join(dir, ".tmp-ctx-"+randomHex(8))
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
