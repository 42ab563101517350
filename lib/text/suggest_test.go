package text

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"pack", "pack", 0},
		{"", "pack", 4},
		{"pakc", "pack", 1}, // a swap is one edit
		{"sho", "show", 1},
		{"shwo", "show", 1},
		{"fsk", "fsck", 1},
		{"replya", "replay", 1},
		{"rpelay", "replay", 1},
		{"chekout", "checkout", 1},
		{"dif", "diff", 1},
		{"Pack", "pack", 1},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"kitten", "sitting", 3},
		{"évite", "evite", 1}, // runes, not bytes
		{"impot", "export", 3},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := distance(tt.b, tt.a); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestDidYouMean words the hint of one candidate and of several.
func TestDidYouMean(t *testing.T) {
	for name, want := range map[string]string{
		"dif":   "did you mean 'diff'?",
		"shw":   "did you mean 'show'?",
		"fo":    "did you mean 'fob' or 'foo'?",
		"xyzzy": "",
	} {
		if got := DidYouMean(name, []string{"diff", "show", "foo", "fob"}); got != want {
			t.Errorf("DidYouMean(%q) = %q, want %q", name, got, want)
		}
	}
	if strings.Contains(DidYouMean("a", nil), "mean") {
		t.Error("no candidates, yet a suggestion")
	}
}
