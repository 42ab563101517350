package pack_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
)

// BenchmarkSaveLogs packs a stream of 200 runs of 20 steps into a fresh
// store, as ctx pack - does: the runs after the first share commits and
// packfiles, so the cost per run is its content, not a commit.
func BenchmarkSaveLogs(b *testing.B) {
	var sb strings.Builder
	for r := 0; r < 200; r++ {
		fmt.Fprintf(&sb, `{"event":"run","created":"2026-01-01T00:00:00Z","model":{"identifier":"m"}}`+"\n")
		fmt.Fprintf(&sb, `{"event":"prompt","content":"task %d"}`+"\n", r)
		for i := 0; i < 20; i++ {
			fmt.Fprintf(&sb, `{"event":"step","tool":"read_file","parameters":{"path":"f%d"},"output":"run %d step %d"}`+"\n", i, r, i)
		}
	}
	stream := sb.String()
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st := storetest.New(b)
		b.StartTimer()
		n := 0
		err := pack.SaveLogs(st, pack.NewLogs(strings.NewReader(stream)), pack.SaveOptions{Options: pack.Options{Store: st}, Source: "stream"},
			func(*pack.Result, pack.Published) error { n++; return nil })
		if err != nil || n != 200 {
			b.Fatalf("%d packs, %v", n, err)
		}
	}
}
