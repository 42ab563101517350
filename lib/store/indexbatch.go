package store

import (
	"os"
	"path/filepath"
	"sync"
)

// WriteIndexes writes several index entries at once, for imports and
// repairs of many packs: each goes to a temporary file beside its final
// name, one sync makes them all durable, then each is renamed into place and
// packs/ is synced once. A reader sees each entry whole or not at all, as
// with WriteIndex; a crash part way leaves some entries in place and the
// others absent, which 'ctx fsck --repair-index' rebuilds.
func (s *Store) WriteIndexes(entries map[Hash][]byte) error {
	if len(entries) == 0 {
		return nil
	}
	dir := filepath.Join(s.root, packsDir)
	if err := s.CheckDir(dir); err != nil {
		return err
	}
	tmps := make(map[Hash]string, len(entries))
	defer func() {
		for _, t := range tmps {
			os.Remove(t)
		}
	}()
	// Creating the files is most of the cost (an inode each), which the
	// filesystem does for several goroutines at once.
	type made struct {
		h    Hash
		name string
		err  error
	}
	work := make(chan Hash)
	out := make(chan made)
	var wg sync.WaitGroup
	for range min(readers(), len(entries)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := range work {
				f, err := s.writeTempIn(dir, ".tmp-", entries[h], 0o666)
				m := made{h: h, err: err}
				if err == nil {
					m.name = f.Name()
					if err := f.Close(); err != nil {
						m.err = err
					}
				}
				out <- m
			}
		}()
	}
	go func() {
		for h := range entries {
			work <- h
		}
		close(work)
		wg.Wait()
		close(out)
	}()
	files := make([]string, 0, len(entries))
	var first error
	for m := range out {
		if m.name != "" {
			tmps[m.h] = m.name
			files = append(files, m.name)
		}
		if m.err != nil && first == nil {
			first = m.err
		}
	}
	if first != nil {
		return first
	}
	if err := s.fault(faultSync, dir, 0); err != nil {
		return err
	}
	if err := syncFiles(s.root, files); err != nil {
		return err
	}
	for h, t := range tmps {
		if err := s.fault(faultRename, filepath.Join(dir, h.Hex()), 0); err != nil {
			return err
		}
		if err := os.Rename(t, filepath.Join(dir, h.Hex())); err != nil {
			return err
		}
		delete(tmps, h)
	}
	syncDir(dir)
	return nil
}

// syncFiles makes the given files durable: one syncfs of the store's
// filesystem on Linux, else one fsync each.
func syncFiles(root string, files []string) error {
	if syncfs(root) {
		return nil
	}
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
