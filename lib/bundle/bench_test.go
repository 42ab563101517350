package bundle

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/store"
)

// benchStore packs n runs, each with a few small objects of its own, one
// shared input and one 256 KiB input of its own.
func benchStore(b *testing.B, n int) (*store.Store, []store.Hash) {
	b.Helper()
	st := storetest.New(b)
	big := bytes.Repeat([]byte("0123456789abcdef"), 16<<10)
	var packs []store.Hash
	for i := 0; i < n; i++ {
		log := fmt.Sprintf(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},
"prompts":[{"role":"user","content":"task %d"}],
"inputs":[{"name":"shared.txt","content":"shared\n"},{"name":"big.txt","content":"%d%s"}],
"steps":[{"tool":"read_file","parameters":{"path":"big.txt"},"output":"step %d"},
         {"tool":"grep","parameters":{"q":"x"},"output":"hits %d"}]}`, i, i, big, i, i)
		packs = append(packs, packLog(b, st, log))
	}
	return st, packs
}

func BenchmarkExport(b *testing.B) {
	st, packs := benchStore(b, 50)
	var n int64
	for b.Loop() {
		out, err := Export(io.Discard, st, packs)
		if err != nil {
			b.Fatal(err)
		}
		n = out.Bytes
	}
	b.SetBytes(n)
}

func BenchmarkImport(b *testing.B) {
	src, packs := benchStore(b, 50)
	var buf bytes.Buffer
	if _, err := Export(&buf, src, packs); err != nil {
		b.Fatal(err)
	}
	stream := buf.Bytes()
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		b.StopTimer()
		dst := storetest.New(b)
		b.StartTimer()
		if _, err := Import(bytes.NewReader(stream), dst, dst.NewBatch()); err != nil {
			b.Fatal(err)
		}
	}
}
