package pack

import (
	"strings"
	"testing"
)

func TestSubPath(t *testing.T) {
	for _, tt := range []struct{ path, rel, want string }{
		{"metadata", ".[0][1]", "metadata[0][1]"},
		{"steps[0].parameters", ".a[2]", "steps[0].parameters.a[2]"},
		{"steps[0].parameters", `.["a b"]`, `steps[0].parameters["a b"]`},
		{"", ".a", ".a"},
		{"", ".[0]", ".[0]"},
		{"model", "", "model"},
	} {
		if got := subPath(tt.path, tt.rel); got != tt.want {
			t.Errorf("subPath(%q, %q) = %q, want %q", tt.path, tt.rel, got, tt.want)
		}
	}
}

func TestClipPath(t *testing.T) {
	deep := "metadata" + strings.Repeat("[0]", 1000)
	long := "steps[0].parameters." + strings.Repeat("é", 200)
	for _, tt := range []struct {
		path string
		want func(string) bool
	}{
		{"steps[3].tool", func(s string) bool { return s == "steps[3].tool" }},
		{deep, func(s string) bool {
			return len(s) <= maxPath+3 && strings.HasSuffix(s, "[0]...") && strings.HasPrefix(deep, strings.TrimSuffix(s, "..."))
		}},
		{long, func(s string) bool { return s == "steps[0].parameters..." }},
		{strings.Repeat("é", 200), func(s string) bool {
			return len(s) <= maxPath+3 && strings.HasSuffix(s, "é...")
		}},
	} {
		if got := clipPath(tt.path); !tt.want(got) {
			t.Errorf("clipPath(%.40q...) = %q", tt.path, got)
		}
	}
}
