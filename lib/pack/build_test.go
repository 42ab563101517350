package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/store"
)

func build(t *testing.T, log string, opts Options) (*Result, []string, error) {
	t.Helper()
	var warnings []string
	opts.Warn = func(s string) { warnings = append(warnings, s) }
	if opts.Root == "" {
		opts.Root = t.TempDir()
	}
	res, err := Build(strings.NewReader(log), HashSink{}, opts)
	return res, warnings, err
}

func hashOf(t *testing.T, m *Manifest) string {
	t.Helper()
	_, h, err := Encode(m)
	if err != nil {
		t.Fatal(err)
	}
	return h.Hex()
}

func TestValidation(t *testing.T) {
	cases := []struct {
		name, log string
		problems  []string // each must appear, in order, as a problem line
	}{
		{"not an object", `[]`, nil},
		{"missing required", `{}`, []string{"model: missing", "prompts: missing", "steps: missing"}},
		{"model not object", `{"model":"m","prompts":[],"steps":[]}`, []string{"model: must be an object, not a string"}},
		{"empty identifier", `{"model":{"identifier":""},"prompts":[],"steps":[]}`, []string{"model.identifier: empty"}},
		{"steps not array", `{"model":{"identifier":"m"},"prompts":[],"steps":{"a":1}}`, []string{"steps: must be an array"}},
		{"step not object", `{"model":{"identifier":"m"},"prompts":[],"steps":[3]}`, []string{"steps[0]: must be an object, not a number"}},
		{"tool missing", `{"model":{"identifier":"m"},"prompts":[],"steps":[{}]}`, []string{"steps[0].tool: missing"}},
		{"index mismatch", `{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t","index":1}]}`, []string{"steps[0].index: is 1 but the step is at position 0"}},
		{"index not integer", `{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t","index":0.5}]}`, []string{"steps[0].index: must be an integer"}},
		{"parameters array", `{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"t","parameters":[1]}]}`, []string{"steps[0].parameters: must be an object, not an array"}},
		{"two content forms", `{"model":{"identifier":"m"},"prompts":[{"content":"a","content_base64":"YQ=="}],"steps":[]}`, []string{"prompts[0]: content and content_base64 are mutually exclusive"}},
		{"no content", `{"model":{"identifier":"m"},"prompts":[{"role":"user"}],"steps":[]}`, []string{"prompts[0]: no content"}},
		{"content_ref without store", `{"model":{"identifier":"m"},"prompts":[{"content_ref":"sha256:` + strings.Repeat("0", 64) + `"}],"steps":[]}`, []string{"prompts[0].content_ref: sha256:0000"}},
		{"bad ref", `{"model":{"identifier":"m"},"prompts":[{"content_ref":"md5:x"}],"steps":[]}`, []string{`prompts[0].content_ref: "md5:x" is not a sha256:<hex> reference`}},
		{"input without name", `{"model":{"identifier":"m"},"prompts":[],"steps":[],"inputs":[{"content":"x"}]}`, []string{"inputs[0].name: missing"}},
		{"duplicate input", `{"model":{"identifier":"m"},"prompts":[],"steps":[],"inputs":[{"name":"a","content":"x"},{"name":"a","content":"y"}]}`, []string{`inputs[1].name: "a" is also the name of inputs[0]`}},
		{"bad confidence", `{"model":{"identifier":"m"},"prompts":[],"steps":[],"outputs":[{"name":"a","content":"x","confidence":"sure"}]}`, []string{`outputs[0].confidence: must be high, medium or low, not "sure"`}},
		{"bad created", `{"created":"today","model":{"identifier":"m"},"prompts":[],"steps":[]}`, []string{`created: "today" is not an RFC 3339 time`}},
		{"bad parent", `{"parent":"abc","model":{"identifier":"m"},"prompts":[],"steps":[]}`, []string{`parent: "abc" is not a sha256:<hex> reference`}},
		{"duplicate key", `{"model":{"identifier":"m"},"prompts":[],"steps":[{"tool":"a","tool":"b"}]}`, []string{"steps[0]"}},
		{"big integer", `{"model":{"identifier":"m","parameters":{"seed":123456789012345678901}},"prompts":[],"steps":[]}`, []string{"model.parameters.seed:"}},
		{"given twice", `{"model":{"identifier":"m"},"prompts":[],"steps":[],"steps":[]}`, []string{"steps: given twice"}},
		{"environment types", `{"model":{"identifier":"m"},"prompts":[],"steps":[],"environment":{"os":1,"tool_versions":{"a":2}}}`, []string{"environment.os: must be a string", "environment.tool_versions: must be an object of strings"}},
		{"where the run happened", `{"model":{"identifier":"m"},"prompts":[],"steps":[],"environment":{"working_dir":["/w"],"git":{"commit":7,"branch":"main"}}}`, []string{"environment.working_dir: must be a string", "environment.git.commit: must be a string"}},
		{"git not an object", `{"model":{"identifier":"m"},"prompts":[],"steps":[],"environment":{"git":"abc"}}`, []string{"environment.git: must be an object"}},
		{"lone surrogate", `{"model":{"identifier":"m"},"prompts":[{"content":"\ud800"}],"steps":[]}`, []string{"prompts[0].content:"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := build(t, c.log, Options{})
			if err == nil {
				t.Fatal("no error")
			}
			if c.problems == nil {
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error is %T: %v", err, err)
			}
			msg := err.Error()
			for _, p := range c.problems {
				if !strings.Contains(msg, p) {
					t.Errorf("problems\n%s\ndo not include %q", msg, p)
				}
			}
		})
	}
}

