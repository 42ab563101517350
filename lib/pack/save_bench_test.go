package pack_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
)

// BenchmarkSave packs one run of 20 steps into a fresh store, as ctx pack
// of one log does: its blobs, its manifest, its index entry and
// refs/latest in one commit, whose syncs are most of the time.
func BenchmarkSave(b *testing.B) {
	var sb strings.Builder
	fmt.Fprintf(&sb, `{"event":"run","created":"2026-01-01T00:00:00Z","model":{"identifier":"m"}}`+"\n")
	fmt.Fprintf(&sb, `{"event":"prompt","content":"fix the test"}`+"\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&sb, `{"event":"step","tool":"read_file","parameters":{"path":"f%d"},"output":"step %d"}`+"\n", i, i)
	}
	log := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st := storetest.New(b)
		b.StartTimer()
		if _, _, err := pack.Save(st, strings.NewReader(log), pack.SaveOptions{Options: pack.Options{Store: st}, Source: "run"}); err != nil {
			b.Fatal(err)
		}
	}
}
