package pack

import (
	"fmt"
	"strings"
	"testing"
)

// benchManifest returns the canonical bytes of a pack of steps steps, built
// from a log in the shape of the diff and show rows of make bench: each
// step a tool call with three parameters, a recorded output and a
// timestamp.
func benchManifest(b *testing.B, steps int) []byte {
	b.Helper()
	var log strings.Builder
	log.WriteString(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m","parameters":{"temperature":0}},` +
		`"system_prompt":"You are a careful coding agent.","prompts":[{"role":"user","content":"Fix every failing test"}],"steps":[`)
	tools := []string{"read_file", "edit_file", "bash", "grep"}
	for i := 0; i < steps; i++ {
		if i > 0 {
			log.WriteByte(',')
		}
		fmt.Fprintf(&log, `{"tool":"%s","parameters":{"path":"src/p%d/f%d.go","line":%d,"context":3},"output":"step %d: package p%d","timestamp":"2026-01-01T00:00:00Z"}`,
			tools[i%4], i/100, i, i%500, i, i/100)
	}
	log.WriteString(`],"outputs":[{"name":"report.md","content":"done"}],"environment":{"os":"linux","tool_versions":{"bash":"5.2"}}}`)
	res, err := Build(strings.NewReader(log.String()), HashSink{}, Options{Root: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	canon, _, err := Encode(res.Manifest)
	if err != nil {
		b.Fatal(err)
	}
	return canon
}

// BenchmarkParse decodes a stored 10,000-step manifest: the first thing
// show, diff, replay, verify and fork do with a pack.
func BenchmarkParse(b *testing.B) {
	canon := benchManifest(b, 10000)
	b.SetBytes(int64(len(canon)))
	b.ReportMetric(float64(len(canon))/(1<<20), "MiB/manifest")
	b.ReportAllocs()
	for b.Loop() {
		m, err := Parse(canon)
		if err != nil {
			b.Fatal(err)
		}
		if len(m.Steps) != 10000 {
			b.Fatalf("%d steps", len(m.Steps))
		}
	}
}

// BenchmarkEncode writes a 10,000-step manifest in canonical form and
// hashes it: the pack's name, computed by pack, fork, replay --save and by
// diff for a manifest file.
func BenchmarkEncode(b *testing.B) {
	m, err := Parse(benchManifest(b, 10000))
	if err != nil {
		b.Fatal(err)
	}
	canon, _, err := Encode(m)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(canon)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := Encode(m); err != nil {
			b.Fatal(err)
		}
	}
}