func TestDefaultsAndCreated(t *testing.T) {
	res, warnings, err := build(t, `{"model":{"identifier":"m"},"prompts":[{"content":"p"}],
		"steps":[{"tool":"a","timestamp":"2026-03-01T10:00:00Z"},{"tool":"b","type":"model_call","timestamp":"2026-02-01T10:00:00+01:00"}]}`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Manifest
	if m.CreatedText() != "2026-02-01T10:00:00+01:00" {
		t.Errorf("created = %q, want the earliest step timestamp", m.CreatedText())
	}
	if !m.Steps[0].Deterministic || m.Steps[1].Deterministic {
		t.Errorf("deterministic defaults: %v %v", m.Steps[0].Deterministic, m.Steps[1].Deterministic)
	}
	if m.Prompts[0].Role != "user" || string(m.Steps[0].Parameters) != "{}" || string(m.Environment) != "{}" || string(m.Model.Parameters) != "{}" {
		t.Errorf("defaults: %+v", m)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}

	// No time at all: none is invented (not the epoch, not
	// SOURCE_DATE_EPOCH), and nothing needs saying about it.
	t.Setenv("SOURCE_DATE_EPOCH", "1700000000")
	res, warnings, err = build(t, `{"model":{"identifier":"m"},"prompts":[],"steps":[]}`, Options{})
	if err != nil || res.Manifest.Created != nil || len(warnings) != 0 {
		t.Errorf("no time at all: %v %v %v", res, warnings, err)
	}
	canon, _, err := Encode(res.Manifest)
	if err != nil || !strings.HasPrefix(string(canon), `{"created":null,`) {
		t.Errorf("a pack without a time encodes as %.40s, %v; want created null", canon, err)
	}
}

func TestFormsGiveTheSameManifest(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "big.bin"), []byte{0, 1, 2, 255}, 0o644)
	doc := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m","parameters":{"t":0.5}},
		"system_prompt":"sys","prompts":[{"role":"user","content":"hi"}],
		"inputs":[{"path":"big.bin"},{"name":"b64","content_base64":"AAEC/w=="}],
		"steps":[{"tool":"read","parameters":{"path":"big.bin"},"output_base64":"AAEC/w==","metadata":{"k":[1,2]}}],
		"outputs":[{"name":"o","content":"out","notes":"n"}],"environment":{"os":"linux"},"metadata":{"m":true}}`
	stream := `{"event":"run","created":"2026-01-01T00:00:00Z","model":{"identifier":"m","parameters":{"t":0.5}},"system_prompt":{"content":"sys"},"environment":{"os":"linux"},"metadata":{"m":true}}
{"event":"prompt","role":"user","content":"hi"}

