package htmlview

import (
	"fmt"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/text"
)

// vis returns s as HTML text (element content, never an attribute):
// escaped, with every character that would be
// invisible or would reorder or break what is around it (controls other
// than tab and newline, bidi overrides and isolates, zero-width and other
// formatting characters, line and paragraph separators) and every byte
// that is not UTF-8 shown as a visible escape (\x1b, \u202e, \xff) in a
// span of class x. It is the only place run text becomes template.HTML.
func vis(s string) template.HTML {
	if plain(s) {
		return template.HTML(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	writeVis(&b, s, true)
	return template.HTML(b.String())
}

// visText is s with the same escapes as plain text, for attributes (the
// template escapes it as usual).
func visText(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	writeVis(&b, s, false)
	return b.String()
}

// plain reports whether s is printable ASCII (or tab and newline) without
// the characters HTML text needs escaped: the common case, returned as it
// is. (Quotes need escaping only in attributes, where vis is never used.)
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x7f || (c < 0x20 && c != '\t' && c != '\n') {
			return false
		}
		switch c {
		case '<', '>', '&':
			return false
		}
	}
	return true
}

// writeVis writes s escaped; html says whether the output is HTML (escape
// markup, wrap escapes in spans) or plain text.
func writeVis(b *strings.Builder, s string, html bool) {
	esc := func(e string) {
		if html {
			b.WriteString(`<span class="x">`)
			b.WriteString(e)
			b.WriteString(`</span>`)
		} else {
			b.WriteString(e)
		}
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			esc(fmt.Sprintf(`\x%02x`, s[i]))
		case text.Hidden(r):
			esc(text.Escape(r))
		case html && r == '<':
			b.WriteString("&lt;")
		case html && r == '>':
			b.WriteString("&gt;")
		case html && r == '&':
			b.WriteString("&amp;")
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
}

// count formats n with thousands separators: "10,000".
func count(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + count(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// plural is "1 step", "2 steps".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}
