package share

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

func TestParseAddress(t *testing.T) {
	hex := strings.Repeat("ab", 32)
	tests := []struct {
		in         string
		name, part string
		err        bool
	}{
		{in: "latest", name: "latest"},
		{in: "3f2b", name: "3f2b"},
		{in: "ctx://" + hex, name: "ctx://" + hex},
		{in: "sha256:" + hex, name: "sha256:" + hex},
		{in: "latest:steps/3", name: "latest", part: "steps/3"},
		{in: "ctx://" + hex + ":inputs/src/a.go", name: "ctx://" + hex, part: "inputs/src/a.go"},
		{in: "sha256:" + hex + ":system_prompt", name: "sha256:" + hex, part: "system_prompt"},
		{in: "3f2b:outputs/a:b.txt", name: "3f2b", part: "outputs/a:b.txt"}, // the first ':' splits
		{in: ":steps/0", name: "", part: "steps/0"},
		{in: "latest:", err: true},
		{in: "sha256:" + hex + ":", err: true},
		{in: "sha256:", name: "sha256:"},
	}
	for _, tt := range tests {
		a, err := ParseAddress(tt.in)
		switch {
		case tt.err && err == nil:
			t.Errorf("ParseAddress(%q) = %+v, want an error", tt.in, a)
		case !tt.err && err != nil:
			t.Errorf("ParseAddress(%q): %v", tt.in, err)
		case !tt.err && (a.Name != tt.name || a.Part != tt.part):
			t.Errorf("ParseAddress(%q) = %q, %q; want %q, %q", tt.in, a.Name, a.Part, tt.name, tt.part)
		case !tt.err && a.String() != tt.in:
			t.Errorf("ParseAddress(%q).String() = %q", tt.in, a.String())
		}
	}
}

func TestPartObject(t *testing.T) {
	h := func(s string) store.Hash { return store.Sum([]byte(s)) }
	ref := func(s string) *store.Hash { x := h(s); return &x }
	m := &pack.Manifest{
		Hash:         h("pack").String(),
		SystemPrompt: ref("system"),
		Prompts:      []pack.Prompt{{ContentRef: h("p0")}, {ContentRef: h("p1")}},
		Inputs:       []pack.File{{Name: "a.go", ContentRef: h("a")}, {Name: "dir/b.go", ContentRef: h("b")}},
		Steps:        []pack.Step{{OutputRef: ref("s0")}, {}},
		Outputs:      []pack.Output{{Name: "out/report.md", ContentRef: h("out")}},
	}
	tests := []struct {
		part string
		want string // the content hashed, "" for an error
	}{
		{"system_prompt", "system"},
		{"prompts/0", "p0"},
		{"prompts/1", "p1"},
		{"inputs/a.go", "a"},
		{"inputs/dir/b.go", "b"},
		{"outputs/out/report.md", "out"},
		{"steps/0", "s0"},
		{"steps/1", ""},   // no output
		{"steps/2", ""},   // out of range
		{"steps/", ""},    // no index
		{"steps/+1", ""},  // not digits
		{"steps/1e0", ""}, // not digits
		{"steps/99999999999999999999999", ""},
		{"prompts/2", ""},
		{"inputs/", ""},
		{"inputs/b.go", ""},
		{"inputs/A.go", ""},
		{"outputs/report.md", ""},
		{"system_prompt/x", ""},
		{"steps", ""},
		{"manifest", ""},
		{"", ""},
	}
	for _, tt := range tests {
		got, err := PartObject(m, tt.part)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("PartObject(%q) = %s, want an error", tt.part, got)
		case tt.want == "" && !errors.Is(err, ErrNoPart):
			t.Errorf("PartObject(%q): %v does not match ErrNoPart", tt.part, err)
		case tt.want != "" && err != nil:
			t.Errorf("PartObject(%q): %v", tt.part, err)
		case tt.want != "" && got != h(tt.want):
			t.Errorf("PartObject(%q) = %s, want the hash of %q", tt.part, got, tt.want)
		}
	}
	m.SystemPrompt = nil
	if _, err := PartObject(m, "system_prompt"); err == nil || !strings.Contains(err.Error(), "no system prompt") {
		t.Errorf("a pack without a system prompt: %v", err)
	}
}

// FuzzParseAddress checks that any address either fails or splits into a
// name and a part that give the address back, and that resolving the part
// in a pack never panics.
func FuzzParseAddress(f *testing.F) {
	for _, s := range []string{"latest", "latest:steps/3", "ctx://" + strings.Repeat("0", 64) + ":inputs/a/b", "sha256:x:y:z", ":", "a:", "prompts/0"} {
		f.Add(s)
	}
	m := &pack.Manifest{Hash: store.Sum(nil).String(), Prompts: []pack.Prompt{{}}, Steps: []pack.Step{{}},
		Inputs: []pack.File{{Name: "a/b"}}, Outputs: []pack.Output{{Name: "o"}}, Environment: json.RawMessage("{}")}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAddress(s)
		if err != nil {
			return
		}
		if a.String() != s {
			t.Fatalf("ParseAddress(%q) = %+v, which reads back as %q", s, a, a.String())
		}
		if a.Part != "" {
			if _, err := PartObject(m, a.Part); err != nil && !errors.Is(err, ErrNoPart) {
				t.Fatalf("PartObject(%q): %v is not an ErrNoPart", a.Part, err)
			}
		}
	})
}