{"event":"input","path":"big.bin"}
{"event":"input","name":"b64","content_base64":"AAEC/w=="}
{"event":"step","tool":"read","parameters":{"path":"big.bin"},"output_base64":"AAEC/w==","metadata":{"k":[1,2]}}
{"event":"output","name":"o","content":"out","notes":"n"}`
	a, _, err := build(t, doc, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := build(t, stream, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if hashOf(t, a.Manifest) != hashOf(t, b.Manifest) {
		t.Fatal("the document and its NDJSON form give different packs")
	}
	m := a.Manifest
	if m.Inputs[0].Name != "big.bin" || m.Inputs[0].Size != 4 || m.Inputs[0].ContentRef != m.Inputs[1].ContentRef {
		t.Errorf("inputs: %+v", m.Inputs)
	}
	if *m.Steps[0].OutputRef != store.Sum([]byte{0, 1, 2, 255}) || *m.Steps[0].OutputSize != 4 {
		t.Errorf("step output: %+v", m.Steps[0])
	}
	if len(a.Artifacts) != 0 {
		t.Errorf("artifacts: %v", a.Artifacts)
	}
}

func TestArtifactsOnDisk(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "out"), 0o755)
	os.WriteFile(filepath.Join(root, "out", "a.txt"), []byte("A"), 0o644)
	os.WriteFile(filepath.Join(root, "b.txt"), []byte("B"), 0o644)
	res, _, err := build(t, `{"model":{"identifier":"m"},"prompts":[],"steps":[],
		"outputs":[{"path":"out/a.txt"},{"name":"b.txt","content":"B"},{"name":"c.txt","content":"C"}]}`, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Artifacts) != 2 || res.Artifacts[0].Output != 0 || res.Artifacts[1].Output != 1 {
		t.Fatalf("artifacts = %+v", res.Artifacts)
	}
	if res.Manifest.Outputs[0].Name != "out/a.txt" {
		t.Errorf("name from path = %q", res.Manifest.Outputs[0].Name)
	}
}

func TestStreamProblemsNameLines(t *testing.T) {
	_, _, err := build(t, "{\"event\":\"run\",\"model\":{\"identifier\":\"m\"}}\n{\"event\":\"step\"}\n{\"event\":\"nope\"}\n{\"tool\":\"x\"}\n", Options{})
	msg := err.Error()
	for _, want := range []string{"steps[0].tool: missing (line 2)", `event: unknown event "nope" (run, prompt, input, step or output) (line 3)`, `no "event" key; every line of an NDJSON log is an event (run, prompt, input, step, output) (line 4)`} {
		if !strings.Contains(msg, want) {
			t.Errorf("problems\n%s\ndo not include %q", msg, want)
		}
	}
	_, _, err = build(t, `{"event":"prompt","content":"x"}`, Options{})
	if err == nil || !strings.Contains(err.Error(), "no run event") {
		t.Errorf("stream without run: %v", err)
	}
}

func TestSyntaxErrorPositions(t *testing.T) {
	cases := []struct{ log, want string }{
		{"hello", "line 1, column 1"},
		{"{\n  \"model\": {\"identifier\": \"m\"},\n  \"prompts\": [}", "line 3, column 15"},
		{"{\"a\": 1", "unexpected end of input"},
		{"", "empty input"},
		{"{\"model\":{\"identifier\":\"m\"},\"prompts\":[],\"steps\":[]} x", "unexpected data after the end of the log"},
	}
	for _, c := range cases {
		_, _, err := build(t, c.log, Options{})
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Build(%q) = %v, want a syntax error with %q", c.log, err, c.want)
		}
	}
}

func TestSniff(t *testing.T) {
	cases := []struct {
		in             string
		event, decided bool
	}{
		{`{"event":"run"}`, true, true},
		{`{"model":{"event":1},"event":"run"}`, true, true},
		{`{"model":{"event":1}}`, false, true},
		{`  {"a":"x\"event\":"`, false, false},
		{`{"a":1,`, false, false},
		{`[`, false, true},
		{``, false, false},
	}
	for _, c := range cases {
		e, d := sniffEvent([]byte(c.in))
		if e != c.event || d != c.decided {
			t.Errorf("sniffEvent(%q) = %v,%v want %v,%v", c.in, e, d, c.event, c.decided)
		}
	}
}

func TestCheckName(t *testing.T) {
	good := []string{"a", "a/b.txt", "dir/sub/file", "ünïcode/名前", ".hidden", "a..b"}
	bad := []string{"", "/abs", "../x", "a/../b", "a/./b", "a//b", "a/", `a\b`, "C:/x", "a\x00b", "a\nb", ".ctx/x", "x/.CTX/y", strings.Repeat("a", 256), "\xff"}
	for _, n := range good {
		if err := CheckName(n); err != nil {
			t.Errorf("CheckName(%q) = %v", n, err)
		}
	}
	for _, n := range bad {
		if err := CheckName(n); err == nil {
			t.Errorf("CheckName(%q) accepted", n)
		}
	}
}

func TestPathsStayUnderRoot(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link"))
	for _, p := range []string{"../secret", filepath.Join(outside, "secret"), "link"} {
		_, _, err := build(t, `{"model":{"identifier":"m"},"prompts":[],"steps":[],"inputs":[{"name":"x","path":`+quote(p)+`}]}`, Options{Root: root})
		if err == nil || !strings.Contains(err.Error(), "outside the root") {
			t.Errorf("path %q: %v", p, err)
		}
	}
}

func quote(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}
