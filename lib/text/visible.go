package text

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden reports whether r is shown as an escape in text from a run: a
// control character other than tab and newline, a formatting character
// (bidi marks, overrides and isolates, zero-width characters, the byte
// order mark, tag characters), or a line or paragraph separator. What it
// hides could make two different texts look the same, or take over a
// terminal.
func Hidden(r rune) bool {
	if r == '\t' || r == '\n' {
		return false
	}
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// Escape is how a Hidden rune is shown: \r, \x1b, \u202e, \U000e0001.
func Escape(r rune) string {
	switch {
	case r == '\r':
		return `\r`
	case r < 0x100:
		return fmt.Sprintf(`\x%02x`, r)
	case r <= 0xffff:
		return fmt.Sprintf(`\u%04x`, r)
	}
	return fmt.Sprintf(`\U%08x`, r)
}

// Visible returns s as one line for a terminal: Hidden runes and newlines
// as escapes (\r, \n, \x1b, \u202e), and a byte that is not UTF-8 as \xff;
// tabs are kept. The HTML pages show the same escapes.
func Visible(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case Hidden(r):
			b.WriteString(Escape(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// MarkTrailing shows the spaces and tabs that end s, which a terminal
// leaves invisible, as ␠ and ␉: for a line that differs from another only
// there.
func MarkTrailing(s string) string {
	body := strings.TrimRight(s, " \t")
	if len(body) == len(s) {
		return s
	}
	tail := strings.NewReplacer(" ", "␠", "\t", "␉").Replace(s[len(body):])
	return body + tail
}
