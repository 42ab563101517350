package convert

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// corpusDir is the corpus of real transcripts shared with the scripts.
func corpusDir() string { return filepath.Join("..", "..", "testdata", "corpus") }

// corpusFiles lists every transcript of the corpus with the format it is
// in: every file but the ctx-format examples and the notes beside them.
func corpusFiles(t testing.TB) map[string]string {
	formats := map[string]string{
		"claude-code-jsonl": "claude-code",
		"openai-chat":       "openai",
		"swe-agent-traj":    "swe-agent",
		"openhands-events":  "openhands",
		"otel-genai":        "otel",
		"inspect-ai":        "inspect",
	}
	files := map[string]string{}
	err := filepath.WalkDir(corpusDir(), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(corpusDir(), p)
		top := strings.Split(filepath.ToSlash(rel), "/")[0]
		base := d.Name()
		if top == "contextsubstrate-examples" || base == "SOURCE.txt" || base == "README.md" {
			return nil
		}
		f, ok := formats[top]
		if !ok {
			t.Errorf("%s: no format known for corpus folder %s; add it to corpusFiles", rel, top)
			return nil
		}
		files[p] = f
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 30 {
		t.Fatalf("found only %d corpus files under %s", len(files), corpusDir())
	}
	return files
}

// convertFile converts a file with opts and returns the log and warnings.
func convertFile(t testing.TB, path string, opts Options) (string, []byte, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var warns []string
	opts.Warn = func(s string) { warns = append(warns, s) }
	var out bytes.Buffer
	format := ""
	opts.Detected = func(s string) { format = s }
	if _, err := Convert(f, f, &out, opts); err != nil {
		return format, out.Bytes(), warns, err
	}
	return format, out.Bytes(), warns, nil
}

// checkPacks builds a manifest from log as ctx pack --strict would and
// fails on any problem or warning: a converted log must pack cleanly.
func checkPacks(t testing.TB, name string, log []byte) *pack.Manifest {
	t.Helper()
	var warns []string
	// A converted log never names a file on disk, so any existing
	// directory does as the root (and fuzzing makes none per input).
	res, err := pack.Build(bytes.NewReader(log), pack.HashSink{}, pack.Options{
		Root:   os.TempDir(),
		Strict: true,
		Warn:   func(s string) { warns = append(warns, s) },
	})
	if err != nil {
		t.Fatalf("%s: the converted log does not pack: %v", name, err)
	}
	for _, w := range warns {
		if !strings.HasPrefix(w, "created:") {
			t.Errorf("%s: ctx pack warns: %s", name, w)
		}
	}
	return res.Manifest
}

func TestEveryCorpusFileConvertsAndPacks(t *testing.T) {
	for path, want := range corpusFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			got, log, _, err := convertFile(t, path, Options{Model: "test-model"})
			if err != nil {
				t.Fatalf("convert: %v", err)
			}
			if got != want {
				t.Errorf("detected %q, want %q", got, want)
			}
			m := checkPacks(t, path, log)
			if len(m.Steps) == 0 {
				t.Errorf("no steps")
			}
			for _, s := range m.Steps {
				if s.Type == "tool_call" && !s.Deterministic {
					t.Errorf("steps[%d]: a tool_call must stay deterministic", s.Index)
				}
			}
			// The same transcript gives the same log, byte for byte.
			_, again, _, err := convertFile(t, path, Options{Model: "test-model"})
			if err != nil || !bytes.Equal(log, again) {
				t.Errorf("a second conversion differs (err %v)", err)
			}
			// Told the format, the result is the same.
			_, told, _, err := convertFile(t, path, Options{Model: "test-model", From: want})
			if err != nil || !bytes.Equal(log, told) {
				t.Errorf("--from %s gives another log (err %v)", want, err)
			}
		})
	}
}

