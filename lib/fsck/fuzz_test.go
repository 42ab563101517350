package fsck

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/store"
)

// FuzzCheck puts arbitrary bytes where fsck reads outside input: an index
// entry, refs/latest, and an object that may look like a manifest. Check
// must never fail or panic, must report the same problems twice, must
// report a problem of a known kind with every field set, or none at all;
// and --repair-index must leave the pack's index entry current.
func FuzzCheck(f *testing.F) {
	st := storetest.New(f)
	a := packLog(f, st, logN(1))
	// The index in the form of earlier versions, whose file per pack the
	// fuzzer writes (a record of the index log would win over it).
	st = storetest.EarlierIndex(f, st)
	entry, err := st.ReadIndex(a)
	if err != nil {
		f.Fatal(err)
	}
	manifest, err := st.ReadAll(a)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(entry, []byte(a.Hex()+"\n"), []byte("blob"))
	f.Add([]byte("{"), []byte("latest"), manifest[:len(manifest)/2])
	f.Add([]byte(`{"hash":"`+a.String()+`","model":"x"}`), []byte(""), []byte(`{"created":"x","version":"0.1"}`))
	f.Add([]byte("null"), []byte(store.Sum([]byte("shared\n")).Hex()), []byte(`{"created":"2026","model":{"identifier":"m"},"prompts":[],"steps":[],"version":"0.1","inputs":[{"name":"x","content_ref":"sha256:`+a.Hex()+`"}]}`))

	known := map[string]bool{Corrupt: true, Missing: true, Symlink: true, NotRegular: true, Stray: true, Unindexed: true, BadIndex: true, BadRef: true, Tmp: true, Layout: true, Unreadable: true}
	later := Options{Now: time.Now().Add(time.Hour), TmpAge: 24 * time.Hour}
	f.Fuzz(func(t *testing.T, entryBytes, ref, obj []byte) {
		// What a repair of the input before wrote to an index log would
		// win over the file: back to the earlier form.
		logs, _ := filepath.Glob(filepath.Join(st.Root(), "packs", store.IndexLogPrefix+"*"))
		for _, l := range logs {
			os.Remove(l)
		}
		indexPath := filepath.Join(st.Root(), "packs", a.Hex())
		write(t, indexPath, entryBytes)
		write(t, filepath.Join(st.Root(), "refs", "latest"), ref)
		// Written in place rather than through a batch, whose syncs would
		// make each input slow.
		h := store.Sum(obj)
		existed := st.Has(h)
		if !existed {
			write(t, st.ObjectPath(h), obj)
		}
		defer func() {
			if !existed {
				os.Remove(st.ObjectPath(h))
				os.Remove(filepath.Join(st.Root(), "packs", h.Hex()))
			}
		}()

		one, err := Check(st, later)
		if err != nil {
			t.Fatal(err)
		}
		two, err := Check(st, later)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(one.Problems, two.Problems) {
			t.Fatalf("two checks differ:\n%+v\n%+v", one.Problems, two.Problems)
		}
		if one.OK != (len(one.Problems) == 0) {
			t.Fatalf("ok = %v with %d problems", one.OK, len(one.Problems))
		}
		for _, p := range one.Problems {
			if !known[p.Kind] || p.Object == "" || p.Detail == "" {
				t.Fatalf("problem %+v", p)
			}
		}

		repair := later
		repair.RepairIndex = true
		if _, err := Check(st, repair); err != nil {
			t.Fatal(err)
		}
		after, err := Check(st, later)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range after.Problems {
			if (p.Kind == BadIndex || p.Kind == Unindexed) && (p.Object == "packs/"+a.Hex() || p.Object == a.String() || p.pack == a) {
				t.Fatalf("after --repair-index: %+v", p)
			}
		}
	})
}
