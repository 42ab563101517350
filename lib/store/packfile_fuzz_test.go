package store_test

import (
	"bytes"
	"testing"

	"github.com/contextsubstrate/ctx/lib/store"
)

// FuzzParsePackfileIndex: whatever the bytes of a .idx, the parser returns
// an index or an error, never panics, and what it accepts is exactly what
// the encoder writes for those entries.
func FuzzParsePackfileIndex(f *testing.F) {
	f.Add(store.EncodePackfileIndex(store.Sum(nil), nil))
	f.Add(store.EncodePackfileIndex(store.Sum([]byte("xy")), []store.PackfileEntry{
		{Hash: store.Sum([]byte("x")), Offset: 0, Size: 1}, {Hash: store.Sum([]byte("y")), Offset: 1, Size: 1}}))
	f.Add([]byte("CTXPIDX1\x00\x00\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, err := store.ParsePackfileIndex(b)
		if err != nil {
			return
		}
		if again := store.EncodePackfileIndex(ix.Packfile, ix.Entries); !bytes.Equal(again, b) {
			t.Fatalf("accepted bytes that re-encode differently")
		}
	})
}