// TestNoAbsolutePathInManifests checks that no manifest made from the
// corpus names a temporary directory the runs worked in.
func TestNoAbsolutePathInManifests(t *testing.T) {
	dirs := []string{"/tmp/tmp", "/testbed", "/workspace/", "/marshmallow-code__marshmallow", "/pydicom__pydicom/"}
	for path, format := range corpusFiles(t) {
		if format == "otel" || format == "inspect" || format == "openai" {
			continue // no working directory in these
		}
		_, log, _, err := convertFile(t, path, Options{Model: "m"})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		m := checkPacks(t, path, log)
		for _, s := range m.Steps {
			for _, d := range dirs {
				if bytes.Contains(s.Parameters, []byte(d)) {
					t.Errorf("%s: steps[%d].parameters hold %s: %s", filepath.Base(path), s.Index, d, s.Parameters)
				}
			}
		}
		for _, in := range m.Inputs {
			if strings.HasPrefix(in.Name, "/") {
				t.Errorf("%s: input %s is absolute", filepath.Base(path), in.Name)
			}
		}
	}
}

func TestMalformedInputNamesWhere(t *testing.T) {
	cases := []struct {
		name, from, in, want string
	}{
		{"claude-code bad line", "", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n" + `{"type":"assistant",` + "\n", "line 2"},
		{"claude-code not an object", "claude-code", `{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}` + "\n[1]\n", "line 2: must be a JSON object"},
		{"claude-code content type", "claude-code", `{"type":"assistant","sessionId":"s","message":{"id":"m","model":"x","content":5}}` + "\n", "line 1: .message.content: must be an array"},
		{"openai truncated", "openai", `{"messages": [{"role": "user", "content": "hi"}`, "unexpected end of input"},
		{"openai bad function", "openai", `[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":5}}]}]`, "[0].tool_calls[0].function.name: must be a string"},
		{"openai no role", "openai", `[{"content":"x"}]`, "[0].role: missing"},
		{"anthropic blocks", "anthropic", `{"messages":[{"role":"user","content":[1]}]}`, ".messages[0].content[0]: must be an object"},
		{"swe-agent history", "swe-agent", `{"history":[5],"info":{}}`, ".history[0]: must be an object"},
		{"openhands events", "openhands", `{"events": 3}`, "no events"},
		{"otel spans", "otel", `{"spans":[{"name":1}]}`, ".spans[0].name: must be a string"},
		{"inspect messages", "inspect", `{"eval":{},"samples":[{"id":1,"messages":{}}]}`, ".samples[0].messages: must be an array"},
		{"syntax error position", "", "{\n  \"messages\": [\n    {\"role\": \"user\" \"content\": 1}\n  ]\n}", "line 3, column"},
		{"two documents", "openai", "[]\n[]\n", "line 2: more than one JSON value"},
		{"empty", "", "", "empty input"},
		{"zip as openai", "openai", "PK\x03\x04rest", "zip archive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			_, err := Convert(strings.NewReader(c.in), nil, &out, Options{From: c.from})
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T), want an *InputError", err, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
			// Whatever was written ends with the error event, which ctx
			// pack refuses.
			lines := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
			if last := lines[len(lines)-1]; !bytes.HasPrefix(last, []byte(`{"event":"error"`)) {
				t.Errorf("output does not end with an error event: %s", last)
			}
			if _, err := pack.Build(bytes.NewReader(out.Bytes()), pack.HashSink{}, pack.Options{Root: t.TempDir()}); err == nil {
				t.Errorf("ctx pack accepts the output of a failed conversion")
			}
		})
	}
}

func TestUndetectedAndUnknownFormat(t *testing.T) {
	var out bytes.Buffer
	_, err := Convert(strings.NewReader(`{"hello": "world"}`), nil, &out, Options{})
	var ue *UndetectedError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "keys hello") {
		t.Errorf("got %v, want an UndetectedError naming the keys", err)
	}
	ex, err := os.ReadFile(filepath.Join(corpusDir(), "contextsubstrate-examples", "crewai.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{string(ex), `{"event":"run","model":{"identifier":"m"}}` + "\n"} {
		_, err = Convert(strings.NewReader(in), nil, &out, Options{})
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), "an execution log already") {
			t.Errorf("got %v, want an UndetectedError saying it is a log already", err)
		}
	}
	_, err = Convert(strings.NewReader(`[]`), nil, &out, Options{From: "xml"})
	var uf *UnknownFormatError
	if !errors.As(err, &uf) {
		t.Errorf("got %v, want an UnknownFormatError", err)
	}
}
