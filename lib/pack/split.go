package pack

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// splitObject splits a JSON object that jcs has found valid into its
// members, as json.Unmarshal into a map[string]json.RawMessage would: one
// copy of raw, which every value then shares, instead of a decode and a
// copy per member. ok is false when raw is not an object.
func splitObject(raw []byte) (obj map[string]json.RawMessage, ok bool) {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	raw = append([]byte(nil), raw...)
	obj = map[string]json.RawMessage{}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return obj, true
	}
	for i < len(raw) {
		end := stringEnd(raw, i)
		if end < 0 {
			return nil, false
		}
		k, ok := plainString(raw[i:end])
		if !ok {
			if json.Unmarshal(raw[i:end], &k) != nil {
				return nil, false
			}
		}
		i = skipSpace(raw, end)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
		vEnd := valueEnd(raw, i)
		if vEnd < 0 {
			return nil, false
		}
		obj[k] = raw[i:vEnd:vEnd]
		i = skipSpace(raw, vEnd)
		if i >= len(raw) {
			return nil, false
		}
		if raw[i] == '}' {
			return obj, true
		}
		if raw[i] != ',' {
			return nil, false
		}
		i = skipSpace(raw, i+1)
	}
	return nil, false
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd is the index just past the string that starts at b[i], or -1.
// It jumps from quote to quote (IndexByte); a quote after an odd run of
// backslashes is escaped.
func stringEnd(b []byte, i int) int {
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

// valueEnd is the index just past the JSON value that starts at b[i], or
// -1; the value is known to be valid.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				e := stringEnd(b, i)
				if e < 0 {
					return -1
				}
				i = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return -1
	}
	for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != '}' && b[i] != ']' {
		i++
	}
	return i
}

// plainString decodes a JSON string the quick way, as json.Unmarshal
// would: the bytes between the quotes with the escapes of RFC 8259
// replaced, when they are valid UTF-8 with no control character and every
// \u escape of a surrogate is one of a pair. Anything else (ok false) is
// left to encoding/json.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	if !utf8.Valid(body) {
		return "", false
	}
	if bytes.IndexByte(body, '\\') >= 0 {
		return unescape(body)
	}
	for _, c := range body {
		if c < 0x20 || c == '"' {
			return "", false
		}
	}
	return string(body), true
}

// unescape replaces the escapes of a string body that is valid UTF-8.
func unescape(body []byte) (string, bool) {
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c < 0x20 || c == '"' {
			return "", false
		}
		if c != '\\' {
			j := i + 1
			for j < len(body) && body[j] != '\\' && body[j] >= 0x20 && body[j] != '"' {
				j++
			}
			out = append(out, body[i:j]...)
			i = j
			continue
		}
		if i+1 >= len(body) {
			return "", false
		}
		switch body[i+1] {
		case '"', '\\', '/':
			out = append(out, body[i+1])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := jcs.Hex4(body, i+2)
			if !ok {
				return "", false
			}
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
					return "", false
				}
				r2, ok := jcs.Hex4(body, i+2)
				if !ok {
					return "", false
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return "", false
				}
				i += 6
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", false
		}
		i += 2
	}
	return string(out), true
}
