package jcs

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// The one scanner of JSON text every reader of ctx shares: where a string
// or a value ends, and what a string's escapes stand for. Canonicalize
// checks a value; these find and decode one without a tree or a copy.

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace is the index of the first byte at or after i that is not
// white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// StringEnd is the index just past the string that starts at b[i], or -1
// when b ends first. It jumps from quote to quote (IndexByte); a quote
// after an odd run of backslashes is escaped.
func StringEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	for i++; ; {
		q := bytes.IndexByte(b[i:], '"')
		if q < 0 {
			return -1
		}
		j := i + q
		n := 0
		for k := j - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		i = j + 1
	}
}

// ValueEnd is the index just past the JSON value that starts at b[i], or
// -1 when b ends first. It follows brackets and strings only: the value is
// one Canonicalize has found valid, or is checked after.
func ValueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		var s Scanner
		n, done := s.Scan(b[i:])
		if !done {
			return -1
		}
		return i + n
	}
	for i < len(b) && !IsSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	return i
}

// Scanner finds the end of a string, object or array given a piece at a
// time, as a reader sees it through its buffer: the zero Scanner is before
// the value's first byte. Like ValueEnd, it follows brackets and strings
// only.
type Scanner struct {
	depth      int
	inStr, esc bool
	started    bool
}

// InString reports whether the scan is inside a string.
func (s *Scanner) InString() bool { return s.inStr }

// Scan moves over buf, the next bytes of the value, and returns how many
// of them belong to it; done is true when the value ended there.
func (s *Scanner) Scan(buf []byte) (n int, done bool) {
	i := 0
	if !s.started && len(buf) > 0 {
		s.started = true
		switch buf[0] {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth = 1
		default:
			return 0, true // not a string, object or array
		}
		i = 1
	}
	// Strings are skipped to their next quote or backslash with
	// IndexByte, each found once per buffer.
	nq, nb := -1, -1
	for i < len(buf) && (s.depth > 0 || s.inStr) {
		if s.inStr {
			if s.esc {
				s.esc = false
				i++
				continue
			}
			if nq < i {
				if nq = bytes.IndexByte(buf[i:], '"'); nq >= 0 {
					nq += i
				} else {
					nq = len(buf)
				}
			}
			if nb < i {
				if nb = bytes.IndexByte(buf[i:], '\\'); nb >= 0 {
					nb += i
				} else {
					nb = len(buf)
				}
			}
			switch {
			case nb < nq:
				i = nb + 1
				s.esc = true
			case nq < len(buf):
				i = nq + 1
				s.inStr = false
			default:
				i = len(buf)
			}
			continue
		}
		switch buf[i] {
		case '"':
			s.inStr = true
		case '{', '[':
			s.depth++
		case '}', ']':
			s.depth--
		}
		i++
	}
	return i, s.started && s.depth == 0 && !s.inStr
}

// Escape decodes the escape sequence at src[0] (a backslash): the
// character it stands for and how many bytes it takes (12 for a surrogate
// pair). n is 0 when it is not one RFC 8259 allows or Canonicalize takes
// (a lone surrogate), and msg says why; src shorter than the sequence is
// "unexpected end of input in string" when only the backslash is there.
func Escape(src []byte) (r rune, n int, msg string) {
	if len(src) < 2 {
		return 0, 0, "unexpected end of input in string"
	}
	switch src[1] {
	case '"', '\\', '/':
		return rune(src[1]), 2, ""
	case 'b':
		return '\b', 2, ""
	case 'f':
		return '\f', 2, ""
	case 'n':
		return '\n', 2, ""
	case 'r':
		return '\r', 2, ""
	case 't':
		return '\t', 2, ""
	case 'u':
		r, ok := Hex4(src, 2)
		if !ok {
			return 0, 0, "invalid \\u escape in string"
		}
		if r < 0xD800 || r >= 0xE000 {
			return r, 6, ""
		}
		lo, ok := rune(0), false
		if r < 0xDC00 && len(src) >= 12 && src[6] == '\\' && src[7] == 'u' {
			lo, ok = Hex4(src, 8)
			ok = ok && lo >= 0xDC00 && lo < 0xE000
		}
		if !ok {
			return 0, 0, "lone surrogate \\u" + strconv.FormatInt(int64(r), 16) + " in string"
		}
		return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 12, ""
	}
	return 0, 0, "invalid escape " + strconv.Quote(string(src[:2])) + " in string"
}

// Unescape appends to dst what the body of a JSON string (the bytes
// between its quotes) stands for. ok is false when the body is not one
// Canonicalize takes: invalid UTF-8, a control character or quote not
// escaped, an unknown escape, a lone surrogate.
func Unescape(dst, body []byte) (out []byte, ok bool) {
	if !utf8.Valid(body) {
		return dst, false
	}
	for i := 0; i < len(body); {
		c := body[i]
		if c < 0x20 || c == '"' {
			return dst, false
		}
		if c != '\\' {
			j := i + 1
			for j < len(body) && body[j] != '\\' && body[j] >= 0x20 && body[j] != '"' {
				j++
			}
			dst = append(dst, body[i:j]...)
			i = j
			continue
		}
		r, n, _ := Escape(body[i:])
		if n == 0 {
			return dst, false
		}
		dst = utf8.AppendRune(dst, r)
		i += n
	}
	return dst, true
}

// UnescapeString is Unescape to a string, with no copy but the string's
// own when the body has no escape.
func UnescapeString(body []byte) (string, bool) {
	if bytes.IndexByte(body, '\\') >= 0 {
		out, ok := Unescape(make([]byte, 0, len(body)), body)
		return string(out), ok
	}
	if !utf8.Valid(body) {
		return "", false
	}
	for _, c := range body {
		if c < 0x20 || c == '"' {
			return "", false
		}
	}
	return string(body), true
}

// FindKey looks for the member key at the top level of the JSON object
// that starts buf (after white space), buf perhaps only its beginning. at
// is just past the key's string when it is found, else -1; decided is
// false when buf ends before it could be known (with at -1).
func FindKey(buf []byte, key string) (at int, decided bool) {
	i := SkipSpace(buf, 0)
	if i == len(buf) {
		return -1, false
	}
	if buf[i] != '{' {
		return -1, true
	}
	i++
	depth, expectKey := 0, true
	for ; i < len(buf); i++ {
		switch c := buf[i]; {
		case c == '"':
			j := StringEnd(buf, i)
			if j < 0 {
				return -1, false
			}
			if depth == 0 && expectKey {
				if string(buf[i+1:j-1]) == key {
					return j, true
				}
				expectKey = false
			}
			i = j - 1
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth == 0 {
				return -1, true
			}
			depth--
		case c == ',' && depth == 0:
			expectKey = true
		}
	}
	return -1, false
}
