package mcp

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// A message the SDK cannot decode (nested deeper than Go's JSON decoder
// goes, or longer than --max-message) was still relayed: the client got
// it. Its top-level members are found here without decoding it, so that
// an answer to a call is recorded as the bytes that passed, and served
// back as they are.

// members follows a JSON object a piece at a time, as a relay sees it,
// and notes where the values of its top-level members "id", "result" and
// "error" are: the id's bytes (up to maxID), the others' offsets. Like
// jcs.Scanner it follows brackets and strings only: the message passed
// as it was and is not checked here. The zero value is before the first
// byte.
type members struct {
	off   int64 // bytes seen so far
	state int
	key   []byte // the key being read, quotes included, up to a few bytes: only short keys matter
	cur   string // the member whose value is being read
	value jcs.Scanner
	lit   bool // the value is a number or a literal
	start int64

	id                     []byte // the id's bytes; nil when none was seen or it was too long
	result, error          span   // offsets of the values; end 0 when absent
	idTooLong, notAnObject bool
}

type span struct{ start, end int64 }

const maxID = 1 << 10

// The states of members.
const (
	mBefore  = iota // before the object's '{'
	mKey            // before a key, or the object's end
	mInKey          // in a key
	mColon          // after a key
	mValue          // before a value
	mInValue        // in a value
	mNext           // after a value: ',' or the end
	mDone           // after the object
)

// Write follows p, the next bytes of the message; it never fails.
func (m *members) Write(p []byte) (int, error) {
	for i := 0; i < len(p); {
		c := p[i]
		switch m.state {
		case mBefore, mKey, mColon, mValue, mNext:
			if jcs.IsSpace(c) {
				m.off++
				i++
				continue
			}
		}
		switch m.state {
		case mBefore:
			if c != '{' {
				m.notAnObject, m.state = true, mDone
				break
			}
			m.state = mKey
		case mKey:
			switch c {
			case '"':
				m.key, m.value, m.state = m.key[:0], jcs.Scanner{}, mInKey
				continue // the quote is the key's
			case '}':
				m.state = mDone
			default: // a ',' where it is not expected, or garbage: go on
			}
		case mInKey:
			n, done := m.value.Scan(p[i:])
			if len(m.key) < 10 { // the keys that matter are short
				m.key = append(m.key, p[i:i+min(n, 10)]...)
			}
			m.off += int64(n)
			i += n
			if done {
				m.cur = strings.Trim(string(m.key), `"`)
				m.state = mColon
			}
			continue
		case mColon:
			if c == ':' {
				m.state = mValue
			}
		case mValue:
			m.start, m.value, m.lit = m.off, jcs.Scanner{}, c != '"' && c != '{' && c != '['
			if m.cur == "id" { // the last of the key's values counts, as for a decoder
				m.id, m.idTooLong = []byte{}, false
			}
			m.state = mInValue
			continue // the value's first byte is the value's
		case mInValue:
			n, done := len(p)-i, false
			if m.lit {
				n = 0
				for i+n < len(p) && !jcs.IsSpace(p[i+n]) && p[i+n] != ',' && p[i+n] != '}' {
					n++
				}
				done = i+n < len(p)
			} else {
				n, done = m.value.Scan(p[i:])
			}
			if m.cur == "id" {
				m.keepID(p[i : i+n])
			}
			m.off += int64(n)
			i += n
			if done {
				m.endValue()
			}
			continue
		case mNext:
			switch c {
			case ',':
				m.state = mKey
			case '}':
				m.state = mDone
			}
		case mDone:
			m.off += int64(len(p) - i)
			return len(p), nil
		}
		m.off++
		i++
	}
	return len(p), nil
}

func (m *members) keepID(b []byte) {
	if m.idTooLong {
		return
	}
	if len(m.id)+len(b) > maxID {
		m.id, m.idTooLong = nil, true
		return
	}
	m.id = append(m.id, b...)
}

func (m *members) endValue() {
	sp := span{m.start, m.off}
	switch m.cur {
	case "result":
		m.result = sp
	case "error":
		m.error = sp
	}
	m.state = mNext
}

// end is called at the message's end: a literal value ends there too.
func (m *members) end() {
	if m.state == mInValue && m.lit {
		m.endValue()
	}
}

// ID is the message's id as idKey spells it, "" when it has none usable.
func (m *members) ID() string {
	if len(m.id) == 0 {
		return ""
	}
	var v any
	if json.Unmarshal(m.id, &v) != nil {
		return ""
	}
	switch v := v.(type) {
	case string:
		b, _ := json.Marshal(v)
		return string(b)
	case float64: // as the SDK takes a number id: an integer
		return strconv.FormatInt(int64(v), 10)
	}
	return ""
}

// answer is the span of the message's answer: its result, else its
// error (rpcError), else the whole message.
func (m *members) answer(size int64) (sp span, rpcError bool) {
	switch {
	case m.result.end > 0:
		return m.result, false
	case m.error.end > 0:
		return m.error, true
	}
	return span{0, size}, false
}

// scanMembers follows a whole message held in memory.
func scanMembers(msg []byte) *members {
	m := new(members)
	_, _ = m.Write(msg)
	m.end()
	return m
}

// stringWriter writes what it is given as the body of a JSON string: the
// characters JSON asks to escape escaped, and invalid UTF-8 replaced by
// U+FFFD as encoding/json does, a sequence cut between two writes kept
// for the next. Close writes what is left.
type stringWriter struct {
	w     io.Writer
	carry []byte
	buf   []byte
}

func (s *stringWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(s.carry) > 0 {
		p = append(s.carry, p...)
		s.carry = nil
	}
	out := s.buf[:0]
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				out = append(out, '\\', c)
			case c == '\n':
				out = append(out, `\n`...)
			case c == '\r':
				out = append(out, `\r`...)
			case c == '\t':
				out = append(out, `\t`...)
			case c < 0x20:
				out = append(out, `\u00`...)
				out = append(out, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			default:
				out = append(out, c)
			}
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			s.carry = append([]byte(nil), p[i:]...)
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			out = append(out, `\ufffd`...)
		} else {
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	s.buf = out
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// Close writes a sequence left cut at the end, as U+FFFD each byte.
func (s *stringWriter) Close() error {
	if len(s.carry) == 0 {
		return nil
	}
	_, err := s.w.Write(bytes.Repeat([]byte(`\ufffd`), len(s.carry)))
	s.carry = nil
	return err
}

// overNote says why an answer over the bound was not decoded.
func overNote(size, max int64) string {
	return "over --max-message: " + strconv.FormatInt(size, 10) + " bytes, the bound " + strconv.FormatInt(max, 10)
}
