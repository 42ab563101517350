package store_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/lib/bundle"
	"github.com/contextsubstrate/ctx/lib/fsck"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// These tests make the store's writes fail the way a full, read-only or
// failing filesystem makes them fail, at every point where the store
// writes, through the fault hook (fault.go). After each failure the store
// must be clean: fsck finds nothing (no partial object under a final name,
// no manifest without its blobs, no ref without its pack, not even a
// temporary file left over), and the same work then succeeds.

// faultRun is a run with content of every kind: text, base64, small and
// large files by path (a large one is streamed, not read whole).
func faultRun(t *testing.T) (root string, log []byte) {
	t.Helper()
	root = t.TempDir()
	big := make([]byte, 3<<20)
	rand.Read(big)
	for name, data := range map[string][]byte{
		"src/a.go":  []byte("package a\n"),
		"src/b.go":  []byte("package b\n"),
		"data/big":  big,
		"report.md": []byte("# report\n"),
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	log = []byte(`{"created": "2026-03-01T00:00:00Z", "model": {"identifier": "m"},
 "system_prompt": "be careful",
 "prompts": [{"content": "fix the build"}, {"role": "assistant", "content": "on it"}],
 "inputs": [{"path": "src/a.go"}, {"path": "src/b.go"}, {"path": "data/big"},
            {"name": "notes.txt", "content": "a note\n"}, {"name": "bin", "content_base64": "AAEC/w=="}],
 "steps": [{"tool": "read_file", "parameters": {"path": "src/a.go"}, "output": "package a\n"},
           {"tool": "bash", "parameters": {"command": "go build"}, "output": "ok\n"}],
 "outputs": [{"name": "report.md", "path": "report.md"}]}`)
	return root, log
}

// newStore makes a store in memory (/dev/shm) where the machine has it,
// else in a temporary directory: these tests pack a few hundred times, and
// on a busy machine's disk each pack's syncs wait for everyone's writes.
// The faults are injected, so the filesystem under them does not matter.
func newStore(t *testing.T) *store.Store {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "ctx-store-test-")
	if err == nil {
		t.Cleanup(func() { os.RemoveAll(dir) })
	} else {
		dir = t.TempDir()
	}
	root := filepath.Join(dir, store.Dir)
	if _, err := store.Init(root); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// packRun does what ctx pack does, tagging the pack "t".
func packRun(st *store.Store, root string, log []byte) (store.Hash, error) {
	batch := st.NewBatch()
	res, err := pack.Build(bytes.NewReader(log), batch, pack.Options{Root: root, Store: st})
	if err != nil {
		batch.Abort()
		return store.Hash{}, err
	}
	// A fixed time: the index entry, which holds it, has the same size in
	// every run.
	pub, err := pack.Publish(st, batch, res.Manifest, []string{"t"}, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		batch.Abort()
		return pub.Hash, err
	}
	return pub.Hash, nil
}

// counter counts the store's writes and fails the ones fail picks.
type counter struct {
	mu    sync.Mutex
	n     int
	bytes int
	ops   map[string]int
	fail  func(i, bytes int, op string, n int) error
}

func (c *counter) hook(op, path string, n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	i := c.n
	c.n++
	if c.ops == nil {
		c.ops = map[string]int{}
	}
	c.ops[op]++
	if c.fail != nil {
		if err := c.fail(i, c.bytes, op, n); err != nil {
			return err
		}
	}
	c.bytes += n
	return nil
}

// checkClean fails the test unless fsck finds the store intact with no
// temporary file at all, allowing only the index entry of pack h to be
// missing (a failure between the manifest and its index entry: the pack is
// whole, and packing again or 'ctx fsck --repair-index' indexes it).
func checkClean(t *testing.T, st *store.Store, h store.Hash, what string) {
	t.Helper()
	// Now an hour ahead: a young manifest without an index entry is reported
	// at once instead of being waited for.
	rep, err := fsck.Check(st, fsck.Options{TmpAge: 0, Now: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatalf("%s: fsck: %v", what, err)
	}
	for _, p := range rep.Problems {
		if p.Kind == fsck.Unindexed && p.Object == h.String() {
			continue
		}
		t.Errorf("%s: fsck: %s %s: %s", what, p.Kind, p.Object, p.Detail)
	}
}

// snapshot lists every file of the store with its content's hash.
func snapshot(t *testing.T, st *store.Store) string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(st.Root(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(st.Root(), p)
		if d.IsDir() {
			out = append(out, rel+"/")
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, rel+" "+store.Sum(b).Hex())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// TestPackFaultAtEveryWrite fails each write of ctx pack in turn: once with a
// full disk (that write and every later one fail with ENOSPC), once with a
// passing I/O error (only that write fails, with EIO). Each time the error
// names the cause, the store is clean, and packing again succeeds with the
// same hash.
func TestPackFaultAtEveryWrite(t *testing.T) {
	root, log := faultRun(t)
	clean := &counter{}
	st := newStore(t)
	store.SetFaults(st, clean.hook)
	want, err := packRun(st, root, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a pack makes %d writes: %v", clean.n, clean.ops)
	for _, op := range []string{"open", "write", "sync", "link", "rename"} {
		if clean.ops[op] == 0 {
			t.Fatalf("no %q write seen: the hook misses a kind of write", op)
		}
	}

	eachWriteFault(t, clean.n, func(f writeFault, st *store.Store, c *counter) {
		h, err := packRun(st, root, log)
		if c.n <= f.k {
			// The writes run in parallel and dedup races can save one:
			// this run finished before write k.
			return
		}
		if err == nil {
			t.Errorf("%s: the pack succeeded", f.what)
			return
		}
		if !errors.Is(err, f.errno) {
			t.Errorf("%s: the error does not give the cause: %v", f.what, err)
		}
		var ve *pack.ValidationError
		if errors.As(err, &ve) {
			t.Errorf("%s: a store failure reported as a problem of the log: %v", f.what, err)
		}
		store.SetFaults(st, nil)
		checkClean(t, st, want, f.what)
		if h, err = packRun(st, root, log); err != nil || h != want {
			t.Errorf("%s: packing again: %v %v, want %v", f.what, h, err, want)
		}
		checkClean(t, st, store.Hash{}, f.what+", packed again")
	})
}

// writeFault is one failing write: the k-th write alone fails with EIO,
// or every write from the k-th on with ENOSPC (a full disk).
type writeFault struct {
	what  string
	k     int
	errno syscall.Errno
}

// eachWriteFault calls try once for each of a run's n writes and each way
// to fail it, with a fresh store whose writes fail so and the counter that
// fails them.
func eachWriteFault(t *testing.T, n int, try func(f writeFault, st *store.Store, c *counter)) {
	t.Helper()
	for _, mode := range []struct {
		name  string
		errno syscall.Errno
		from  bool // every write from the k-th on fails, not only the k-th
	}{
		{"full disk", syscall.ENOSPC, true},
		{"I/O error", syscall.EIO, false},
	} {
		for k := 0; k < n; k++ {
			st := newStore(t)
			c := &counter{fail: func(i, _ int, _ string, _ int) error {
				if i == k || (mode.from && i > k) {
					return mode.errno
				}
				return nil
			}}
			store.SetFaults(st, c.hook)
			try(writeFault{what: fmt.Sprintf("%s at write %d", mode.name, k), k: k, errno: mode.errno}, st, c)
		}
	}
}

// TestPackFullDiskAfterBytes lets the disk fill up after a given number of
// bytes, from none to nearly all a pack writes.
func TestPackFullDiskAfterBytes(t *testing.T) {
	root, log := faultRun(t)
	clean := &counter{}
	st := newStore(t)
	store.SetFaults(st, clean.hook)
	want, err := packRun(st, root, log)
	if err != nil {
		t.Fatal(err)
	}
	// The last budgets stop short of the total by more than the one
	// duplicate content of the run (10 bytes), which two readers may both
	// write before one copy is dropped.
	for _, budget := range []int{0, 1, 10, 100, 1000, 4096, 1 << 20, 3 << 20, clean.bytes - 1000, clean.bytes - 64} {
		what := fmt.Sprintf("disk full after %d of %d bytes", budget, clean.bytes)
		st := newStore(t)
		c := &counter{fail: func(_, used int, op string, n int) error {
			if op == "write" && used+n > budget {
				return syscall.ENOSPC
			}
			return nil
		}}
		store.SetFaults(st, c.hook)
		_, err := packRun(st, root, log)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: got %v, want no space left on device", what, err)
			continue
		}
		store.SetFaults(st, nil)
		checkClean(t, st, want, what)
		if h, err := packRun(st, root, log); err != nil || h != want {
			t.Errorf("%s: packing again: %v %v", what, h, err)
		}
	}
}

// TestPackStoreErrorIsOneError: a store that cannot write ends ctx pack
// with one error naming the first content it could not store and the
// cause, not one problem per piece of content.
func TestPackStoreErrorIsOneError(t *testing.T) {
	root, log := faultRun(t)
	st := newStore(t)
	store.SetFaults(st, func(op, path string, n int) error { return syscall.EROFS })
	_, err := packRun(st, root, log)
	var we *store.WriteError
	if !errors.As(err, &we) || !errors.Is(err, syscall.EROFS) {
		t.Fatalf("got %v, want a store.WriteError with EROFS", err)
	}
	msg := err.Error()
	if strings.Count(msg, "\n") != 0 || !strings.Contains(msg, ": cannot write to the store: open ") || !strings.HasSuffix(msg, "read-only file system") {
		t.Errorf("message: %q", msg)
	}
}

// exportedRun packs log into a fresh store and returns the pack and its
// export, as ctx export writes it.
func exportedRun(t *testing.T, root string, log []byte) (store.Hash, *bytes.Buffer) {
	t.Helper()
	src := newStore(t)
	h, err := packRun(src, root, log)
	if err != nil {
		t.Fatal(err)
	}
	var tarball bytes.Buffer
	if _, err := bundle.Export(&tarball, src, []store.Hash{h}); err != nil {
		t.Fatal(err)
	}
	return h, &tarball
}

// TestReadOnlyStoreIsUnchanged: on a store where nothing can be written,
// pack and import fail and not one byte of the store changes.
func TestReadOnlyStoreIsUnchanged(t *testing.T) {
	root, log := faultRun(t)
	_, tarball := exportedRun(t, root, log)

	st := newStore(t)
	other := []byte(strings.Replace(string(log), "fix the build", "fix the tests", 1))
	if _, err := packRun(st, root, other); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, st)
	store.SetFaults(st, func(op, path string, n int) error { return syscall.EROFS })
	if _, err := packRun(st, root, log); !errors.Is(err, syscall.EROFS) {
		t.Errorf("pack: got %v, want read-only file system", err)
	}
	batch := st.NewBatch()
	if _, err := bundle.Import(bytes.NewReader(tarball.Bytes()), st, batch); !errors.Is(err, syscall.EROFS) {
		t.Errorf("import: got %v, want read-only file system", err)
	}
	batch.Abort()
	if after := snapshot(t, st); after != before {
		t.Errorf("the read-only store changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestImportFaultAtEveryWrite fails each write of ctx import in turn, disk
// full from there on: the import fails with the cause, the store is clean,
// and importing again stores the pack.
func TestImportFaultAtEveryWrite(t *testing.T) {
	root, log := faultRun(t)
	want, tarball := exportedRun(t, root, log)
	importInto := func(st *store.Store) error {
		batch := st.NewBatch()
		_, err := bundle.Import(bytes.NewReader(tarball.Bytes()), st, batch)
		if err != nil {
			batch.Abort()
		}
		return err
	}
	clean := &counter{}
	st := newStore(t)
	store.SetFaults(st, clean.hook)
	if err := importInto(st); err != nil {
		t.Fatal(err)
	}
	for k := 0; k < clean.n; k++ {
		what := fmt.Sprintf("import, disk full at write %d of %d", k, clean.n)
		st := newStore(t)
		c := &counter{fail: func(i, _ int, _ string, _ int) error {
			if i >= k {
				return syscall.ENOSPC
			}
			return nil
		}}
		store.SetFaults(st, c.hook)
		if err := importInto(st); !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: got %v", what, err)
			continue
		}
		store.SetFaults(st, nil)
		checkClean(t, st, want, what)
		if err := importInto(st); err != nil {
			t.Errorf("%s: importing again: %v", what, err)
		}
		checkClean(t, st, store.Hash{}, what+", imported again")
		if _, err := pack.Load(st, want); err != nil {
			t.Errorf("%s: after importing again: %v", what, err)
		}
	}
}
