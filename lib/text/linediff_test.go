package text

import (
	"bytes"
	"strings"
	"testing"
)

func TestFirstDiff(t *testing.T) {
	tests := []struct {
		name  string
		a, b  string
		found bool
		want  LineDiff
	}{
		{"same", "a\nb\n", "a\nb\n", false, LineDiff{}},
		{"second line", "a\nb\nc\n", "a\nB\nc\n", true, LineDiff{Line: 2, A: "b", B: "B", AWhole: true, BWhole: true}},
		{"b longer", "a\n", "a\nb\n", true, LineDiff{Line: 2, AEnd: true, AWhole: true, B: "b", BWhole: true}},
		{"a longer, no final newline", "a\nb", "a\n", true, LineDiff{Line: 2, A: "b", AWhole: true, BEnd: true, BWhole: true}},
		{"crlf kept, to be shown", "x\r\n", "x\n", true, LineDiff{Line: 1, A: "x\r", B: "x", AWhole: true, BWhole: true}},
		{"binary", "a\x00b", "a\x00c", true, LineDiff{Line: 1, A: "a\x00b", B: "a\x00c", AWhole: true, BWhole: true, Binary: true}},
		{"empty against text", "", "x", true, LineDiff{Line: 1, AEnd: true, AWhole: true, B: "x", BWhole: true}},
		{"long lines differ at the end", strings.Repeat("x", 200000) + "1", strings.Repeat("x", 200000) + "2", true,
			LineDiff{Line: 1, A: strings.Repeat("x", maxKept), B: strings.Repeat("x", maxKept)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found, err := FirstDiff(strings.NewReader(tt.a), strings.NewReader(tt.b))
			if err != nil {
				t.Fatal(err)
			}
			if found != tt.found || got != tt.want {
				t.Errorf("FirstDiff: got %+v %v, want %+v %v", got, found, tt.want, tt.found)
			}
		})
	}
}

func TestLineWindow(t *testing.T) {
	long := strings.Repeat("word ", 1200)
	tests := []struct {
		name  string
		a, b  string
		wantA string
		wantB string
		col   int
	}{
		{"short", "abc", "abd", "abc", "abd", 3},
		{"crlf", "x\r", "x", `x\r`, "x", 2},
		{"trailing spaces", "x  ", "x", "x␠␠", "x", 2},
		{"inner spaces kept", "a b c", "a b d", "a b c", "a b d", 5},
		{"a change in the middle of a long line", long + "idented" + long, long + "indented" + long,
			"…" + (long + "idented" + long)[6001-53:6001-53+159] + "…", "…" + (long + "indented" + long)[6001-53:6001-53+159] + "…", 6002},
		{"escape", "a\x1b[2J", "a", `a\x1b[2J`, "a", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b, col := (LineDiff{A: tt.a, B: tt.b, AWhole: true, BWhole: true}).Window()
			if a != tt.wantA || b != tt.wantB || col != tt.col {
				t.Errorf("Window = %q, %q, %d; want %q, %q, %d", a, b, col, tt.wantA, tt.wantB, tt.col)
			}
		})
	}
}

func TestLineDiffWrite(t *testing.T) {
	var out bytes.Buffer
	d, _, _ := FirstDiff(strings.NewReader("a\nb\n"), strings.NewReader("a\n"))
	d.Write(&out, "  ", func(code, s string) string { return "<" + code + ">" + s + "</>" })
	want := "  <2>line 2:</>\n  <31>- b</>\n  <32>+ <2>(no such line)</></>\n"
	if out.String() != want {
		t.Errorf("Write =\n%q\nwant\n%q", out.String(), want)
	}
}
