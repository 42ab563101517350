package verifycmd

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/verify"
)

// TestJSONPrinter checks that the array written element by element is one
// valid JSON document however many reports there are, on one line when
// piped and indented on a terminal.
func TestJSONPrinter(t *testing.T) {
	reports := []verify.Report{
		{Artifact: "a.md", Status: verify.Verified, Tools: []string{"read_file"}, Inputs: []string{}},
		{Artifact: "b <&>.md", Status: verify.NoProvenance, Reason: "no sidecar b <&>.md.ctx.json"},
		{Status: verify.Corrupt, Problems: []verify.Problem{{Kind: "missing", Object: "sha256:00", Where: "inputs[0] (x)", Detail: "not in the store"}}},
	}
	for _, indent := range []bool{false, true} {
		for n := 0; n <= len(reports); n++ {
			var b strings.Builder
			p := &jsonPrinter{w: &b, indent: indent}
			for _, r := range reports[:n] {
				if err := p.add(r); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.close(); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			var got []map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil || len(got) != n {
				t.Fatalf("indent=%v n=%d: %v, %d elements in\n%s", indent, n, err, len(got), out)
			}
			if !strings.HasSuffix(out, "]\n") || strings.Count(out, "\n") > 1 && !indent {
				t.Errorf("indent=%v n=%d: want one line ending in a newline:\n%s", indent, n, out)
			}
			if indent && n > 0 && !strings.Contains(out, "\n    \"status\": ") {
				t.Errorf("indent=%v n=%d: not indented:\n%s", indent, n, out)
			}
			if strings.Contains(out, `\u003c`) {
				t.Errorf("HTML escaping is on:\n%s", out)
			}
		}
	}
}

func TestShellQuote(t *testing.T) {
	cases := []struct{ in, want string }{
		{"report.md", "report.md"},
		{"out/a-b_c.d:outputs/x@1", "out/a-b_c.d:outputs/x@1"},
		{"my report.md", "'my report.md'"},
		{"it's.md", `'it'\''s.md'`},
		{"$(rm -rf x)", "'$(rm -rf x)'"},
		{"", "''"},
		{"naïve.md", "'naïve.md'"},
	}
	for _, c := range cases {
		if got := shellQuote(c.in); got != c.want {
			t.Errorf("shellQuote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestFirstBoolKeepsTheFirstValue(t *testing.T) {
	var b firstBool
	if err := b.Set("true"); err != nil {
		t.Fatal(err)
	}
	if err := b.Set("false"); err != nil || !b.v {
		t.Errorf("a later value replaced the first: %v %v", b.v, err)
	}
	if err := new(firstBool).Set("maybe"); err == nil {
		t.Errorf("a non-boolean was accepted")
	}
}

// TestHumanBlockKeepsToItsLines checks that notes and names holding
// newlines or escape sequences are quoted, not printed raw.
func TestHumanBlockKeepsToItsLines(t *testing.T) {
	var b strings.Builder
	writeBlock(&b, verify.Report{Artifact: "evil\x1b[2J.md", Status: verify.Verified, Pack: "sha256:00",
		Created: "2026-01-01T00:00:00Z", Output: "evil\x1b[2J.md", Notes: "line one\nline two"}, false)
	out := b.String()
	if strings.Contains(out, "\x1b") || strings.Contains(out, "line one\nline two") {
		t.Errorf("control characters printed raw:\n%q", out)
	}
	if !strings.Contains(out, `"evil\x1b[2J.md": verified`) || !strings.Contains(out, `  notes       "line one\nline two"`) {
		t.Errorf("want quoted values:\n%s", out)
	}
}
