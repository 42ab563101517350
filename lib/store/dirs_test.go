package store_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/share"
	"github.com/contextsubstrate/ctx/lib/store"
)

// TestPlantedDirectories replaces each directory of the store with a
// symlink to a copy of it outside the store, where every read would find
// what it looks for, and checks that each write into that directory is
// refused without writing anything out there, and that each read from it
// is refused rather than taken for the store's.
func TestPlantedDirectories(t *testing.T) {
	content := []byte("content\n")
	h := store.Sum(content)
	// Content new to the store whose object falls in the same objects/ab/.
	var fresh []byte
	for i := 0; fresh == nil; i++ {
		if c := []byte(fmt.Sprintf("fresh %d\n", i)); store.Sum(c).Hex()[:2] == h.Hex()[:2] {
			fresh = c
		}
	}
	fh := store.Sum(fresh)
	putBatch := func(st *store.Store, data []byte) error {
		b := st.NewBatch()
		if _, err := b.PutBytes(data); err != nil {
			b.Abort()
			return err
		}
		return b.Commit()
	}
	packed := []byte("packed content\n")
	putPackfile := func(st *store.Store, data []byte) error {
		b := st.NewBatch()
		b.UsePackfile()
		if _, err := b.PutBytes(data); err != nil {
			b.Abort()
			return err
		}
		return b.Commit()
	}
	type ops map[string]func(st *store.Store) error
	for _, tc := range []struct {
		dir           string
		writes, reads ops
	}{
		// A blob whose hash is known before writing (PutBytes) is written
		// beside its final name; one read from a stream, and a manifest,
		// go through tmp/.
		{"tmp", ops{
			"a streamed blob": func(st *store.Store) error {
				b := st.NewBatch()
				if _, _, err := b.PutReader(bytes.NewReader(fresh)); err != nil {
					b.Abort()
					return err
				}
				return b.Commit()
			},
			"a manifest": func(st *store.Store) error {
				_, _, err := st.PutObject(append([]byte("manifest "), fresh...))
				return err
			},
		}, nil},
		{"objects/" + h.Hex()[:2], ops{
			"a new blob":       func(st *store.Store) error { return putBatch(st, fresh) },
			"a new manifest":   func(st *store.Store) error { _, _, err := st.PutObject(fresh); return err },
			"a blob again":     func(st *store.Store) error { return putBatch(st, content) },
			"a manifest again": func(st *store.Store) error { _, _, err := st.PutObject(content); return err },
		}, ops{
			"the object": func(st *store.Store) error { _, err := st.ReadAll(h); return err },
			"its size":   func(st *store.Store) error { _, err := st.Stat(h); return err },
			"a prefix":   func(st *store.Store) error { _, err := st.ResolveObject(h.Hex()[:6]); return err },
		}},
		{"objects/packed", ops{
			"a packfile":           func(st *store.Store) error { return putPackfile(st, fresh) },
			"a packfile again":     func(st *store.Store) error { return putPackfile(st, packed) },
			"a loose object again": func(st *store.Store) error { return putBatch(st, packed) },
		}, ops{
			"the object": func(st *store.Store) error { _, err := st.ReadAll(store.Sum(packed)); return err },
			"its size":   func(st *store.Store) error { _, err := st.Stat(store.Sum(packed)); return err },
			"a prefix":   func(st *store.Store) error { _, err := st.ResolveObject(store.Sum(packed).Hex()[:6]); return err },
		}},
		{"packs", ops{
			"an index entry": func(st *store.Store) error { return st.WriteIndex(fh, []byte("{}")) },
			"index entries": func(st *store.Store) error {
				return st.WriteIndexes([]store.IndexRecord{{Hash: fh, Entry: []byte("{}")}})
			},
		}, ops{
			"an index entry": func(st *store.Store) error { _, err := st.ReadIndex(h); return err },
			"the index":      func(st *store.Store) error { _, err := st.IndexedPacks(); return err },
		}},
		{"refs", ops{
			"latest": func(st *store.Store) error { return st.WriteRef(store.LatestRef, fh) },
			"a tag":  func(st *store.Store) error { return st.WriteRef("v2", fh) },
			"tags":   func(st *store.Store) error { return st.WriteRefs(map[string]store.Hash{"v2": fh, "v3": fh}) },
		}, ops{
			"latest":   func(st *store.Store) error { _, err := st.ReadRef(store.LatestRef); return err },
			"a tag":    func(st *store.Store) error { _, err := st.ReadRef("v1"); return err },
			"the refs": func(st *store.Store) error { _, err := st.Refs(); return err },
		}},
		{"refs/tags", ops{
			"a tag": func(st *store.Store) error { return st.WriteRef("v2", fh) },
			"tags":  func(st *store.Store) error { return st.WriteRefs(map[string]store.Hash{"v2": fh}) },
		}, ops{
			"a tag":    func(st *store.Store) error { _, err := st.ReadRef("v1"); return err },
			"the refs": func(st *store.Store) error { _, err := st.Refs(); return err },
		}},
		{"drafts", ops{
			"a draft": func(st *store.Store) error {
				_, err := share.SaveDraft(st, h, func(w io.Writer) error { _, err := w.Write([]byte("{}\n")); return err }, nil)
				return err
			},
		}, nil},
		{"cache", ops{
			"the cache": func(st *store.Store) error { return st.WriteCache("log", []byte("other")) },
		}, ops{
			"the cache": func(st *store.Store) error { _, err := st.ReadCache("log"); return err },
		}},
	} {
		t.Run(strings.ReplaceAll(tc.dir, "/", "_"), func(t *testing.T) {
			st := newStore(t)
			must(t, putBatch(st, content))
			must(t, putPackfile(st, packed))
			must(t, st.WriteIndex(h, []byte("{}")))
			must(t, st.WriteRef(store.LatestRef, h))
			must(t, st.WriteRef("v1", h))
			must(t, st.WriteCache("log", []byte("cache")))
			must(t, os.MkdirAll(st.DraftsDir(), 0o755))

			inside := filepath.Join(st.Root(), filepath.FromSlash(tc.dir))
			// Beside the store, out of it, on the same filesystem.
			outside := filepath.Join(filepath.Dir(st.Root()), "moved")
			must(t, os.Rename(inside, outside))
			must(t, os.Symlink(outside, inside))
			before := listDir(t, outside)

			var planted *store.PlantedError
			var corrupt *store.CorruptError
			if err := st.CheckDir(inside); !errors.As(err, &planted) || planted.Path != inside {
				t.Errorf("CheckDir: %v", err)
			}
			for what, op := range tc.writes {
				if err := op(st); !errors.As(err, &planted) && !errors.As(err, &corrupt) {
					t.Errorf("writing %s through %s: %v, want a refusal", what, tc.dir, err)
				}
			}
			if after := listDir(t, outside); after != before {
				t.Errorf("written outside the store through %s:\nbefore: %s\nafter:  %s", tc.dir, before, after)
			}
			for what, op := range tc.reads {
				if err := op(st); !errors.As(err, &planted) && !errors.As(err, &corrupt) {
					t.Errorf("reading %s through %s: %v, want a refusal", what, tc.dir, err)
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func listDir(t *testing.T, dir string) string {
	t.Helper()
	var names []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			names = append(names, rel)
		}
		return nil
	})
	return strings.Join(names, " ")
}
