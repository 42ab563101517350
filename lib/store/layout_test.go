package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/store"
)

// A layout of objects/ as the conformance suite sees it: how to store
// objects in it, and where one then lies on disk.
type layoutCase struct {
	name string
	// put stores objs in this layout, and only there.
	put func(t *testing.T, st *store.Store, objs [][]byte)
	// file is the file h lies in, and its offset there.
	file func(t *testing.T, st *store.Store, h store.Hash) (string, int64)
	// stamp is the file whose time is h's stored time.
	stamp func(file string) string
}

func layoutCases() []layoutCase {
	put := func(t *testing.T, st *store.Store, objs [][]byte, packfile bool) {
		t.Helper()
		b := st.NewBatch()
		if packfile {
			b.UsePackfile()
		}
		for _, data := range objs {
			if _, err := b.PutBytes(data); err != nil {
				t.Fatal(err)
			}
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		for _, data := range objs {
			_, err := os.Lstat(st.ObjectPath(store.Sum(data)))
			if loose := err == nil; loose == packfile {
				t.Fatalf("%s: loose %v, want %v", store.Sum(data), loose, !packfile)
			}
		}
	}
	return []layoutCase{
		{
			name: "loose",
			put: func(t *testing.T, st *store.Store, objs [][]byte) {
				t.Helper()
				put(t, st, objs, false)
			},
			file:  func(_ *testing.T, st *store.Store, h store.Hash) (string, int64) { return st.ObjectPath(h), 0 },
			stamp: func(file string) string { return file },
		},
		{
			name: "packfile",
			put: func(t *testing.T, st *store.Store, objs [][]byte) {
				t.Helper()
				put(t, st, objs, true)
				if n := len(packfileFiles(t, st, ".pack")); n != 1 {
					t.Fatalf("%d .pack files, want 1", n)
				}
			},
			file: func(t *testing.T, st *store.Store, h store.Hash) (string, int64) {
				t.Helper()
				for _, idx := range packfileFiles(t, st, ".idx") {
					name := strings.TrimSuffix(filepath.Base(idx), ".idx")
					ix, err := st.ReadPackfileIndex(name)
					if err != nil {
						t.Fatal(err)
					}
					for _, e := range ix.Entries {
						if e.Hash == h {
							return strings.TrimSuffix(idx, ".idx") + ".pack", e.Offset
						}
					}
				}
				t.Fatalf("%s is in no packfile", h)
				return "", 0
			},
			stamp: func(file string) string { return strings.TrimSuffix(file, ".pack") + ".idx" },
		},
	}
}

// TestLayoutConformance holds the two layouts of objects/ (loose files
// and packfiles) to the same behaviour through every read of the store:
// a reader cannot tell where an object lies, but by its errors' Path.
func TestLayoutConformance(t *testing.T) {
	for _, lc := range layoutCases() {
		for _, bc := range behaviours() {
			t.Run(lc.name+"/"+bc.name, func(t *testing.T) {
				st := storetest.New(t)
				var objs [][]byte
				for i := range 6 {
					objs = append(objs, []byte(fmt.Sprintf("%s object %d of the conformance suite\n", lc.name, i)))
				}
				lc.put(t, st, objs)
				// Another Store value reads, as another process would,
				// with nothing known of the layouts yet.
				bc.run(t, env{lc: lc, writer: st, st: reopen(t, st), objs: objs})
			})
		}
	}
}

// env is what a behaviour is run in: a store holding objs in one layout.
type env struct {
	lc     layoutCase
	writer *store.Store // the store value that wrote objs
	st     *store.Store // another, the reader
	objs   [][]byte
}

// where is the path of the file h lies in, relative to the store, as
// errors name it.
func (e env) where(t *testing.T, h store.Hash) string {
	f, _ := e.lc.file(t, e.st, h)
	rel, err := filepath.Rel(e.st.Root(), f)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(rel)
}

// rewrite replaces the file h lies in with data.
func (e env) rewrite(t *testing.T, h store.Hash, edit func(f string, off int64, b []byte) []byte) {
	t.Helper()
	f, off := e.lc.file(t, e.st, h)
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(f, 0o644)
	must(t, os.WriteFile(f, edit(f, off, b), 0o444))
}

type behaviour struct {
	name string
	run  func(t *testing.T, e env)
}

func behaviours() []behaviour {
	return []behaviour{
		{"open", func(t *testing.T, e env) {
			for _, st := range []*store.Store{e.writer, e.st} {
				for _, data := range e.objs {
					o, err := st.Open(store.Sum(data))
					if err != nil {
						t.Fatal(err)
					}
					got, err := io.ReadAll(o)
					o.Close()
					if err != nil || !bytes.Equal(got, data) || o.Size() != int64(len(data)) {
						t.Fatalf("Open(%s): %q (size %d), %v", store.Sum(data), got, o.Size(), err)
					}
				}
			}
		}},
		{"read all and verify", func(t *testing.T, e env) {
			for _, data := range e.objs {
				h := store.Sum(data)
				if got, err := e.st.ReadAll(h); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("ReadAll(%s) = %q, %v", h, got, err)
				}
				if n, err := e.st.Verify(h); err != nil || n != int64(len(data)) {
					t.Fatalf("Verify(%s) = %d, %v", h, n, err)
				}
			}
		}},
		{"stat", func(t *testing.T, e env) {
			for _, data := range e.objs {
				h := store.Sum(data)
				if n, err := e.st.Stat(h); err != nil || n != int64(len(data)) || !e.st.Has(h) {
					t.Fatalf("Stat(%s) = %d, %v", h, n, err)
				}
			}
		}},
		{"peek", func(t *testing.T, e env) {
			h := store.Sum(e.objs[2])
			f, _ := e.lc.file(t, e.st, h)
			when := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
			must(t, os.Chtimes(e.lc.stamp(f), when, when))
			size, stored, head, err := reopen(t, e.st).Peek(h, 5)
			if err != nil || size != int64(len(e.objs[2])) || !bytes.Equal(head, e.objs[2][:5]) || !stored.Equal(when) {
				t.Fatalf("Peek = %d %v %q, %v; want %d %v %q", size, stored, head, err, len(e.objs[2]), when, e.objs[2][:5])
			}
			if _, _, head, err := e.st.Peek(h, 1000); err != nil || !bytes.Equal(head, e.objs[2]) {
				t.Fatalf("Peek past the end = %q, %v", head, err)
			}
		}},
		{"list names", func(t *testing.T, e env) {
			names, bad, err := e.st.ObjectNames()
			if err != nil || len(bad) != 0 {
				t.Fatalf("ObjectNames: %v %v", bad, err)
			}
			want := hashes(e.objs)
			slices.SortFunc(names, cmpHash)
			if !slices.Equal(names, want) {
				t.Fatalf("ObjectNames = %v, want %v", names, want)
			}
			if has, err := e.st.HasObjects(); !has || err != nil {
				t.Fatalf("HasObjects = %v, %v", has, err)
			}
		}},
		{"resolve a prefix", func(t *testing.T, e env) {
			for _, h := range hashes(e.objs) {
				if got, err := e.st.ResolveObject(h.Hex()[:12]); err != nil || got != h {
					t.Fatalf("ResolveObject(%s) = %s, %v", h.Hex()[:12], got, err)
				}
				if got, err := e.st.ResolveObject(h.Hex()); err != nil || got != h {
					t.Fatalf("ResolveObject(%s) = %s, %v", h, got, err)
				}
			}
		}},
		{"missing object", func(t *testing.T, e env) {
			h := store.Sum([]byte("never stored"))
			notFound(t, e.st, h)
			if _, err := e.st.ResolveObject(h.Hex()); !errors.Is(err, store.ErrNotFound) {
				t.Fatalf("ResolveObject of a missing object: %v", err)
			}
		}},
		{"damaged object", func(t *testing.T, e env) {
			h := store.Sum(e.objs[1])
			e.rewrite(t, h, func(_ string, off int64, b []byte) []byte { b[off+3] ^= 0x20; return b })
			var ce *store.CorruptError
			if _, err := e.st.ReadAll(h); !errors.As(err, &ce) || ce.Actual == nil || ce.Path != e.where(t, h) {
				t.Fatalf("ReadAll of a damaged object: %v (%+v), want its hash and %s", err, ce, e.where(t, h))
			}
			if _, err := e.st.Verify(h); !errors.As(err, &ce) || ce.Actual == nil || ce.Path != e.where(t, h) {
				t.Fatalf("Verify of a damaged object: %v", err)
			}
			o, err := e.st.Open(h)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := o.WriteTo(io.Discard); !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("streaming a damaged object ended with %v", err)
			}
			o.Close()
			// Unverified by design: its size, and its bytes as they lie.
			if n, err := e.st.Stat(h); err != nil || n != int64(len(e.objs[1])) {
				t.Fatalf("Stat of a damaged object: %d, %v", n, err)
			}
			intactBut(t, e, h)
		}},
		{"truncated object", func(t *testing.T, e env) {
			h := store.Sum(e.objs[5])
			e.rewrite(t, h, func(_ string, off int64, b []byte) []byte { return b[:off+int64(len(e.objs[5]))-1] })
			var ce *store.CorruptError
			if _, err := e.st.ReadAll(h); !errors.As(err, &ce) || ce.Path != e.where(t, h) {
				t.Fatalf("ReadAll of a truncated object: %v", err)
			}
			if _, err := e.st.Verify(h); !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("Verify of a truncated object: %v", err)
			}
		}},
		{"symlink in the object's place", func(t *testing.T, e env) {
			// The file the object lies in is replaced by a link to an
			// intact copy: the store never follows it.
			h := store.Sum(e.objs[0])
			f, _ := e.lc.file(t, e.st, h)
			copyTo := filepath.Join(t.TempDir(), "copy")
			b, err := os.ReadFile(f)
			must(t, err)
			must(t, os.WriteFile(copyTo, b, 0o444))
			must(t, os.Remove(f))
			must(t, os.Symlink(copyTo, f))
			var ce *store.CorruptError
			if _, err := e.st.ReadAll(h); !errors.As(err, &ce) || ce.Path != e.where(t, h) || !strings.Contains(ce.Detail, "symlink") {
				t.Fatalf("ReadAll through a symlink: %v", err)
			}
			if _, err := e.st.Open(h); !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("Open through a symlink: %v", err)
			}
			if _, _, _, err := e.st.Peek(h, 1); !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("Peek through a symlink: %v", err)
			}
		}},
		{"planted directory", func(t *testing.T, e env) {
			// The directory the object's file is in is moved out of the
			// store and a symlink to it put in its place: everything is
			// still there, through the link.
			h := store.Sum(e.objs[3])
			f, _ := e.lc.file(t, e.st, h)
			inside := filepath.Dir(f)
			outside := filepath.Join(t.TempDir(), "moved")
			must(t, os.Rename(inside, outside))
			must(t, os.Symlink(outside, inside))
			rel, _ := filepath.Rel(e.st.Root(), inside)
			for _, st := range []*store.Store{e.st, reopen(t, e.st)} {
				if _, err := st.ReadAll(h); !errors.Is(err, store.ErrCorrupt) {
					t.Fatalf("ReadAll through a planted %s: %v", rel, err)
				}
				if _, err := st.Open(h); !errors.Is(err, store.ErrCorrupt) {
					t.Fatalf("Open through a planted %s: %v", rel, err)
				}
				if _, _, _, err := st.Peek(h, 1); !errors.Is(err, store.ErrCorrupt) {
					t.Fatalf("Peek through a planted %s: %v", rel, err)
				}
				if _, err := st.Stat(h); !errors.Is(err, store.ErrCorrupt) {
					t.Fatalf("Stat through a planted %s: %v", rel, err)
				}
				var planted *store.PlantedError
				if _, err := st.ResolveObject(h.Hex()[:12]); !errors.As(err, &planted) {
					t.Fatalf("a prefix through a planted %s: %v", rel, err)
				}
				names, bad, err := st.ObjectNames()
				if err != nil || len(bad) != 1 || bad[0].Dir != filepath.ToSlash(rel) || !errors.As(bad[0].Err, &planted) || slices.Contains(names, h) {
					t.Fatalf("ObjectNames through a planted %s: %v %v %v", rel, names, bad, err)
				}
			}
		}},
		{"removal by gc", func(t *testing.T, e env) {
			gone := hashes(e.objs[:2])
			_, stored, _, err := e.st.Peek(store.Sum(e.objs[4]), 1)
			must(t, err)
			x, err := e.writer.LockExclusive(nil)
			must(t, err)
			x.PlanRemovals(gone)
			for i, data := range e.objs[:2] {
				h := store.Sum(data)
				if n, err := x.RemoveObject(h); err != nil || n != int64(len(e.objs[i])) {
					t.Fatalf("RemoveObject(%s) = %d, %v", h, n, err)
				}
				if n, err := x.RemoveObject(h); err != nil || n != int64(len(e.objs[i])) && n != 0 {
					t.Fatalf("RemoveObject again = %d, %v", n, err)
				}
			}
			must(t, x.SyncObjects(gone))
			x.Unlock()
			for _, h := range gone {
				notFound(t, e.st, h)
			}
			for _, data := range e.objs[2:] {
				if got, err := e.st.ReadAll(store.Sum(data)); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("kept object: %q, %v", got, err)
				}
			}
			if _, again, _, err := e.st.Peek(store.Sum(e.objs[4]), 1); err != nil || !again.Equal(stored) {
				t.Fatalf("stored time %v after the removal, want %v (%v)", again, stored, err)
			}
		}},
		{"gc beside a reader", func(t *testing.T, e env) {
			// The reader has found its objects (and, packed, where they
			// lie) and holds one open; gc removes others, rewriting what
			// holds them. The open object reads whole, the others are
			// found where they lie now, and what went is not found.
			for _, data := range e.objs {
				if _, err := e.st.Stat(store.Sum(data)); err != nil {
					t.Fatal(err)
				}
			}
			open, err := e.st.Open(store.Sum(e.objs[5]))
			must(t, err)
			defer open.Close()
			x, err := e.writer.LockExclusive(nil)
			must(t, err)
			gone := hashes(e.objs[:1])
			x.PlanRemovals(gone)
			if _, err := x.RemoveObject(gone[0]); err != nil {
				t.Fatal(err)
			}
			x.Unlock()
			if got, err := io.ReadAll(open); err != nil || !bytes.Equal(got, e.objs[5]) {
				t.Fatalf("the open object: %q, %v", got, err)
			}
			for _, data := range e.objs[1:] {
				if got, err := e.st.ReadAll(store.Sum(data)); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("kept object: %q, %v", got, err)
				}
			}
			notFound(t, e.st, gone[0])
		}},
	}
}

