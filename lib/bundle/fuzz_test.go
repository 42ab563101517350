package bundle

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// FuzzImport feeds arbitrary bytes to Import. Whatever the input: no panic,
// no temporary file left; a refused stream leaves the store as it was; an
// accepted one leaves only objects that hash to their names, and packs
// whose closures are present and which are indexed.
func FuzzImport(f *testing.F) {
	src := storetest.New(f)
	a, b := packLog(f, src, logA), packLog(f, src, logB)
	good := export(f, src, a, b)
	f.Add(good)
	f.Add(export(f, src, a))
	f.Add(good[:len(good)/2])
	f.Add([]byte{})
	f.Add(make([]byte, 1024))
	blob := []byte("a blob\n")
	f.Add(makeTar(f, objEntry(blob)))
	f.Add(makeTar(f, tarEntry{hdr: tar.Header{Name: "../../etc/passwd"}, body: blob}))
	f.Add(makeTar(f, tarEntry{hdr: tar.Header{Name: ObjectName(store.Sum(blob)), Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}}))
	f.Add(makeTar(f, tarEntry{hdr: tar.Header{Name: IndexName(a)}, body: []byte(`{"hash":"` + a.String() + `"}`)}))

	// One store for every input, so an input costs no store creation (whose
	// directory syncs dominate); each input is judged by what it changes.
	dst := storetest.New(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		before := files(t, dst)
		res, err := Import(bytes.NewReader(data), dst, dst.NewBatch())
		after := files(t, dst)
		if ents, _ := os.ReadDir(filepath.Join(dst.Root(), "tmp")); len(ents) > 0 {
			t.Fatalf("temporary files left: %v", ents)
		}
		if err != nil {
			if strings.Join(before, "\n") != strings.Join(after, "\n") {
				t.Fatalf("a refused stream (%v) changed the store:\nbefore %v\nafter  %v", err, before, after)
			}
			return
		}
		for _, p := range after {
			if kind, h, _ := store.Classify(p); kind == store.KindObject {
				if _, err := dst.Verify(h); err != nil {
					t.Fatalf("stored object %s: %v", p, err)
				}
			}
		}
		for _, h := range res.Packs {
			m, err := pack.Load(dst, h)
			if err != nil {
				t.Fatalf("imported pack %s: %v", h, err)
			}
			for _, r := range m.Refs() {
				if !dst.Has(r.Hash) {
					t.Fatalf("imported pack %s lacks %s", h, r.Where)
				}
			}
			if _, err := dst.ReadIndex(h); err != nil {
				t.Fatalf("imported pack %s is not indexed: %v", h, err)
			}
		}
	})
}

// files lists every file of a store.
func files(t *testing.T, st *store.Store) []string {
	t.Helper()
	var out []string
	if err := st.Walk(func(e store.Entry) error {
		out = append(out, e.Path)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// FuzzParseEntryName checks that every name the importer accepts is the
// store's own spelling of a hash, so no accepted name can point anywhere
// else.
func FuzzParseEntryName(f *testing.F) {
	hx := strings.Repeat("0f", 32)
	for _, s := range []string{"objects/0f/" + hx[2:], "packs/" + hx, "objects/", "objects/0f", "packs", "../x", "/etc/passwd", "objects/0f/../" + hx, "refs/latest"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		kind, h, err := parseEntryName(name)
		if err != nil {
			return
		}
		switch kind {
		case entryObject:
			if name != ObjectName(h) {
				t.Fatalf("accepted %q as object %s", name, h)
			}
		case entryIndex:
			if name != IndexName(h) {
				t.Fatalf("accepted %q as the index entry of %s", name, h)
			}
		case entryDir:
			d := strings.TrimSuffix(name, "/")
			if d != "objects" && d != "packs" && !(len(d) == 10 && strings.HasPrefix(d, "objects/") && lowerHex(d[8:])) {
				t.Fatalf("accepted %q as a directory", name)
			}
		}
		if strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
			t.Fatalf("accepted an unsafe name %q", name)
		}
	})
}
