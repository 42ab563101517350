package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Some agents write their tool calls as Python literals, the repr() of a
// list of dicts (smolagents' "Calling tools:\n[{'id': ..., 'function':
// {...}}]"), not as JSON. pyLiteral reads the part of Python's literal
// syntax repr() writes for such values: dicts, lists, tuples, strings in
// single or double quotes with their escapes (and the b prefix of bytes),
// integers, floats, True, False and None. It is bounded: nesting deeper
// than pyMaxDepth is refused, and it reads nothing but the text it is
// given.

// pyMaxDepth bounds the nesting of a Python literal.
const pyMaxDepth = 64

// pyLiteral reads the Python literal at the start of s and returns it as
// the values JSON decoding gives (map[string]any, []any, string,
// json.Number, bool, nil) and the bytes it took (white space after it
// included). A dict key that is not a string becomes the text of its
// repr(), so a dict is always a JSON object.
func pyLiteral(s string) (any, int, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return nil, p.i, err
	}
	p.space()
	return v, p.i, nil
}

type pyParser struct {
	s string
	i int
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("Python literal, offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *pyParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *pyParser) value(depth int) (any, error) {
	if depth > pyMaxDepth {
		return nil, p.errorf("nested deeper than %d", pyMaxDepth)
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.dict(depth)
	case c == '[':
		return p.list(depth, ']')
	case c == '(':
		return p.list(depth, ')')
	case c == '\'' || c == '"':
		return p.str()
	case (c == 'b' || c == 'B') && p.i+1 < len(p.s) && (p.s[p.i+1] == '\'' || p.s[p.i+1] == '"'):
		p.i++
		return p.str()
	case c == '-' || c == '+' || c == '.' || c >= '0' && c <= '9':
		return p.number()
	}
	word := p.word()
	switch word {
	case "True":
		return true, nil
	case "False":
		return false, nil
	case "None":
		return nil, nil
	case "inf", "nan":
		// repr() of float('inf') and float('nan'): no JSON number.
		return word, nil
	case "":
		return nil, p.errorf("unexpected %q", p.s[p.i])
	}
	return nil, p.errorf("%q is not a literal", word)
}

func (p *pyParser) word() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			break
		}
		p.i++
	}
	return p.s[start:p.i]
}

func (p *pyParser) dict(depth int) (any, error) {
	p.i++ // {
	m := map[string]any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return m, nil
		}
		kstart := p.i
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		key, ok := k.(string)
		if !ok {
			key = strings.TrimSpace(p.s[kstart:p.i])
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			if len(m) == 0 && (p.i < len(p.s) && (p.s[p.i] == ',' || p.s[p.i] == '}')) {
				return nil, p.errorf("a set, not a dict")
			}
			return nil, p.errorf("expected ':' after a dict key")
		}
		p.i++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[key] = v
		if done, err := p.next('}'); err != nil || done {
			return m, err
		}
	}
}

func (p *pyParser) list(depth int, end byte) (any, error) {
	p.i++ // [ or (
	out := []any{}
	for {
		p.space()
		if p.i < len(p.s) && p.s[p.i] == end {
			p.i++
			return out, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		if done, err := p.next(end); err != nil || done {
			return out, err
		}
	}
}

// next reads the ',' between elements, or the end of the container.
func (p *pyParser) next(end byte) (bool, error) {
	p.space()
	if p.i >= len(p.s) {
		return false, p.errorf("unexpected end")
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return false, nil
	case end:
		p.i++
		return true, nil
	}
	return false, p.errorf("expected ',' or %q, not %q", end, p.s[p.i])
}

func (p *pyParser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' || p.s[p.i] == '+' {
		p.i++
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c >= '0' && c <= '9' || c == '.' || c == '_' || c == 'e' || c == 'E' {
			p.i++
			continue
		}
		if (c == '-' || c == '+') && (p.s[p.i-1] == 'e' || p.s[p.i-1] == 'E') {
			p.i++
			continue
		}
		break
	}
	text := strings.ReplaceAll(p.s[start:p.i], "_", "")
	if w := p.word(); w == "inf" && (text == "-" || text == "+") {
		return text + w, nil
	} else if w != "" {
		return nil, p.errorf("%q is not a number", p.s[start:p.i])
	}
	text = strings.TrimPrefix(text, "+")
	if _, err := strconv.ParseFloat(text, 64); err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, p.errorf("%q is not a number", p.s[start:p.i])
	}
	// JSON's form of the number: no leading '.', no trailing '.'.
	if strings.HasPrefix(text, ".") {
		text = "0" + text
	} else if strings.HasPrefix(text, "-.") {
		text = "-0" + text[1:]
	}
	if strings.HasSuffix(text, ".") {
		text += "0"
	}
	text = strings.Replace(strings.Replace(text, ".e", ".0e", 1), ".E", ".0E", 1)
	if !json.Valid([]byte(text)) {
		// 007 and the like: Python 2 octal, no JSON number.
		return nil, p.errorf("%q is not a number", p.s[start:p.i])
	}
	return json.Number(text), nil
}

// str reads a quoted string with Python's escapes.
func (p *pyParser) str() (any, error) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated string")
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), nil
		case c == '\n':
			return nil, p.errorf("a line break inside a string")
		case c != '\\':
			_, n := utf8.DecodeRuneInString(p.s[p.i:])
			b.WriteString(p.s[p.i : p.i+n])
			p.i += n
			continue
		}
		p.i++ // the backslash
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated string")
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\n':
			// A line continuation.
		case 'x', 'u', 'U':
			n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			if p.i+n > len(p.s) {
				return nil, p.errorf("short \\%c escape", e)
			}
			r, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
			if err != nil || r > utf8.MaxRune {
				return nil, p.errorf("bad \\%c escape", e)
			}
			p.i += n
			b.WriteRune(rune(r))
		case '0', '1', '2', '3', '4', '5', '6', '7':
			r := int(e - '0')
			for k := 0; k < 2 && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '7'; k++ {
				r = r*8 + int(p.s[p.i]-'0')
				p.i++
			}
			b.WriteRune(rune(r))
		default:
			// Python keeps an unknown escape as written.
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
}
