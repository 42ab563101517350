package store

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks below guard the store's hot path, hashing and writing
// objects through a Batch, for benchstat comparisons between revisions
// (docs/PERFORMANCE.md). A fresh store is made, untimed, for every
// operation that writes, so each one pays for new objects and its commit's
// syncs, as ctx pack into a new store does.

func benchStore(b *testing.B) *Store {
	b.Helper()
	root := filepath.Join(b.TempDir(), Dir)
	if _, err := Init(root); err != nil {
		b.Fatal(err)
	}
	st, err := Open(root)
	if err != nil {
		b.Fatal(err)
	}
	return st
}

// blobs returns n distinct pseudo-random blobs of size bytes.
func blobs(n, size int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([][]byte, n)
	for i := range out {
		out[i] = make([]byte, size)
		for k := 0; k+8 <= size; k += 8 {
			binary.LittleEndian.PutUint64(out[i][k:], r.Uint64())
		}
	}
	return out
}

// randReader yields n pseudo-random bytes without holding them.
type randReader struct {
	r *rand.Rand
	n int64
}

func (r *randReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), r.n))
	for k := 0; k < n; k += 8 {
		v := r.r.Uint64()
		if k+8 <= n {
			binary.LittleEndian.PutUint64(p[k:], v)
			continue
		}
		for j := k; j < n; j++ {
			p[j] = byte(v >> (8 * (j - k)))
		}
	}
	r.n -= int64(n)
	return n, nil
}

// BenchmarkBatchPutBytes stores 1,000 new blobs of 1 KiB and commits them:
// the blobs of a run's prompts and step outputs.
func BenchmarkBatchPutBytes(b *testing.B) {
	data := blobs(1000, 1<<10)
	b.SetBytes(int64(len(data) * len(data[0])))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st := benchStore(b)
		b.StartTimer()
		putAll(b, st, data)
	}
}

// putAll stores data through one batch and returns what it wrote.
func putAll(b *testing.B, st *Store, data [][]byte) Stats {
	batch := st.NewBatch()
	for _, d := range data {
		if _, err := batch.PutBytes(d); err != nil {
			b.Fatal(err)
		}
	}
	if err := batch.Commit(); err != nil {
		b.Fatal(err)
	}
	return batch.Stats()
}

// BenchmarkBatchPutBytesDedup stores the same 1,000 blobs into a store
// that has them all: the path of packing a log again.
func BenchmarkBatchPutBytesDedup(b *testing.B) {
	data := blobs(1000, 1<<10)
	st := benchStore(b)
	putAll(b, st, data)
	b.SetBytes(int64(len(data) * len(data[0])))
	b.ReportAllocs()
	for b.Loop() {
		if s := putAll(b, st, data); s.Written != 0 {
			b.Fatalf("%d objects written again", s.Written)
		}
	}
}

// BenchmarkBatchPutReader streams one 64 MiB blob into a new store and
// commits it: a large input given by path or on a pipe.
func BenchmarkBatchPutReader(b *testing.B) {
	const size = 64 << 20
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st := benchStore(b)
		b.StartTimer()
		batch := st.NewBatch()
		if _, n, err := batch.PutReader(&randReader{r: rand.New(rand.NewPCG(3, 4)), n: size}); err != nil || n != size {
			b.Fatalf("PutReader: %d bytes, %v", n, err)
		}
		if err := batch.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// benchTree writes each of data as a file of a new tree, in ten
// directories, and returns the tree open and the files' names.
func benchTree(b *testing.B, data [][]byte) (*Tree, []string) {
	b.Helper()
	dir := b.TempDir()
	names := make([]string, len(data))
	for i, d := range data {
		names[i] = fmt.Sprintf("d%02d/f%04d", i%10, i)
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(names[i])), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, names[i]), d, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	tree, err := OpenTree(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tree.Close() })
	return tree, names
}

