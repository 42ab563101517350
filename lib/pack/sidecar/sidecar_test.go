package sidecar

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/lib/store"
)

const (
	hexA = "61b1d6eed80e0a2938e312475319744639bc1bedcb43d77ec516c3b44d9c089f"
	hexB = "302b9634df0c3d8c8b174f579a42eaa8797250687cc0a696da7914a1a8deb21a"
)

func TestParseSidecar(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want Sidecar // compared when err is ""
		err  string  // substring of the error
	}{
		{"full", `{"context_pack":"sha256:` + hexB + `","output":"a.md","content_ref":"sha256:` + hexA + `","inputs":["sha256:` + hexA + `"],"tools":["read_file"],"confidence":"high","notes":"n"}`,
			Sidecar{ContextPack: "sha256:" + hexB, Output: "a.md", ContentRef: "sha256:" + hexA, Inputs: []string{"sha256:" + hexA}, Tools: []string{"read_file"}, Confidence: "high", Notes: "n"}, ""},
		{"seed shape without output and content_ref", `{"context_pack":"sha256:` + hexB + `","inputs":[],"tools":[]}`,
			Sidecar{ContextPack: "sha256:" + hexB, Inputs: []string{}, Tools: []string{}}, ""},
		{"ctx uri and upper-case hex are normalised", `{"context_pack":"ctx://` + strings.ToUpper(hexB) + `","content_ref":"sha256:` + strings.ToUpper(hexA) + `"}`,
			Sidecar{ContextPack: "sha256:" + hexB, ContentRef: "sha256:" + hexA}, ""},
		{"unknown fields are ignored", `{"context_pack":"sha256:` + hexB + `","later":{"x":1}}`,
			Sidecar{ContextPack: "sha256:" + hexB}, ""},
		{"nulls are absent values", `{"context_pack":"sha256:` + hexB + `","output":null,"inputs":null,"confidence":null}`,
			Sidecar{ContextPack: "sha256:" + hexB}, ""},
		{"no context_pack", `{"output":"a.md"}`, Sidecar{}, "no context_pack string"},
		{"context_pack not a string", `{"context_pack":1}`, Sidecar{}, "no context_pack string"},
		{"context_pack a prefix", `{"context_pack":"sha256:302b"}`, Sidecar{}, "context_pack: "},
		{"context_pack a ref name", `{"context_pack":"latest"}`, Sidecar{}, "context_pack: "},
		{"bare hex is not a reference", `{"context_pack":"` + hexB + `"}`, Sidecar{}, "context_pack: "},
		{"bad content_ref", `{"context_pack":"sha256:` + hexB + `","content_ref":"md5:00"}`, Sidecar{}, "content_ref: "},
		{"output not a string", `{"context_pack":"sha256:` + hexB + `","output":["a"]}`, Sidecar{}, "output must be a string"},
		{"inputs not strings", `{"context_pack":"sha256:` + hexB + `","inputs":[1]}`, Sidecar{}, "inputs must be an array of strings"},
		{"tools not an array", `{"context_pack":"sha256:` + hexB + `","tools":"bash"}`, Sidecar{}, "tools must be an array of strings"},
		{"notes not a string", `{"context_pack":"sha256:` + hexB + `","notes":{}}`, Sidecar{}, "notes must be a string"},
		{"an array", `[]`, Sidecar{}, "not a JSON object"},
		{"null", `null`, Sidecar{}, "not a JSON object"},
		{"empty", ``, Sidecar{}, "not a JSON object"},
		{"truncated", `{"context_pack":"sha256:` + hexB, Sidecar{}, "not a JSON object"},
		{"two documents", `{"context_pack":"sha256:` + hexB + `"} {}`, Sidecar{}, "unexpected data after"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Parse([]byte(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrNotSidecar) {
					t.Fatalf("err = %v, want a not-a-sidecar error containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a, b := mustJSON(t, got), mustJSON(t, c.want); a != b {
				t.Errorf("got %s\nwant %s", a, b)
			}
		})
	}
}

