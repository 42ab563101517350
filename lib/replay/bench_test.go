package replay

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
)

const (
	benchFiles = 1000
	benchSteps = 10000
)

// benchContent is input file i: 40 lines, about 2 KiB, like a source file.
func benchContent(i int) string {
	var b strings.Builder
	for l := 0; l < 40; l++ {
		fmt.Fprintf(&b, "line %02d of file %04d: the quick brown fox jumps\n", l, i)
	}
	return b.String()
}

// benchLog is a run of steps built-in reads over benchFiles inputs.
func benchLog(steps int) string {
	var b strings.Builder
	b.WriteString(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],"inputs":[`)
	for i := 0; i < benchFiles; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"src/d%02d/f%04d.go","content":%q}`, i%50, i, benchContent(i))
	}
	b.WriteString(`],"steps":[`)
	for s := 0; s < steps; s++ {
		if s > 0 {
			b.WriteByte(',')
		}
		i := (s * 7) % benchFiles
		fmt.Fprintf(&b, `{"tool":"read_file","parameters":{"path":"src/d%02d/f%04d.go"},"output":%q}`, i%50, i, benchContent(i))
	}
	b.WriteString(`]}`)
	return b.String()
}

// BenchmarkReplayReads replays 10,000 built-in read steps over 1,000 input
// files, the NDJSON stream included; it reports steps per second and the
// time per step. BenchmarkReplayStaging is the same replay without steps:
// putting the 1,000 inputs in a fresh workspace. BenchmarkReadHashFiles is
// the reads and hashes done directly. Replay's overhead per step is
// (ReplayReads - ReplayStaging) / 10,000 - ReadHashFiles.
func BenchmarkReplayReads(b *testing.B) { benchReplay(b, benchSteps) }

func BenchmarkReplayStaging(b *testing.B) { benchReplay(b, 0) }

func benchReplay(b *testing.B, steps int) {
	st := storetest.New(b)
	m := packtest.Pack(b, st, benchLog(steps))
	b.ResetTimer()
	cpu := cpuTime()
	for n := 0; n < b.N; n++ {
		ws, err := NewTempWorkspace()
		if err != nil {
			b.Fatal(err)
		}
		enc := json.NewEncoder(io.Discard)
		enc.SetEscapeHTML(false)
		rep, err := Run(context.Background(), st, m, ws, Options{}, func(r *Step) error { return enc.Encode(r) })
		want := replaystream.Exact
		if steps == 0 {
			want = replaystream.Unverified // nothing to reproduce
		}
		if err != nil || rep.Status != want {
			b.Fatalf("replay: %v, %+v", err, rep)
		}
		ws.Close()
		ws.Remove()
	}
	cpu = cpuTime() - cpu
	if steps > 0 {
		perStep := float64(b.Elapsed().Nanoseconds()) / float64(b.N*steps)
		b.ReportMetric(perStep/1000, "µs/step")
		b.ReportMetric(1e9/perStep, "steps/s")
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*steps)/1000, "cpu-µs/step")
	} else {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
	}
}

func BenchmarkReadHashFiles(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < benchFiles; i++ {
		p := filepath.Join(dir, "src", fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%04d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(benchContent(i)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	cpu := cpuTime()
	for n := 0; n < b.N; n++ {
		for s := 0; s < benchSteps; s++ {
			i := (s * 7) % benchFiles
			data, err := os.ReadFile(filepath.Join(dir, "src", fmt.Sprintf("d%02d", i%50), fmt.Sprintf("f%04d.go", i)))
			if err != nil {
				b.Fatal(err)
			}
			sha256.Sum256(data)
		}
	}
	perStep := float64(b.Elapsed().Nanoseconds()) / float64(b.N*benchSteps)
	b.ReportMetric(perStep/1000, "µs/step")
	b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*benchSteps)/1000, "cpu-µs/step")
}
