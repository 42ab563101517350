package htmlview

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/text"
)

// FuzzVis: whatever a run holds, vis gives text with no markup but its own
// escape spans, valid UTF-8, and no character it is meant to make visible.
func FuzzVis(f *testing.F) {
	for _, s := range []string{"", "plain", hostile, "\xff\xfe", "a\u202eb\u2066c", "<span class=\"x\">", "\U000e0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := string(vis(s))
		if !utf8.ValidString(out) {
			t.Fatalf("vis(%q) is not UTF-8: %q", s, out)
		}
		rest := strings.ReplaceAll(strings.ReplaceAll(out, `<span class="x">`, ""), "</span>", "")
		if strings.ContainsAny(rest, "<>") || !escapedAmps(rest) {
			t.Fatalf("vis(%q) holds markup: %q", s, out)
		}
		for _, r := range rest {
			if text.Hidden(r) {
				t.Fatalf("vis(%q) holds %U raw", s, r)
			}
		}
		if plain := visText(s); !utf8.ValidString(plain) || strings.IndexFunc(plain, text.Hidden) >= 0 {
			t.Fatalf("visText(%q) = %q", s, plain)
		}
	})
}

// escapedAmps reports whether every & in s starts one of vis's entities.
func escapedAmps(s string) bool {
	for i := strings.IndexByte(s, '&'); i >= 0; i = strings.IndexByte(s, '&') {
		rest := s[i:]
		switch {
		case strings.HasPrefix(rest, "&lt;"), strings.HasPrefix(rest, "&gt;"), strings.HasPrefix(rest, "&amp;"):
		default:
			return false
		}
		s = rest[1:]
	}
	return true
}
