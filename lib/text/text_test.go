package text

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
)

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"one too long", 11, "one too lo…"},
		{"naïve café au lait", 8, "naïve c…"},
		{"", 3, ""},
		{"ab\xffcdef", 4, "ab\ufffd…"},
		{strings.Repeat("x", 1<<20), 3, "xx…"},
	}
	for _, tt := range tests {
		if got := Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 packs", 1: "1 pack", 2: "2 packs"} {
		if got := Plural(n, "pack"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestUnwrapPath(t *testing.T) {
	_, err := os.Open("/nonexistent/x")
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Fatalf("os.Open gave %T", err)
	}
	if got := UnwrapPath(err); got != pe.Err || !errors.Is(got, fs.ErrNotExist) {
		t.Errorf("UnwrapPath(%v) = %v", err, got)
	}
	wrapped := fmt.Errorf("reading: %w", err)
	if got := UnwrapPath(wrapped); got != pe.Err {
		t.Errorf("UnwrapPath of a wrapped path error = %v", got)
	}
	other := errors.New("other")
	if UnwrapPath(other) != other {
		t.Errorf("UnwrapPath changed an error that is not a path error")
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{-1: "", 0: "0 B", 1023: "1023 B", 1536: "1.5 KiB", 3 << 30: "3.0 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWithHints(t *testing.T) {
	base := errors.New("broken")
	err := WithHints(base, "fix it")
	var h interface{ ErrorHints() []string }
	if !errors.As(err, &h) || h.ErrorHints()[0] != "fix it" || !errors.Is(err, base) || err.Error() != "broken" {
		t.Errorf("WithHints gave %v", err)
	}
	if WithHints(nil, "x") != nil {
		t.Errorf("WithHints(nil) is not nil")
	}
}
