package fsck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Packed objects are checked as loose ones are: every object rehashed
// (a damaged byte of a .pack is that object's "corrupt"), a damaged .idx
// reported under its path, and nothing reported of an intact packfile.
func TestCheckPackedObjects(t *testing.T) {
	st := storetest.New(t)
	b := st.NewBatch()
	b.UsePackfile()
	var hs []store.Hash
	for i := 0; i < 5; i++ {
		h, err := b.PutBytes([]byte(fmt.Sprintf("packed blob %d", i)))
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(st, Options{})
	if err != nil || !rep.OK || rep.Objects != 5 {
		t.Fatalf("intact: %s (%d objects, %v)", kinds(rep), rep.Objects, err)
	}
	idx, _ := filepath.Glob(filepath.Join(st.Root(), "objects", "packed", "*.idx"))
	name := strings.TrimSuffix(filepath.Base(idx[0]), ".idx")
	ix, err := st.ReadPackfileIndex(name)
	if err != nil {
		t.Fatal(err)
	}
	pack := strings.TrimSuffix(idx[0], ".idx") + ".pack"
	data, _ := os.ReadFile(pack)
	data[ix.Entries[2].Offset] ^= 1
	write(t, pack, data)
	rep, _ = Check(st, Options{})
	if got, want := kinds(rep), "corrupt "+ix.Entries[2].Hash.String(); got != want {
		t.Fatalf("damaged .pack: %q, want %q", got, want)
	}
	raw, _ := os.ReadFile(idx[0])
	raw[len(raw)-1] ^= 1
	write(t, idx[0], raw)
	rep, _ = Check(st, Options{})
	if got, want := kinds(rep), "corrupt objects/packed/"+name+".idx"; got != want {
		t.Fatalf("damaged .idx: %q, want %q", got, want)
	}
}