// BenchmarkBatchPutFile stores a tree of 1,000 files of 4 KiB by path, the
// files read several at once, and commits them: inputs given by path.
func BenchmarkBatchPutFile(b *testing.B) {
	data := blobs(1000, 4<<10)
	tree, names := benchTree(b, data)
	b.SetBytes(int64(len(data) * len(data[0])))
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st := benchStore(b)
		b.StartTimer()
		putTree(b, st, tree, names, nil)
	}
}

// putTree stores the files names of tree through one batch (using the
// stat cache c unless it is nil), commits it and returns its counts.
func putTree(b *testing.B, st *Store, tree *Tree, names []string, c *StatCache) Stats {
	b.Helper()
	batch := st.NewBatch()
	if c != nil {
		batch.UseStatCache(c)
	}
	chs := make([]<-chan Result, len(names))
	for i, n := range names {
		chs[i] = batch.PutFile(tree, n)
	}
	for _, ch := range chs {
		if r := <-ch; r.Err != nil {
			b.Fatal(r.Err)
		}
	}
	if err := batch.Commit(); err != nil {
		b.Fatal(err)
	}
	return batch.Stats()
}

// BenchmarkBatchPutFileAgain packs the same 1,000 files of 4 KiB again,
// into the store that holds them, once with the stat cache (the repack of
// ctx pack: no file read) and once without (every file read and hashed).
func BenchmarkBatchPutFileAgain(b *testing.B) {
	data := blobs(1000, 4<<10)
	tree, names := benchTree(b, data)
	st := benchStore(b)
	// Record every file: the files were just written, so the batch is
	// taken to have begun an hour from now (see racyWindow).
	c := st.LoadStatCache()
	c.start = time.Now().Add(time.Hour).UnixNano()
	putTree(b, st, tree, names, c)
	if err := st.SaveStatCache(c); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		cache bool
	}{{"cache", true}, {"nocache", false}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(data) * len(data[0])))
			b.ReportAllocs()
			for b.Loop() {
				var c *StatCache
				if bc.cache {
					c = st.LoadStatCache()
				}
				s := putTree(b, st, tree, names, c)
				if bc.cache && s.Unread != len(names) {
					b.Fatalf("%d of %d files unread", s.Unread, len(names))
				}
			}
		})
	}
}

// BenchmarkWriteIndexes writes the index entries of a batch of 512 runs
// of a stream, as its commit does: one append to the index log, one sync.
func BenchmarkWriteIndexes(b *testing.B) {
	recs := make([]IndexRecord, 512)
	for i := range recs {
		h := Sum([]byte(fmt.Sprint(i)))
		recs[i] = IndexRecord{Hash: h, Entry: []byte(fmt.Sprintf(`{"hash":"%s","created":"2026-01-01T00:00:00Z","model":"m","steps":40,"parent":null,"stored":"2026-01-01T00:00:00Z","subject":"task-%04d"}`, h, i))}
	}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st := benchStore(b)
		b.StartTimer()
		if err := st.WriteIndexes(recs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexEntries reads an index of 50,000 entries from its log, as
// ctx log does without its cache, and as a hash prefix does for the names.
func BenchmarkIndexEntries(b *testing.B) {
	st := benchStore(b)
	recs := make([]IndexRecord, 50000)
	for i := range recs {
		h := Sum([]byte(fmt.Sprint(i)))
		recs[i] = IndexRecord{Hash: h, Entry: []byte(fmt.Sprintf(`{"hash":"%s","created":"2026-01-01T00:00:00Z","model":"m","steps":40,"parent":null,"stored":"2026-01-01T00:00:00Z","subject":"task-%04d"}`, h, i))}
	}
	if err := st.WriteIndexes(recs); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		fresh, err := Open(st.Root())
		if err != nil {
			b.Fatal(err)
		}
		places, err := fresh.IndexPlaces()
		if err != nil || len(places) != len(recs) {
			b.Fatalf("%d entries, %v", len(places), err)
		}
		var n atomic.Int64
		fresh.ReadIndexEntries(places, func(_ int, entry []byte, err error) {
			if err == nil {
				n.Add(int64(len(entry)))
			}
		})
		if n.Load() == 0 {
			b.Fatal("nothing read")
		}
	}
}
