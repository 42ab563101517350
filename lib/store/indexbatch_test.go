package store

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteIndexes(t *testing.T) {
	st := newTestStore(t)
	a, b := Sum([]byte("a")), Sum([]byte("b"))
	if err := st.WriteIndex(a, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteIndexes(map[Hash][]byte{a: []byte("new a\n"), b: []byte("new b\n")}); err != nil {
		t.Fatal(err)
	}
	for h, want := range map[Hash]string{a: "new a\n", b: "new b\n"} {
		got, err := st.ReadIndex(h)
		if err != nil || string(got) != want {
			t.Errorf("ReadIndex(%s) = %q, %v; want %q", h, got, err, want)
		}
	}
	ents, err := os.ReadDir(filepath.Join(st.Root(), packsDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 {
		t.Errorf("packs/ holds %d files, want 2 (temporary files left?)", len(ents))
	}
	if err := st.WriteIndexes(nil); err != nil {
		t.Fatal(err)
	}
}
