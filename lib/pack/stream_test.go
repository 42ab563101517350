package pack_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// A stream longer than a batch is committed in several (one while the
// next is built): every run is handed on once, in the order of the logs,
// stored and indexed, and the stream packed again hands on the same
// packs writing nothing.
func TestSaveLogsInBatches(t *testing.T) {
	const runs = 1100 // more than two batches of 512
	var sb strings.Builder
	for r := 0; r < runs; r++ {
		fmt.Fprintf(&sb, `{"event":"run","created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"metadata":{"task":"t%d"}}`+"\n", r)
		fmt.Fprintf(&sb, `{"event":"step","tool":"x","output":"run %d"}`+"\n", r)
		fmt.Fprintf(&sb, `{"event":"step","tool":"y","output":"the same"}`+"\n")
	}
	st := storetest.New(t)
	pass := func() ([]store.Hash, int) {
		var got []store.Hash
		written := 0
		err := pack.SaveLogs(st, pack.NewLogs(strings.NewReader(sb.String())), pack.SaveOptions{Options: pack.Options{Store: st}, Source: "stream"},
			func(_ *pack.Result, p pack.Published) error {
				got = append(got, p.Hash)
				written += p.Stats.Written
				return nil
			})
		if err != nil {
			t.Fatal(err)
		}
		return got, written
	}
	got, _ := pass()
	if len(got) != runs {
		t.Fatalf("%d packs handed on, want %d", len(got), runs)
	}
	for i, h := range got {
		m, err := pack.Load(st, h)
		if err != nil {
			t.Fatalf("pack %d: %v", i, err)
		}
		if want := fmt.Sprintf(`"t%d"`, i); !strings.Contains(string(m.Metadata), want) {
			t.Fatalf("pack %d is %s, out of order", i, m.Metadata)
		}
		if !pack.HasIndexEntry(st, h) {
			t.Fatalf("pack %d is not indexed", i)
		}
	}
	again, written := pass()
	if fmt.Sprint(again) != fmt.Sprint(got) || written != 0 {
		t.Fatalf("packed again: %d packs, %d objects written", len(again), written)
	}
}