// TestEncodeParseRoundTrip checks that what ctx writes, ctx reads back the
// same, and that encoding is stable byte for byte.
func TestEncodeParseRoundTrip(t *testing.T) {
	sc := Sidecar{ContextPack: "sha256:" + hexB, Output: "out/<a&b>.md", ContentRef: "sha256:" + hexA,
		Inputs: []string{}, Tools: []string{"read_file", "write_file"}, Notes: "kept <verbatim> & unescaped"}
	b, err := Encode(sc)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `\u003c`) {
		t.Errorf("HTML escaping is on: %s", b)
	}
	if !strings.HasSuffix(string(b), "}\n") || strings.Contains(string(b), `"confidence"`) {
		t.Errorf("want a final newline and no empty confidence: %s", b)
	}
	back, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if mustJSON(t, back) != mustJSON(t, sc) {
		t.Errorf("round trip changed the sidecar:\n%s\n%s", mustJSON(t, back), mustJSON(t, sc))
	}
	again, _ := Encode(back)
	if string(again) != string(b) {
		t.Errorf("encoding is not stable:\n%s\n%s", again, b)
	}
}

func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestNewSidecar(t *testing.T) {
	f := packtest.TwoArtifacts(t)
	sc := New(f.Manifest, 0)
	if sc.ContextPack != f.Manifest.Hash || sc.Output != "a.md" || sc.ContentRef != store.Sum([]byte("A\n")).String() {
		t.Errorf("wrong pack, output or content_ref: %+v", sc)
	}
	if len(sc.Inputs) != 1 || sc.Inputs[0] != store.Sum([]byte("in")).String() {
		t.Errorf("inputs = %v, want the one ref of two identical inputs", sc.Inputs)
	}
	if strings.Join(sc.Tools, ",") != "read_file,write_file" {
		t.Errorf("tools = %v, want the tool_call tools in order of first use", sc.Tools)
	}
	if sc.Confidence != "high" || sc.Notes != "from a template" {
		t.Errorf("confidence and notes not carried: %+v", sc)
	}
	if sc := New(f.Manifest, 1); sc.Confidence != "" || sc.Notes != "" {
		t.Errorf("absent confidence and notes must stay absent: %+v", sc)
	}
}

