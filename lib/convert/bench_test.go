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
		fmt.Fprintf(&b, `{"type":"assistant",%s,"uuid":"b%d","timestamp":"2026-01-01T00:00:01Z","message":{"id":"msg_%d","model":"claude-opus-4-5-20251101","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Edit","input":{"file_path":"%s","old_string":"limit=1024","new_string":"limit=LIMIT","replace_all":true}}]}}`+"\n", env, i, i, i, f)
		fmt.Fprintf(&b, `{"type":"user",%s,"uuid":"c%d","timestamp":"2026-01-01T00:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"updated %s"}]},"toolUseResult":{"filePath":"%s","oldString":"limit=1024","newString":"limit=LIMIT","originalFile":"def compute():\n%s","replaceAll":true}}`+"\n", env, i, i, f, f, body)
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

// rollout generates a Codex rollout of n model requests (reasoning, an
// exec_command call, its token count and its output): the shape the
// codex rows of make bench time (writeRollout in bench/gen.go).
func rollout(n int) []byte {
	var b bytes.Buffer
	out := strings.Repeat(`src/module_7.go:12: value := compute(limit)\n`, 24)
	b.WriteString(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"session_meta","payload":{"id":"bench","cwd":"/tmp/bench","cli_version":"0.125.0","base_instructions":{"text":"You are Codex."}}}` + "\n")
	b.WriteString(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"turn_context","payload":{"cwd":"/tmp/bench","model":"gpt-5.5","effort":"medium"}}` + "\n")
	b.WriteString(`{"timestamp":"2026-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"Find every call of compute."}}` + "\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"Looking at module %d next."}],"encrypted_content":"gAAAAABq%d"}}`+"\n", i%40, i)
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rg -n compute /tmp/bench/src/module_%d.go\",\"workdir\":\"/tmp/bench\"}","call_id":"call_%d"}}`+"\n", i%40, i)
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:01.000Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":%d},"last_token_usage":{"input_tokens":1000,"cached_input_tokens":512,"output_tokens":40}}}}`+"\n", 1000*i)
		fmt.Fprintf(&b, `{"timestamp":"2026-01-01T00:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"call_%d","output":"Chunk ID: a1\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 300\nOutput:\n%s"}}`+"\n", i, out)
	}
	return b.Bytes()
}

// geminiSession generates a Gemini CLI session-*.jsonl of n messages with
// a tool call each, appended twice (executing, then done).
func geminiSession(n int) []byte {
	var b bytes.Buffer
	out := strings.Repeat(`line of the file that was read\n`, 30)
	b.WriteString(`{"sessionId":"bench","projectHash":"h","startTime":"2026-01-01T00:00:00Z","directories":["/tmp/bench"]}` + "\n")
	b.WriteString(`{"id":"u","timestamp":"2026-01-01T00:00:00Z","type":"user","content":"read them all"}` + "\n")
	for i := 1; i <= n; i++ {
		call := fmt.Sprintf(`{"id":"t%d","name":"read_file","args":{"file_path":"/tmp/bench/f%d.txt"},"timestamp":"2026-01-01T00:00:01Z"`, i, i%40)
		fmt.Fprintf(&b, `{"id":"g%d","timestamp":"2026-01-01T00:00:01Z","type":"gemini","content":"","model":"gemini-2.5-pro","toolCalls":[%s,"status":"executing"}]}`+"\n", i, call)
		fmt.Fprintf(&b, `{"id":"g%d","timestamp":"2026-01-01T00:00:01Z","type":"gemini","content":"","model":"gemini-2.5-pro","tokens":{"input":1000,"output":20,"cached":0,"thoughts":5,"tool":0,"total":1025},"toolCalls":[%s,"status":"success","result":[{"functionResponse":{"id":"t%d","name":"read_file","response":{"output":"%s"}}}]}]}`+"\n", i, call, i, out)
	}
	return b.Bytes()
}

func BenchmarkConvertCodex(b *testing.B) {
	data := rollout(4000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Convert(bytes.NewReader(data), nil, io.Discard, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkConvertGeminiJSONL(b *testing.B) {
	data := geminiSession(4000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Convert(bytes.NewReader(data), nil, io.Discard, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestGeneratedRolloutsConvert keeps the benchmarks' inputs honest: they
// are transcripts the readers take, with the steps they should give.
func TestGeneratedRolloutsConvert(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want int
	}{{"codex", rollout(50), 50}, {"gemini-cli", geminiSession(50), 50}} {
		var out bytes.Buffer
		format := ""
		if _, err := Convert(bytes.NewReader(c.data), nil, &out, Options{Detected: func(f string) { format = f }}); err != nil {
			t.Fatal(err)
		}
		m := checkPacks(t, c.name, out.Bytes())
		calls := 0
		for _, s := range m.Steps {
			if s.Type == "tool_call" && s.OutputRef != nil {
				calls++
			}
		}
		if format != c.name || calls != c.want {
			t.Errorf("%s: read as %s, %d calls with results, want %d", c.name, format, calls, c.want)
		}
	}
}
