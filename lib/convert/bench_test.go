package convert

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// session generates a Claude Code transcript of n turns (each an assistant
// line, a tool_use line and its tool_result with a toolUseResult), over 40
// files of a temporary working directory: the shape the convert row of
// make bench times at 50 MB (writeSession in bench/gen.go).
func session(n int) []byte {
	var b bytes.Buffer
	body := strings.Repeat(`    value = compute(limit=1024)\n`, 40)
	env := `"sessionId":"bench","version":"2.1.14","cwd":"/tmp/tmpbench01","isSidechain":false`
	fmt.Fprintf(&b, `{"type":"user",%s,"uuid":"u0","timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"Refactor compute"}}`+"\n", env)
	for i := 1; i <= n; i++ {
		f := fmt.Sprintf("/tmp/tmpbench01/src/module_%d.py", i%40)
		fmt.Fprintf(&b, `{"type":"assistant",%s,"uuid":"a%d","timestamp":"2026-01-01T00:00:01Z","message":{"id":"msg_%d","model":"claude-opus-4-5-20251101","role":"assistant","content":[{"type":"text","text":"Step %d: look at %s"}],"usage":{"input_tokens":%d}}}`+"\n", env, i, i, i, f, i)
		fmt.Fprintf(&b, `{"type":"assistant",%s,"uuid":"b%d","timestamp":"2026-01-01T00:00:01Z","message":{"id":"msg_%d","model":"claude-opus-4-5-20251101","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Edit","input":{"file_path":"%s","old_string":"limit=1024","new_string":"limit=LIMIT"}}]}}`+"\n", env, i, i, i, f)
		fmt.Fprintf(&b, `{"type":"user",%s,"uuid":"c%d","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"updated %s"}]},"toolUseResult":{"filePath":"%s","oldString":"limit=1024","newString":"limit=LIMIT","originalFile":"def compute():\n%s","replaceAll":false}}`+"\n", env, i, i, f, f, body)
	}
	return b.Bytes()
}

func BenchmarkConvertClaudeCode(b *testing.B) {
	data := session(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Convert(bytes.NewReader(data), nil, io.Discard, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkConvertCorpusLargest converts the largest transcript of the
// corpus (the Inspect browser log, 400 KB once decompressed).
func BenchmarkConvertCorpusLargest(b *testing.B) {
	raw, err := os.ReadFile(filepath.Join(corpusDir(), "inspect-ai", "2025-05-12T20-27-36-04-00_browser.json.gz"))
	if err != nil {
		b.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Convert(bytes.NewReader(data), nil, io.Discard, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSessionConvertsAndPacks keeps the benchmark's input honest: it is a
// transcript the converter reads, with the outputs an Edit run shows.
func TestSessionConvertsAndPacks(t *testing.T) {
	var out bytes.Buffer
	if _, err := Convert(bytes.NewReader(session(50)), nil, &out, Options{}); err != nil {
		t.Fatal(err)
	}
	m := checkPacks(t, "session", out.Bytes())
	if len(m.Steps) != 100 || len(m.Outputs) != 40 || len(m.Inputs) != 40 {
		t.Errorf("steps %d outputs %d inputs %d, want 100 40 40", len(m.Steps), len(m.Outputs), len(m.Inputs))
	}
}