func TestWriteSidecar(t *testing.T) {
	const other = `{"context_pack":"sha256:` + hexB + `","output":"a.md","content_ref":"sha256:` + hexA + `"}`
	cases := []struct {
		name     string
		setup    func(t *testing.T, f *packtest.Artifacts)
		err      string // substring of the warning, "" for none
		differs  bool   // the warning matches ErrArtifactDiffers
		sidecar  string // "ours": our sidecar is there; "kept": the setup's file is unchanged; "none": nothing there
		artifact string
	}{
		{name: "new", sidecar: "ours"},
		{name: "replaces a sidecar of another pack", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "a.md.ctx.json", other)
		}, sidecar: "ours"},
		{name: "a file that is not a sidecar is left alone", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "a.md.ctx.json", `{"compilerOptions":{}}`)
		}, err: "a.md.ctx.json is not a ctx sidecar: no context_pack string; left as it is, no sidecar written", sidecar: "kept"},
		{name: "text that is not JSON is left alone", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "a.md.ctx.json", "my notes\n")
		}, err: "is not a ctx sidecar: not a JSON object; left as it is", sidecar: "kept"},
		{name: "a directory is left alone", setup: func(t *testing.T, f *packtest.Artifacts) {
			if err := os.Mkdir(f.Path("a.md.ctx.json"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, err: "a.md.ctx.json is not a ctx sidecar: it is a directory; left as it is, no sidecar written", sidecar: "dir"},
		{name: "a symlink is neither followed nor replaced", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "target.json", other)
			if err := os.Symlink("target.json", f.Path("a.md.ctx.json")); err != nil {
				t.Fatal(err)
			}
		}, err: "it is a symlink, which ctx never follows or replaces; left as it is", sidecar: "link"},
		{name: "an artifact that differs still gets a sidecar, with a warning", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "a.md", "edited\n")
		}, err: `differs from output "a.md" of the pack`, differs: true, sidecar: "ours", artifact: "edited\n"},
		{name: "a sidecar that vouches for the file's bytes is kept", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "a.md", "edited\n")
			f.Write(t, "a.md.ctx.json", `{"context_pack":"sha256:`+hexB+`","output":"a.md","content_ref":"`+store.Sum([]byte("edited\n")).String()+`"}`)
		}, err: "matches the file and was left as it is", sidecar: "kept", artifact: "edited\n"},
		{name: "a missing artifact gets nothing", setup: func(t *testing.T, f *packtest.Artifacts) {
			os.Remove(f.Path("a.md"))
		}, err: "cannot read", sidecar: "none"},
		{name: "an artifact that is a directory gets nothing", setup: func(t *testing.T, f *packtest.Artifacts) {
			os.Remove(f.Path("a.md"))
			os.Mkdir(f.Path("a.md"), 0o755)
		}, err: "it is a directory; no sidecar written", sidecar: "none"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := packtest.TwoArtifacts(t)
			before := ""
			if c.setup != nil {
				c.setup(t, f)
				if b, err := os.ReadFile(f.Path("a.md.ctx.json")); err == nil {
					before = string(b)
				}
			}
			err := Write(f.Manifest, 0, f.Path("a.md"))
			switch {
			case c.err == "" && err != nil:
				t.Fatalf("unexpected warning: %v", err)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
				t.Fatalf("warning = %v, want one containing %q", err, c.err)
			case c.err != "" && errors.Is(err, ErrArtifactDiffers) != c.differs:
				t.Fatalf("errors.Is(%v, ErrArtifactDiffers) = %v, want %v", err, !c.differs, c.differs)
			}
			want, _ := Encode(New(f.Manifest, 0))
			fi, lerr := os.Lstat(f.Path("a.md.ctx.json"))
			switch c.sidecar {
			case "ours":
				if got := f.Read(t, "a.md.ctx.json"); got != string(want) {
					t.Errorf("sidecar =\n%s\nwant\n%s", got, want)
				}
				if fi.Mode().Perm() != 0o644 {
					t.Errorf("sidecar mode %v, want 0644", fi.Mode())
				}
			case "kept":
				if got := f.Read(t, "a.md.ctx.json"); got != before {
					t.Errorf("the file there was changed to\n%s", got)
				}
			case "dir":
				if lerr != nil || !fi.IsDir() {
					t.Errorf("the directory is gone: %v", lerr)
				}
			case "link":
				if lerr != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("the symlink was replaced: %v", lerr)
				}
				if got := f.Read(t, "target.json"); got != other {
					t.Errorf("the link's target was written: %s", got)
				}
			case "none":
				if lerr == nil {
					t.Errorf("a sidecar was written")
				}
			}
			if c.artifact != "" {
				if got := f.Read(t, "a.md"); got != c.artifact {
					t.Errorf("the artifact was changed to %q", got)
				}
			}
			// No temporary file is ever left behind.
			if tmps, _ := filepath.Glob(filepath.Join(f.Dir, ".ctx-sidecar-*")); len(tmps) > 0 {
				t.Errorf("temporary files left: %v", tmps)
			}
		})
	}
}

// TestWriteSidecarIsIdempotent checks that writing the same sidecar again
// leaves the file as it was, modification time included, so build tools
// that watch mtimes see no change.
func TestWriteSidecarIsIdempotent(t *testing.T) {
	f := packtest.TwoArtifacts(t)
	if err := Write(f.Manifest, 0, f.Path("a.md")); err != nil {
		t.Fatal(err)
	}
	old := time.Unix(1000, 0)
	if err := os.Chtimes(f.Path("a.md.ctx.json"), old, old); err != nil {
		t.Fatal(err)
	}
	if err := Write(f.Manifest, 0, f.Path("a.md")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(f.Path("a.md.ctx.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !fi.ModTime().Equal(old) {
		t.Errorf("the sidecar was rewritten: mtime %v", fi.ModTime())
	}
}

func TestWriteSidecarNeedsAPublishedPack(t *testing.T) {
	f := packtest.TwoArtifacts(t)
	m := *f.Manifest
	m.Hash = ""
	if err := Write(&m, 0, f.Path("a.md")); err == nil || !strings.Contains(err.Error(), "no hash yet") {
		t.Errorf("err = %v, want a refusal for an unpublished pack", err)
	}
	if err := Write(f.Manifest, 5, f.Path("a.md")); err == nil {
		t.Errorf("an output index out of range was accepted")
	}
	if _, err := os.Lstat(f.Path("a.md.ctx.json")); err == nil {
		t.Errorf("a sidecar was written")
	}
}
