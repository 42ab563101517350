package pack

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// slowDecode is what Parse did before the fast path, and still does
// whenever decodeFast declines.
func slowDecode(b []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	err := dec.Decode(&m)
	return m, err
}

// canonicalOf builds log with a HashSink and returns the stored form of its
// manifest.
func canonicalOf(t testing.TB, log string) []byte {
	t.Helper()
	res, err := Build(strings.NewReader(log), HashSink{}, Options{Root: t.TempDir(), Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	canon, _, err := Encode(res.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	return canon
}

// fullLog uses every field of a manifest, metadata and a parent included.
const fullLog = `{"created":"2026-02-10T12:00:00Z","model":{"identifier":"claude-opus-4-6","parameters":{"temperature":0,"top_p":0.95,"stop":["\n\n"]}},` +
	`"system_prompt":"You are a careful agent.","prompts":[{"role":"user","content":"Fix the test","metadata":{"uuid":"u1"}}],` +
	`"inputs":[{"name":"src/main.go","content":"package main\n","metadata":{"mode":"0644"}},{"name":"logo.png","content_base64":"iVBORw0="}],` +
	`"steps":[{"type":"tool_call","tool":"read_file","parameters":{"path":"src/main.go","range":[1,20],"opts":{"follow":true,"enc":null}},"output":"package main\n","timestamp":"2026-02-10T12:00:01Z","metadata":{"id":"t1","usage":{"in":12,"out":3.5e2}}},` +
	`{"type":"model_call","tool":"claude-opus-4-6","output":"I will edit \"main.go\" — ok ✓","deterministic":false},` +
	`{"tool":"bash","parameters":{"command":"go test ./... 2>&1 | tail -1"},"output":""}],` +
	`"outputs":[{"name":"result.md","content":"done\n","confidence":"high","notes":"from a template <b>&</b>","metadata":[1,2]}],` +
	`"environment":{"os":"linux","arch":"amd64","tool_versions":{"bash":"5.2"}},"metadata":{"run":{"id":7,"tags":["a","b"]}},` +
	`"parent":"sha256:00000000000000000000000000000000000000000000000000000000000000ff"}`

// TestParseTakesTheFastPath checks that what ctx itself writes, the stored
// manifest and the ctx show --json form, is read by the fast path, with
// the result encoding/json gives.
func TestParseTakesTheFastPath(t *testing.T) {
	canon := canonicalOf(t, fullLog)
	_, h, err := Encode(mustSlow(t, canon))
	if err != nil {
		t.Fatal(err)
	}
	shown := append([]byte(`{"hash":"`+h.String()+`",`), canon[1:]...)
	indented := &bytes.Buffer{}
	if err := json.Indent(indented, canon, "", "  "); err != nil {
		t.Fatal(err)
	}
	for name, doc := range map[string][]byte{
		"stored":             canon,
		"show --json":        shown,
		"indented":           indented.Bytes(),
		"with a newline":     append(append([]byte(nil), canon...), '\n'),
		"escapes in strings": []byte(`{"version":"0.1","created":"\u0032026","model":{"identifier":"m\tx","parameters":{}},"system_prompt":null,"prompts":[],"inputs":[],"steps":[{"index":0,"type":"tool_call","tool":"a\"b\\c\u00e9","parameters":{"k":"\ud83d\ude00"},"output_ref":null,"deterministic":true,"timestamp":null}],"outputs":[],"environment":{}}`),
		"invalid UTF-8":      []byte("{\"version\":\"0.1\",\"model\":{\"identifier\":\"m\xff\xfe\"},\"prompts\":[],\"steps\":[]}"),
		"upper-case hex":     []byte(`{"version":"0.1","model":{"identifier":"m"},"prompts":[{"role":"user","content_ref":"sha256:ABCDEF0000000000000000000000000000000000000000000000000000000000"}],"steps":[]}`),
		"null raw values":    []byte(`{"version":"0.1","model":{"identifier":"m","parameters":null},"prompts":[],"steps":[],"environment":null,"metadata":null}`),
	} {
		t.Run(name, func(t *testing.T) {
			var fast Manifest
			if !decodeFast(doc, &fast) {
				t.Fatalf("the fast path declined:\n%s", doc)
			}
			slow := mustSlow(t, doc)
			if !reflect.DeepEqual(fast, *slow) {
				t.Fatalf("fast and encoding/json differ:\nfast %+v\nslow %+v", fast, *slow)
			}
		})
	}
}

func mustSlow(t *testing.T, doc []byte) *Manifest {
	t.Helper()
	m, err := slowDecode(doc)
	if err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	return &m
}

// TestParseFallsBack checks documents whose meaning for encoding/json is
// not plain: the fast path declines them and Parse still gives
// encoding/json's result or error.
func TestParseFallsBack(t *testing.T) {
	h := `"sha256:` + strings.Repeat("0", 64) + `"`
	for _, tc := range []struct {
		name, doc string
		err       string // "" when Parse succeeds
	}{
		{"key in another case", `{"Version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[]}`, ""},
		{"key given twice", `{"version":"0.1","version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[]}`, ""},
		{"unknown key", `{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[],"extra":1}`, ""},
		{"escaped key", `{"versio\u006e":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[]}`, ""},
		{"trailing data", `{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[]} trailing`, ""},
		{"null version", `{"version":null,"model":{"identifier":"m"},"prompts":[],"steps":[]}`, "not a pack"},
		{"null prompts", `{"version":"0.1","model":{"identifier":"m"},"prompts":null,"steps":[]}`, "not a pack"},
		{"fractional index", `{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[{"index":1.0,"tool":"t"}]}`, "not a pack"},
		{"exponent size", `{"version":"0.1","model":{"identifier":"m"},"prompts":[],"inputs":[{"name":"a","content_ref":` + h + `,"size":1e3}],"steps":[]}`, "not a pack"},
		{"short hash", `{"version":"0.1","model":{"identifier":"m"},"prompts":[{"role":"user","content_ref":"sha256:00"}],"steps":[]}`, "not a pack"},
		{"hash of another kind", `{"version":"0.1","model":{"identifier":"m"},"prompts":[{"role":"user","content_ref":"md5:00"}],"steps":[]}`, "not a pack"},
		{"string for a bool", `{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t","deterministic":"yes"}]}`, "not a pack"},
		{"bad JSON in raw value", `{"version":"0.1","model":{"identifier":"m","parameters":{"a":01}},"prompts":[],"steps":[]}`, "not a pack"},
		{"truncated", `{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[`, "not a pack"},
		{"not an object", `[]`, "not a pack"},
		{"empty", ``, "not a pack"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fast Manifest
			if decodeFast([]byte(tc.doc), &fast) {
				t.Fatalf("the fast path took %s", tc.doc)
			}
			m, err := Parse([]byte(tc.doc))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("Parse: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("Parse = %v, %v; want an error containing %q", m, err, tc.err)
			}
		})
	}
}

// FuzzParse checks that the fast path agrees with encoding/json wherever it
// answers: the same manifest, and never a document encoding/json refuses.
func FuzzParse(f *testing.F) {
	for _, log := range []string{
		fullLog,
		`{"model":{"identifier":"m"},"prompts":[],"steps":[]}`,
		`{"model":{"identifier":"m"},"prompts":[{"content":"\ud83d\ude00"}],"steps":[{"tool":"t","parameters":{"n":1e308,"s":"\u0000"}}]}`,
	} {
		f.Add(canonicalOf(f, log))
	}
	for _, doc := range []string{
		`{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[{"index":-0,"output_size":9223372036854775807,"timestamp":"t"}]}`,
		`{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[{"index":9223372036854775808}]}`,
		`{"version":"0.1","model":{"identifier":"m","parameters":[[[[{"a":[true,false,null,-1.5e-3]}]]]]},"prompts":[],"steps":[]}`,
		`{"version":"0.1","Model":{"identifier":"m"},"prompts":[],"steps":[]}`,
		`{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[]} {}`,
		"{\"version\":\"0.1\",\"model\":{\"identifier\":\"\xed\xa0\x80\"},\"prompts\":[],\"steps\":[]}",
		`{"version":"0.1","model":{"identifier":"m"},"prompts":[],"steps":[],"parent":"sha256:` + strings.Repeat("A", 64) + `"}`,
	} {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var fast Manifest
		ok := decodeFast(data, &fast)
		slow, err := slowDecode(data)
		if ok {
			if err != nil {
				t.Fatalf("the fast path took a document encoding/json refuses (%v)", err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("fast and encoding/json differ:\nfast %#v\nslow %#v", fast, slow)
			}
		}
		if _, err := Parse(data); err == nil && !ok && slowErr(data) != nil {
			t.Fatal("Parse accepted what neither path decodes")
		}
	})
}

func slowErr(b []byte) error {
	_, err := slowDecode(b)
	return err
}
