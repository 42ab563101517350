package store

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	root := filepath.Join(t.TempDir(), Dir)
	if created, err := Init(root); err != nil || !created {
		t.Fatalf("Init: %v %v", created, err)
	}
	st, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestInitIsIdempotent(t *testing.T) {
	root := filepath.Join(t.TempDir(), Dir)
	if created, err := Init(root); err != nil || !created {
		t.Fatalf("first Init: %v %v", created, err)
	}
	os.WriteFile(filepath.Join(root, "config.json"), []byte("kept"), 0o644)
	if created, err := Init(root); err != nil || created {
		t.Fatalf("second Init: created=%v err=%v", created, err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "config.json")); string(b) != "kept" {
		t.Fatalf("second Init changed config.json: %q", b)
	}
}

func TestBatchIsInvisibleUntilCommit(t *testing.T) {
	st := newStore(t)
	b := st.NewBatch()
	h, err := b.PutBytes([]byte("hello"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Has(h) {
		t.Fatal("object visible before Commit")
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := st.ReadAll(h)
	if err != nil || string(got) != "hello" {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
	fi, err := os.Stat(st.ObjectPath(h))
	if err != nil || fi.Mode().Perm()&0o222 != 0 {
		t.Fatalf("object is writable: %v %v", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(st.tmp()); len(ents) != 0 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

func TestBatchAbortLeavesNothing(t *testing.T) {
	st := newStore(t)
	b := st.NewBatch()
	h, _ := b.PutBytes([]byte("gone"))
	h2, _, _ := b.PutReader(strings.NewReader("also gone"))
	b.Abort()
	if st.Has(h) || st.Has(h2) {
		t.Fatal("aborted objects are visible")
	}
	if ents, _ := os.ReadDir(st.tmp()); len(ents) != 0 {
		t.Fatalf("temporary files left: %v", ents)
	}
}

func TestDedupAndStats(t *testing.T) {
	st := newStore(t)
	b := st.NewBatch()
	b.PutBytes([]byte("a"))
	b.PutBytes([]byte("a")) // pending in the same batch
	b.PutReader(strings.NewReader("b"))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := b.Stats(); s.Written != 2 || s.Reused != 1 || s.BytesWritten != 2 {
		t.Fatalf("stats = %+v", s)
	}
	b2 := st.NewBatch()
	b2.PutBytes([]byte("a"))
	ch := b2.PutFile(treeOf(t, writeFile(t, "b")))
	if r := <-ch; r.Err != nil || r.Hash != Sum([]byte("b")) || r.Size != 1 {
		t.Fatalf("PutFile = %+v", r)
	}
	if err := b2.Commit(); err != nil {
		t.Fatal(err)
	}
	if s := b2.Stats(); s.Written != 0 || s.Reused != 2 {
		t.Fatalf("second batch stats = %+v", s)
	}
}

func writeFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// treeOf opens the directory of path as a tree, for PutFile(treeOf(path)).
func treeOf(t *testing.T, path string) (*Tree, string) {
	t.Helper()
	tree, err := OpenTree(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tree.Close() })
	return tree, filepath.Base(path)
}

func TestTreeNeverLeaves(t *testing.T) {
	dir := t.TempDir()
	outside := writeFile(t, "secret")
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	os.WriteFile(filepath.Join(dir, "sub", "ok"), []byte("ok"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "abs-link"))
	os.Symlink("../"+filepath.Base(filepath.Dir(outside))+"/f", filepath.Join(dir, "rel-link"))
	os.Symlink("sub/ok", filepath.Join(dir, "inner-link"))
	tree, err := OpenTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer tree.Close()
	for _, rel := range []string{"abs-link", "rel-link", "../x", "sub/../../x", "/etc/passwd"} {
		if f, err := tree.Open(rel); err == nil {
			f.Close()
			t.Errorf("Open(%q) left the tree", rel)
		}
	}
	for _, rel := range []string{"sub/ok", "inner-link"} {
		f, err := tree.Open(rel)
		if err != nil {
			t.Errorf("Open(%q) = %v", rel, err)
			continue
		}
		f.Close()
	}
	if _, err := tree.Open("sub"); err == nil {
		t.Error("Open of a directory succeeded")
	}
}

func TestPutFileLargeStreams(t *testing.T) {
	st := newStore(t)
	data := bytes.Repeat([]byte("0123456789abcdef"), (smallFile/16)*3+7) // > smallFile
	b := st.NewBatch()
	r := <-b.PutFile(treeOf(t, writeFile(t, string(data))))
	if r.Err != nil || r.Hash != Sum(data) || r.Size != int64(len(data)) {
		t.Fatalf("PutFile = %v %v %v", r.Err, r.Hash, r.Size)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Verify(r.Hash); err != nil || n != int64(len(data)) {
		t.Fatalf("Verify = %d, %v", n, err)
	}
}

func TestImmutable(t *testing.T) {
	st := newStore(t)
	h, _, err := st.PutObject([]byte("original"))
	if err != nil {
		t.Fatal(err)
	}
	p := st.ObjectPath(h)
	os.Chmod(p, 0o644)
	os.WriteFile(p, []byte("changed, longer"), 0o444)

	b := st.NewBatch()
	_, err = b.PutBytes([]byte("original"))
	var ie *ImmutableError
	if !errors.As(err, &ie) || ie.Hash != h {
		t.Fatalf("PutBytes over a changed object: %v", err)
	}
	if _, _, err := st.PutObject([]byte("original")); !errors.As(err, &ie) {
		t.Fatalf("PutObject over a changed object: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "changed, longer" {
		t.Fatalf("the existing file was rewritten: %q", got)
	}
}

func TestConcurrentBatches(t *testing.T) {
	st := newStore(t)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			b := st.NewBatch()
			for i := 0; i < 50; i++ {
				// Half the content is shared by every writer.
				content := fmt.Sprintf("shared %d", i)
				if i%2 == 1 {
					content = fmt.Sprintf("own %d %d", w, i)
				}
				if _, err := b.PutBytes([]byte(content)); err != nil {
					errs <- err
					return
				}
			}
			errs <- b.Commit()
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 50; i += 2 {
		if _, err := st.ReadAll(Sum([]byte(fmt.Sprintf("shared %d", i)))); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRefs(t *testing.T) {
	st := newStore(t)
	h := Sum([]byte("x"))
	if err := st.WriteRef(LatestRef, h); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteRef("v1.0", h); err != nil {
		t.Fatal(err)
	}
	if got, err := st.ReadRef("v1.0"); err != nil || got != h {
		t.Fatalf("ReadRef = %v %v", got, err)
	}
	refs, _ := st.Refs()
	if strings.Join(refs[h], ",") != "latest,v1.0" {
		t.Fatalf("Refs = %v", refs)
	}
	for _, bad := range []string{"", "a/b", "../x", "-x", "latest", "beef", "deadbeef", strings.Repeat("a", 129), "a b"} {
		if err := st.WriteRef(bad, h); err == nil && bad != "latest" {
			t.Errorf("WriteRef(%q) accepted", bad)
		}
	}
}

func TestResolve(t *testing.T) {
	st := newStore(t)
	a, _, _ := st.PutObject([]byte("a"))
	b, _, _ := st.PutObject([]byte("b"))
	st.WriteIndex(a, []byte("{}"))
	st.WriteRef(LatestRef, a)
	st.WriteRef("release", b)

	cases := []struct {
		name string
		want Hash
		err  string
	}{
		{"ctx://" + a.Hex(), a, ""},
		{"sha256:" + a.Hex(), a, ""},
		{a.Hex(), a, ""},
		{strings.ToUpper(a.Hex()), a, ""},
		{a.Hex()[:6], a, ""},
		{"ctx://" + a.Hex()[:6], a, ""},
		{"latest", a, ""},
		{"release", b, ""},
		{"abc", Hash{}, "at least 4 hex digits"},
		{"../../etc/passwd", Hash{}, "is not a pack or object name"},
		{"/etc/passwd", Hash{}, "is not a pack or object name"},
		{"ctx://zz", Hash{}, "not hex"},
		{a.Hex() + "00", Hash{}, "64 hex digits"},
		{"nosuchtag", Hash{}, `no pack or tag named "nosuchtag"`},
		{Sum([]byte("c")).Hex(), Hash{}, "not found"},
	}
	for _, c := range cases {
		got, err := st.ResolvePack(c.name)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ResolvePack(%q) error = %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ResolvePack(%q) = %v, %v", c.name, got, err)
		}
	}
	// b has no index entry: as a pack prefix it is found among the objects
	// only when the index has no match.
	if got, err := st.ResolvePack(b.Hex()[:8]); err != nil || got != b {
		t.Errorf("ResolvePack(prefix of unindexed) = %v %v", got, err)
	}
}

func TestResolveAmbiguous(t *testing.T) {
	st := newStore(t)
	// Find two contents whose hashes share the first 4 hex digits.
	seen := map[string]Hash{}
	var x, y Hash
	for i := 0; ; i++ {
		h := Sum([]byte(fmt.Sprint(i)))
		if o, ok := seen[h.Hex()[:4]]; ok {
			x, y = o, h
			st.PutObject([]byte(fmt.Sprint(i)))
			break
		}
		seen[h.Hex()[:4]] = h
	}
	for i := 0; ; i++ {
		if Sum([]byte(fmt.Sprint(i))) == x {
			st.PutObject([]byte(fmt.Sprint(i)))
			break
		}
	}
	_, err := st.ResolveObject(x.Hex()[:4])
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Fatalf("ResolveObject(ambiguous) = %v", err)
	}
	if _, err := st.ResolveObject(y.Hex()[:12]); err != nil {
		t.Fatalf("a longer prefix should be unique: %v", err)
	}
}

func TestHashCopy(t *testing.T) {
	for _, n := range []int{0, 1, hashChunk - 1, hashChunk, hashChunk + 1, 3*hashChunk + 7} {
		data := bytes.Repeat([]byte{'x', 'y', 'z'}, n/3+1)[:n]
		var out bytes.Buffer
		// iotest-like one byte at a time for small inputs exercises partial reads.
		h, got, err := hashCopy(&out, io.LimitReader(bytes.NewReader(data), int64(n)))
		if err != nil || got != int64(n) || h != Sum(data) || !bytes.Equal(out.Bytes(), data) {
			t.Errorf("hashCopy of %d bytes: n=%d err=%v hash ok=%v", n, got, err, h == Sum(data))
		}
	}
	// An error of the source is an error, io.ErrUnexpectedEOF included (a
	// truncated tar entry), never a short object.
	r := io.MultiReader(strings.NewReader("partial"), iotestErr{io.ErrUnexpectedEOF})
	if _, _, err := hashCopy(io.Discard, r); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("hashCopy over a failing reader: %v", err)
	}
}

type iotestErr struct{ err error }

func (e iotestErr) Read([]byte) (int, error) { return 0, e.err }

// TestWriteRefs: every tag moved, nothing left behind, a bad name refused
// before anything is written.
func TestWriteRefs(t *testing.T) {
	root := filepath.Join(t.TempDir(), Dir)
	if _, err := Init(root); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	a, b := Sum([]byte("a")), Sum([]byte("b"))
	if err := s.WriteRef("x.1", a); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteRefs(map[string]Hash{"x.1": b, "y-2": a}); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]Hash{"x.1": b, "y-2": a} {
		if got, err := s.ReadRef(ref); err != nil || got != want {
			t.Errorf("ReadRef(%s) = %v, %v; want %v", ref, got, err, want)
		}
	}
	if err := s.WriteRefs(map[string]Hash{"z": a, "../x": b}); err == nil {
		t.Error("WriteRefs took the name ../x")
	}
	if _, err := s.ReadRef("z"); err == nil {
		t.Error("WriteRefs wrote a tag before refusing another")
	}
	ents, _ := os.ReadDir(filepath.Join(root, tagsDir))
	for _, e := range ents {
		if IsTempName(e.Name()) {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
