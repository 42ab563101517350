package pack

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fuzzBuild checks the properties every log must have, valid or not: no
// panic; an error or a manifest that encodes; and the same bytes always give
// the same pack.
func fuzzBuild(t *testing.T, root string, data []byte) {
	opts := Options{Root: root, Warn: func(string) {}}
	res, err := Build(bytes.NewReader(data), HashSink{}, opts)
	if err != nil {
		if res != nil {
			t.Fatal("a result together with an error")
		}
		return
	}
	_, h1, err := Encode(res.Manifest)
	if err != nil {
		t.Fatalf("a valid log gives a manifest that does not encode: %v", err)
	}
	again, err := Build(bytes.NewReader(data), HashSink{}, opts)
	if err != nil {
		t.Fatalf("second build failed: %v", err)
	}
	if _, h2, _ := Encode(again.Manifest); h1 != h2 {
		t.Fatal("the same log gave two packs")
	}
	for _, in := range res.Manifest.Inputs {
		if CheckName(in.Name) != nil {
			t.Fatalf("unsafe input name %q got through", in.Name)
		}
	}
	for _, o := range res.Manifest.Outputs {
		if CheckName(o.Name) != nil {
			t.Fatalf("unsafe output name %q got through", o.Name)
		}
	}
}

func fuzzRoot(f *testing.F) string {
	root := f.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("a file\n"), 0o644)
	return root
}

// FuzzBuildDocument feeds Build JSON documents.
func FuzzBuildDocument(f *testing.F) {
	for _, s := range []string{
		`{"model":{"identifier":"m"},"prompts":[],"steps":[]}`,
		`{"created":"2026-02-10T12:00:00Z","model":{"identifier":"m","parameters":{"temperature":0}},"system_prompt":"s","prompts":[{"role":"user","content":"hi"}],"inputs":[{"name":"a","content_base64":"AAE="},{"path":"a.txt"}],"steps":[{"index":0,"type":"tool_call","tool":"read_file","parameters":{"path":"a.txt"},"output":"x","deterministic":true,"timestamp":"2026-02-10T12:00:01Z","metadata":{"k":1}}],"outputs":[{"name":"o","content":"y","confidence":"high","notes":"n"}],"environment":{"os":"linux","tool_versions":{"t":"1"}},"metadata":[1,2],"parent":"sha256:0000000000000000000000000000000000000000000000000000000000000000"}`,
		`{"model":{"identifier":"m"},"prompts":[{"content":"\ud83d\ude00"}],"steps":[{"tool":"t","parameters":{"n":1e308}}]}`,
		`{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t","index":1}],"inputs":[{"name":"../x","content":""}]}`,
		`{"model":{"identifier":"m"},"prompts":[],"steps":{"a":[1,{"b":2}]}}`,
		"{\n\"model\": {\"identifier\": \"m\"},\n\"prompts\": [}",
		`[]`, ``, `{"a":1} {"b":2}`,
		`{"model":{"identifier":"m"},"prompts":[],"steps":[],"task":{"id":"a","epoch":2,"name":"n"},"outcome":{"passed":true,"score":"C","value":{"x":[1]},"source":"s"},"end":{"state":"error","message":"boom"}}`,
	} {
		f.Add([]byte(s))
	}
	root := fuzzRoot(f)
	f.Fuzz(func(t *testing.T, data []byte) { fuzzBuild(t, root, data) })
}

// FuzzBuildStream feeds Build NDJSON event streams: the fuzzer's bytes
// follow a run line, so they are always read as events.
func FuzzBuildStream(f *testing.F) {
	for _, s := range []string{
		`{"event":"prompt","content":"hi"}`,
		"{\"event\":\"input\",\"path\":\"a.txt\"}\n{\"event\":\"step\",\"tool\":\"t\",\"output_path\":\"a.txt\"}",
		`{"event":"step","tool":"t","parameters":{"a":[1,2,{"b":null}]},"output_base64":"AA=="}`,
		`{"event":"output","name":"o","content":"x","confidence":"low"}`,
		`{"event":"run","model":{"identifier":"again"}}`,
		`{"event":"step"}`, `{"tool":"x"}`, `{"event":"step","tool":}`, "\n\n",
	} {
		f.Add([]byte(s))
	}
	root := fuzzRoot(f)
	run := []byte(`{"event":"run","model":{"identifier":"m"},"created":"2026-01-01T00:00:00Z"}` + "\n")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzBuild(t, root, append(append([]byte{}, run...), data...))
	})
}

// FuzzStepUsage feeds any metadata and timestamp to the one reader of a
// step's tokens, cost and time: it never fails, reads nothing from
// metadata that is not a JSON object, and its total is total_tokens or
// else input plus output.
func FuzzStepUsage(f *testing.F) {
	for _, s := range []string{
		`{"usage":{"input_tokens":10,"output_tokens":5,"cache_creation":{"x":1}}}`,
		`{"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":11,"cost_usd":0.5}}`,
		`{"attributes":{"gen_ai.usage.input_tokens":4}}`,
		`{"end_time":"2026-02-10T12:00:01.5Z","duration_ms":"x"}`,
		`{"execution_time":1e308,"latency_ms":-1}`,
		`[1]`, `null`, `{"usage":[]}`,
	} {
		f.Add(s, "2026-02-10T12:00:00Z")
	}
	f.Fuzz(func(t *testing.T, meta, stamp string) {
		s := &Step{Metadata: json.RawMessage(meta), Timestamp: &stamp}
		u := StepUsage(s)
		var obj map[string]json.RawMessage
		if json.Unmarshal([]byte(meta), &obj) != nil && (u.InputTokens != nil || u.OutputTokens != nil || u.TotalTokens != nil || u.CostUSD != nil || u.Duration != nil) {
			t.Fatalf("%q is no JSON object, yet read as %+v", meta, u)
		}
		switch n := u.Tokens(); {
		case u.TotalTokens != nil && n != u.TotalTokens:
			t.Fatalf("Tokens %v, not total_tokens %v", n, *u.TotalTokens)
		case u.TotalTokens == nil && (u.InputTokens != nil || u.OutputTokens != nil) && n == nil:
			t.Fatal("no total of input and output")
		}
		var tt Totals
		tt.Add(s)
		tt.Add(s)
		if tt.Steps != 2 {
			t.Fatal("Totals counts steps")
		}
	})
}
