package diff

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// memBlobs is a Blobs over a map.
type memBlobs map[store.Hash]string

func (m memBlobs) Open(h store.Hash) (io.ReadCloser, error) {
	s, ok := m[h]
	if !ok {
		return nil, errors.New("not here")
	}
	return io.NopCloser(strings.NewReader(s)), nil
}

func TestWriteHuman(t *testing.T) {
	b := base()
	b.prompts[0][1] = "fix the test\nthen the \x1b[31mdocs"
	b.steps[2][1] = `{"command":"go vet"}`
	a := base().manifest()
	r, err := Compare(a, b.manifest(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	blobs := memBlobs{}
	for _, s := range []string{"fix the test", b.prompts[0][1]} {
		blobs[store.Sum([]byte(s))] = s
	}
	var out bytes.Buffer
	if err := WriteHuman(&out, r, blobs, nil); err != nil {
		t.Fatal(err)
	}
	want := `prompts
  prompt 0 (user) changed from ` + sh("fix the test") + ` to ` + sh(b.prompts[0][1]) + `
      line 2:
      - (no such line)
      + then the \x1b[31mdocs

steps
  step 2 bash: parameter /command changed from "go test" to "go vet"

2 drift points: 1 prompt_drift, 1 param_drift; first divergence at step 2
`
	if out.String() != want {
		t.Errorf("human output:\n%s\nwant:\n%s", out.String(), want)
	}

	out.Reset()
	same, _ := Compare(a, a, Options{})
	if err := WriteHuman(&out, same, nil, nil); err != nil {
		t.Fatal(err)
	}
	if out.String() != "no differences found\n" {
		t.Errorf("identical runs print %q", out.String())
	}
}

func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttab":      "plain\ttab",
		"esc\x1b[2J":      `esc\x1b[2J`,
		"bell\a, del\x7f": `bell\x07, del\x7f`,
		"c1 \u009b":       `c1 \x9b`,
		"unicode é ✓":     "unicode é ✓",
	} {
		if got := text.Visible(in); got != want {
			t.Errorf("text.Visible(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteHumanColour(t *testing.T) {
	b := base()
	b.outputs[0][1] = "fixed twice"
	r, err := Compare(base().manifest(), b.manifest(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	blobs := memBlobs{store.Sum([]byte("fixed")): "fixed", store.Sum([]byte("fixed twice")): "fixed twice"}
	paint := func(code, s string) string { return "<" + code + ">" + s + "</>" }
	var out bytes.Buffer
	if err := WriteHuman(&out, r, blobs, paint); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<1>outputs</>\n", "<2>line 1:</>", "<31>- fixed</>\n", "<32>+ fixed twice</>\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("coloured output lacks %q:\n%s", want, out.String())
		}
	}
}
