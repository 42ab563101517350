package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// The floor for writing N objects: the bench binary run as
// "bench -floor DIR SIZES [WAY]" writes one file per size listed in SIZES
// (one a line) under DIR/objects/xx/, each to a temporary file beside its
// final name, then renamed, made durable one of the ways below. The
// default, "batch", is the durability of a store.Batch (lib/store/write.go,
// docs/STORE.md): one sync of the files' data before the renames (an
// fsync each for up to 16, else one syncfs), one more for the directory
// entries after them. Nothing else: no hashing, no log, no manifest.
//
// The other ways are the candidates for making a commit durable, timed on
// the same files side by side (the row "durability of N objects"):
//
//   - "fsync": an fsync of each file written (8 at once), the renames,
//     an fsync of each directory changed;
//   - "writeout": as git's core.fsyncMethod=batch, each file's writeback
//     started and waited for as it is written (sync_file_range), one fsync
//     of a new file to flush the disk's cache, the renames, one fsync of
//     objects/; sound only where one fsync commits the whole journal
//     (ext4, xfs), which POSIX does not promise;
//   - "syncfs-once": each file renamed as soon as written, one syncfs: an
//     object visible before it is durable (a crash can leave a short file
//     under its final name), shown for what a single sync would save;
//   - "none": no sync at all, what the file system's work alone costs.

// floorMode is the hidden first argument that runs the floor.
const floorMode = "-floor"

// floorWays are the ways runFloor makes the files durable, the default
// first.
func floorWays() []string { return []string{"batch", "fsync", "writeout", "syncfs-once", "none"} }

func runFloor(dir, sizesFile, way string) error {
	if !slicesContains(floorWays(), way) {
		return fmt.Errorf("no way %q: one of %s", way, strings.Join(floorWays(), ", "))
	}
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
	finals := make([]string, len(sizes))
	for i, n := range sizes {
		d := filepath.Join(dir, "objects", fmt.Sprintf("%02x", i%256))
		tmps[i] = filepath.Join(d, fmt.Sprintf(".tmp-obj-%d", i))
		finals[i] = filepath.Join(d, fmt.Sprintf("obj-%d", i))
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
		if way == "writeout" {
			err = writeout(f)
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		if way == "syncfs-once" || way == "none" {
			if err := os.Rename(tmps[i], finals[i]); err != nil {
				return err
			}
		}
	}
	dirs := map[string]bool{filepath.Join(dir, "objects"): true}
	for _, tmp := range tmps {
		dirs[filepath.Dir(tmp)] = true
	}
	var ds []string
	for d := range dirs {
		ds = append(ds, d)
	}
	renameAll := func() error {
		for i, tmp := range tmps {
			if err := os.Rename(tmp, finals[i]); err != nil {
				return err
			}
		}
		return nil
	}
	switch way {
	case "batch":
		if err := floorSync(dir, tmps); err != nil {
			return err
		}
		if err := renameAll(); err != nil {
			return err
		}
		return floorSync(dir, ds)
	case "fsync":
		if err := fsyncAll(tmps); err != nil {
			return err
		}
		if err := renameAll(); err != nil {
			return err
		}
		return fsyncAll(ds)
	case "writeout":
		if err := fsyncAll([]string{newFile(dir)}); err != nil {
			return err
		}
		if err := renameAll(); err != nil {
			return err
		}
		return fsyncAll([]string{filepath.Join(dir, "objects")})
	case "syncfs-once":
		if !syncFS(dir) {
			return fsyncAll(append(finals, ds...))
		}
	}
	return nil
}

// newFile creates an empty file in dir, whose fsync flushes the disk's
// cache for the writeout way; "" when it cannot.
func newFile(dir string) string {
	f, err := os.CreateTemp(dir, "flush-")
	if err != nil {
		return ""
	}
	f.Close()
	return f.Name()
}

// fsyncAll fsyncs every path, 8 at once (concurrent fsyncs share the
// journal's commits, as the store's syncStore issues them).
func fsyncAll(paths []string) error {
	errs := make([]error, len(paths))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f, err := os.Open(p)
			if err == nil {
				err = f.Sync()
				f.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// floorSync makes paths durable as a store.Batch does: an fsync each for
// up to 16, else one sync of the filesystem (syncfs on Linux).
func floorSync(root string, paths []string) error {
	if len(paths) > 16 && syncFS(root) {
		return nil
	}
	return fsyncAll(paths)
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

// floorSizes is the file where withFloor records the sizes of the
// objects of the row named name.
func (e benchEnv) floorSizes(name string) string {
	return filepath.Join(e.work, "floor", strings.NewReplacer(" ", "-", "/", "-", ",", "").Replace(name)) + ".sizes"
}

// withFloor adds to a fresh-pack workload the floor for the objects its
// first command writes: prepare runs that command once more (untimed), counts
// the objects it wrote in store, and the floor then writes as many files of
// the same sizes; the target is at most 1.3x the floor.
func (e benchEnv) withFloor(w workload, store string) workload {
	sizesFile := e.floorSizes(w.name)
	dir := strings.TrimSuffix(sizesFile, ".sizes")
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

// durability: the ways of making a commit's new objects durable, side by
// side on the same files (those of the 10,000-file tree's pack, written
// by withFloor's preparation): the store's batch, an fsync each, git's
// writeout then one flush, one syncfs after renaming as written, and no
// sync. It reads the sizes the tree row's floor recorded, so it runs
// after that row (or prepares it).
func (e benchEnv) durability(prepareSizes func() error, sizesFile string) workload {
	dir := filepath.Join(e.work, "durability")
	self, _ := os.Executable()
	var cmds []command
	for _, way := range floorWays() {
		out := filepath.Join(dir, way)
		label := "write, then " + map[string]string{
			"batch":       "sync, rename, sync (store.Batch)",
			"fsync":       "fsync each, rename, fsync each directory",
			"writeout":    "sync_file_range each, one fsync, rename, fsync objects/ (git's batch)",
			"syncfs-once": "rename, one syncfs (visible before durable)",
			"none":        "rename, no sync",
		}[way]
		c := command{label: label, argv: []string{self, floorMode, out, sizesFile, way}, dir: e.work,
			setup: func() error { return os.RemoveAll(out) }}
		if way != "batch" {
			c.peer = way
		}
		cmds = append(cmds, c)
	}
	var n int
	return workload{
		name:  "durability of the tree's objects, five ways",
		extra: true,
		prepare: func() error {
			if err := prepareSizes(); err != nil {
				return err
			}
			b, err := os.ReadFile(sizesFile)
			n = len(strings.Fields(string(b)))
			return err
		},
		cmds: cmds,
		summary: func([]sample) string {
			return fmt.Sprintf("%s files of the sizes of the objects of the tree's pack; the first is how a commit makes them durable today", count(n))
		},
	}
}
