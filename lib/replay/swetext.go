package replay

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What SWE-agent's tools inherit from Python and the shell, done the same
// way here so that a replayed command prints what the tool printed:
// str.splitlines, slice assignment, repr, int(), pathlib's way of naming a
// path, universal newlines; the shell's words; grep's basic regular
// expressions.

// pyLineCount is len(text.splitlines()) for text read with universal
// newlines (no \r left): the line breaks Python knows besides \n count.
func pyLineCount(text string) int {
	n := 0
	last := rune(-1)
	for _, r := range text {
		if pyLineBreak(r) {
			n++
		}
		last = r
	}
	if last != -1 && !pyLineBreak(last) {
		n++
	}
	return n
}

func pyLineBreak(r rune) bool {
	switch r {
	case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
		return true
	}
	return false
}

// pyUniversal is what Path.read_text() gives of the bytes of a file: the
// UTF-8 text with \r\n and \r read as \n.
func pyUniversal(b []byte) (string, error) {
	if !utf8.Valid(b) {
		return "", errors.New("is not UTF-8 text (the tool would stop with a UnicodeDecodeError)")
	}
	s := strings.ReplaceAll(string(b), "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n"), nil
}

// pyRepr is repr() of a str: in single quotes unless the text holds a
// single quote and no double one, with \\, \n, \r, \t and unprintable
// characters escaped.
func pyRepr(s string) string {
	q := byte('\'')
	if strings.ContainsRune(s, '\'') && !strings.ContainsRune(s, '"') {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteByte('\\')
			b.WriteByte(q)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// pyPath is str(Path(p)): repeated slashes and "." elements gone, no
// trailing slash, "." for nothing.
func pyPath(p string) string {
	var out []string
	for _, el := range strings.Split(p, "/") {
		if el != "" && el != "." {
			out = append(out, el)
		}
	}
	s := strings.Join(out, "/")
	switch {
	case strings.HasPrefix(p, "/"):
		return "/" + s
	case s == "":
		return "."
	}
	return s
}

// grepBRE compiles a grep basic regular expression (GNU grep's, with \+,
// \?, \| and the \w \s \b classes) as a Go regular expression.
// Back-references and \< \> have no equivalent and are refused.
func grepBRE(p string) (*regexp.Regexp, error) {
	var b strings.Builder
	start := true // where * is a literal and ^ an anchor
	for i := 0; i < len(p); i++ {
		c := p[i]
		wasStart := start
		start = false
		switch {
		case c == '\\':
			if i+1 == len(p) {
				return nil, errors.New("trailing backslash")
			}
			i++
			switch d := p[i]; {
			case d == '(' || d == '|':
				b.WriteByte(d)
				start = true
			case d == ')' || d == '+' || d == '?':
				b.WriteByte(d)
			case d == '{':
				j := strings.Index(p[i:], `\}`)
				if j < 0 {
					return nil, errors.New(`unmatched \{`)
				}
				b.WriteString("{" + p[i+1:i+j] + "}")
				i += j + 1
			case d >= '1' && d <= '9' || d == '<' || d == '>':
				return nil, fmt.Errorf(`\%c is not supported by replay's grep`, d)
			case strings.IndexByte("bBwWsS", d) >= 0:
				b.WriteByte('\\')
				b.WriteByte(d)
			default:
				b.WriteString(regexp.QuoteMeta(string(d)))
			}
		case c == '[':
			j := i + 1
			if j < len(p) && p[j] == '^' {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for ; j < len(p) && p[j] != ']'; j++ {
				if p[j] == '[' && j+1 < len(p) && (p[j+1] == ':' || p[j+1] == '.' || p[j+1] == '=') {
					k := strings.Index(p[j+2:], string(p[j+1])+"]")
					if k < 0 {
						return nil, errors.New("unmatched [")
					}
					j += k + 3
				}
			}
			if j >= len(p) {
				return nil, errors.New("unmatched [")
			}
			b.WriteString(strings.ReplaceAll(p[i:j+1], `\`, `\\`))
			i = j
		case c == '*' && wasStart:
			b.WriteString(`\*`)
		case c == '^' && wasStart:
			b.WriteByte('^')
			start = true
		case c == '$' && (i == len(p)-1 || strings.HasPrefix(p[i+1:], `\)`) || strings.HasPrefix(p[i+1:], `\|`)):
			b.WriteByte('$')
		case c == '.' || c == '*':
			b.WriteByte(c)
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	return regexp.Compile(b.String())
}
