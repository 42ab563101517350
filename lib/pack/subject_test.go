package pack

import (
	"strings"
	"testing"
)

func TestClipLine(t *testing.T) {
	for in, want := range map[string]string{
		"fix it":                          "fix it",
		"\n\n  first line  \nsecond":      "first line",
		"tab\tand\x1b[31m escape":         "tab and [31m escape",
		strings.Repeat("é", MaxSubject+5): strings.Repeat("é", MaxSubject-1) + "…",
		"bad \xff byte":                   "bad \uFFFD byte",
		"   \n\t\n":                       "",
	} {
		if got := clipLine(in); got != want {
			t.Errorf("clipLine(%q) = %q, want %q", in, got, want)
		}
	}
}
