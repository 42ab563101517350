package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The floor for writing N objects: the bench binary run as
// "bench -floor DIR SIZES" writes one file per size listed in SIZES (one a
// line) under DIR/objects/xx/, with the durability of a store.Batch
// (lib/store/write.go, docs/STORE.md): each to a temporary file beside its
// final name, then one sync for all of them (an fsync each for up to 16,
// else one syncfs), a rename each, and one more sync for the directory
// entries. Nothing else: no hashing, no log, no manifest.

// floorMode is the hidden first argument that runs the floor.
const floorMode = "-floor"

func runFloor(dir, sizesFile string) error {
	b, err := os.ReadFile(sizesFile)
	if err != nil {
		return err
	}
	var sizes []int64
	for _, f := range strings.Fields(string(b)) {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %v", sizesFile, err)
		}
		sizes = append(sizes, n)
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i*7 + i>>8)
	}
	// The 256 fan-out directories first, as a store has them, so the
	// loop is the writes alone.
	for i := range min(len(sizes), 256) {
		if err := os.MkdirAll(filepath.Join(dir, "objects", fmt.Sprintf("%02x", i)), 0o755); err != nil {
			return err
		}
	}
	tmps := make([]string, len(sizes))
	for i, n := range sizes {
		d := filepath.Join(dir, "objects", fmt.Sprintf("%02x", i%256))
		tmps[i] = filepath.Join(d, fmt.Sprintf(".tmp-obj-%d", i))
		f, err := os.OpenFile(tmps[i], os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o444)
		if err != nil {
			return err
		}
		for left := n; left > 0; {
			k := min(left, int64(len(buf)))
			if _, err := f.Write(buf[:k]); err != nil {
				f.Close()
				return err
			}
			left -= k
		}
		if err := f.Close(); err != nil {
			return err
		}
	}
	if err := floorSync(dir, tmps); err != nil {
		return err
	}
	dirs := map[string]bool{filepath.Join(dir, "objects"): true}
	for i, tmp := range tmps {
		if err := os.Rename(tmp, filepath.Join(filepath.Dir(tmp), fmt.Sprintf("obj-%d", i))); err != nil {
			return err
		}
		dirs[filepath.Dir(tmp)] = true
	}
	var ds []string
	for d := range dirs {
		ds = append(ds, d)
	}
	return floorSync(dir, ds)
}

// floorSync makes paths durable as a store.Batch does: an fsync each for
// up to 16, else one sync of the filesystem (syncfs on Linux).
func floorSync(root string, paths []string) error {
	if len(paths) > 16 && syncFS(root) {
		return nil
	}
	for _, p := range paths {
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

// objectSizes writes the sizes of every file under store/objects to file,
// one a line, and returns their count.
func objectSizes(store, file string) (int, error) {
	var sb strings.Builder
	n := 0
	err := filepath.WalkDir(filepath.Join(store, "objects"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintln(&sb, fi.Size())
		n++
		return nil
	})
	if err != nil {
		return 0, err
	}
	return n, os.WriteFile(file, []byte(sb.String()), 0o644)
}

// withFloor adds to a fresh-pack workload the floor for the objects its
// first command writes: prepare runs that command once more (untimed), counts
// the objects it wrote in store, and the floor then writes as many files of
// the same sizes; the target is at most 1.3x the floor.
func (e benchEnv) withFloor(w workload, store string) workload {
	dir := filepath.Join(e.work, "floor", strings.NewReplacer(" ", "-", "/", "-", ",", "").Replace(w.name))
	sizesFile := dir + ".sizes"
	out := filepath.Join(dir, "out")
	var objects int
	prepare := w.prepare
	first := w.cmds[0]
	w.prepare = func() error {
		if err := prepare(); err != nil {
			return err
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		c := first
		if c.setup != nil {
			if err := c.setup(); err != nil {
				return err
			}
		}
		if err := runQuiet(c.dir, c.argv...); err != nil {
			return err
		}
		var err error
		objects, err = objectSizes(store, sizesFile)
		return err
	}
	self, _ := os.Executable()
	w.cmds = append(w.cmds, command{
		label: "floor: the same objects, bare writes", argv: []string{self, floorMode, out, sizesFile},
		dir: dir, peer: "floor", setup: func() error { return os.RemoveAll(out) },
	})
	w.targets = append(w.targets, target{cmd: 0, peer: len(w.cmds) - 1, max: 1.3})
	summary := w.summary
	w.summary = func(med []sample) string {
		s := fmt.Sprintf("floor: %s files of the sizes of the objects the pack wrote, temporary file, write, one sync, rename, one sync (as store.Batch)", count(objects))
		if summary != nil {
			s = summary(med) + "\n" + strings.Repeat(" ", 46) + s
		}
		return s
	}
	return w
}