// notFound checks that every read of h says it is not found.
func notFound(t *testing.T, st *store.Store, h store.Hash) {
	t.Helper()
	if _, err := st.ReadAll(h); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("ReadAll(%s): %v, want not found", h, err)
	}
	if _, err := st.Open(h); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Open(%s): %v, want not found", h, err)
	}
	if _, err := st.Stat(h); !errors.Is(err, store.ErrNotFound) || st.Has(h) {
		t.Fatalf("Stat(%s): %v, want not found", h, err)
	}
	if _, _, _, err := st.Peek(h, 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Peek(%s): %v, want not found", h, err)
	}
	if _, err := st.Verify(h); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Verify(%s): %v, want not found", h, err)
	}
}

// intactBut checks that every object but bad reads whole.
func intactBut(t *testing.T, e env, bad store.Hash) {
	t.Helper()
	for _, data := range e.objs {
		if h := store.Sum(data); h != bad {
			if _, err := e.st.Verify(h); err != nil {
				t.Fatalf("Verify(%s): %v", h, err)
			}
		}
	}
}

func hashes(objs [][]byte) []store.Hash {
	var out []store.Hash
	for _, data := range objs {
		out = append(out, store.Sum(data))
	}
	slices.SortFunc(out, cmpHash)
	return out
}

func cmpHash(a, b store.Hash) int { return strings.Compare(a.Hex(), b.Hex()) }

// reopen opens another Store value on st's directory, as another process.
func reopen(t *testing.T, st *store.Store) *store.Store {
	t.Helper()
	o, err := store.Open(st.Root())
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func packfileFiles(t *testing.T, st *store.Store, suffix string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(st.Root(), "objects", "packed", "*"+suffix))
	if err != nil {
		t.Fatal(err)
	}
	return m
}
