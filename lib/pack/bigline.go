package pack

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/store"
)

// An NDJSON line longer than bigLine is not read into memory whole: it is
// read as a stream (bigEvent), the strings of its content keys (content,
// output, normalized_output and their _base64 forms) unescaped straight
// into the store, so a 500 MB line packs in the memory of a few buffers.
// Its other values are kept, up to bigValue each. (Variables for the
// tests.)
var (
	bigLine  = 16 << 20
	bigValue = MaxValueOutsideContent
	allLong  = false // every line read as long
)

// MaxValueOutsideContent bounds each value of an event outside its content
// keys (a step's tool, parameters, metadata), in bytes of JSON, in a line
// longer than 16 MiB; content has no bound. ctx record refuses a span that
// would need more.
const MaxValueOutsideContent = 16 << 20

// readLineUpTo is ReadLine that stops at limit bytes: whole is false when
// the line goes on beyond what it returns.
func readLineUpTo(br *bufio.Reader, buf []byte, limit int) (line []byte, whole bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, true, err
		}
		if len(buf) >= limit {
			return buf, false, nil
		}
	}
}

// streamedKeys are the keys whose string values a long line streams, and
// whether each is base64.
var streamedKeys = map[string]bool{
	"content": false, "content_base64": true,
	"output": false, "output_base64": true,
	"normalized_output": false, "normalized_output_base64": true,
}

// lineReader reads one long line, counting bytes for error positions.
type lineReader struct {
	r      *bufio.Reader
	off    int64 // bytes of the line read
	lineNo int
}

func (l *lineReader) byte() (byte, error) {
	c, err := l.r.ReadByte()
	if err == nil {
		l.off++
	}
	return c, err
}

func (l *lineReader) unread() {
	_ = l.r.UnreadByte()
	l.off--
}

func (l *lineReader) syntax(msg string, args ...any) error {
	return &SyntaxError{Line: l.lineNo, Column: int(l.off), Offset: l.off, Msg: fmt.Sprintf(msg, args...)}
}

// eof words a read error: the end of input in the middle of the line is a
// truncated log.
func (l *lineReader) eof(err error) error {
	if errors.Is(err, io.EOF) {
		return l.syntax("unexpected end of input: the line is truncated")
	}
	return err
}

func (l *lineReader) space() (byte, error) {
	for {
		c, err := l.byte()
		if err != nil || !isSpace(c) || c == '\n' {
			return c, err
		}
	}
}

// bigEvent reads the rest of a long event line, whose first bytes are
// head, and dispatches it as event does.
func (b *builder) bigEvent(head []byte, br *bufio.Reader, lineNo int, dispatch func(ev string) error) error {
	l := &lineReader{r: bufio.NewReaderSize(io.MultiReader(bytes.NewReader(head), br), 256<<10), lineNo: lineNo}
	obj, stored, err := b.bigObject(l)
	if err != nil {
		return err
	}
	// The rest of the line: white space only.
	for {
		c, err := l.byte()
		if errors.Is(err, io.EOF) || c == '\n' {
			break
		}
		if err != nil {
			return err
		}
		if !isSpace(c) {
			return l.syntax("invalid character %q after the event", c)
		}
	}
	for k, raw := range obj {
		if _, ok := stored[k]; ok {
			continue
		}
		if _, err := jcs.Canonicalize(raw); err != nil {
			var je *jcs.Error
			if errors.As(err, &je) {
				b.problem(subPath(k, je.Path), "%s", je.Msg)
			} else {
				b.problem(k, "%v", err)
			}
			return nil
		}
	}
	ev, ok := plainString(obj["event"])
	if !ok {
		b.problem("", "no \"event\" key; every line of an NDJSON log is an event (run, prompt, input, step, output)")
		return nil
	}
	b.parsed, b.stored = obj, stored
	return dispatch(ev)
}

// bigObject reads the event object: its members, with the strings of the
// content keys stored as they are read.
func (b *builder) bigObject(l *lineReader) (map[string]json.RawMessage, map[string]store.Result, error) {
	c, err := l.space()
	if err != nil {
		return nil, nil, l.eof(err)
	}
	if c != '{' {
		return nil, nil, l.syntax("invalid character %q: each line must be a JSON object with an \"event\" key", c)
	}
	obj := map[string]json.RawMessage{}
	stored := map[string]store.Result{}
	for first := true; ; first = false {
		c, err := l.space()
		if err != nil {
			return nil, nil, l.eof(err)
		}
		if c == '}' && first {
			return obj, stored, nil
		}
		if c != '"' {
			return nil, nil, l.syntax("invalid character %q looking for a key", c)
		}
		l.unread()
		rawKey, err := l.value(64 << 10)
		if err != nil {
			return nil, nil, err
		}
		var k string
		if err := json.Unmarshal(rawKey, &k); err != nil {
			return nil, nil, l.syntax("bad key: %v", err)
		}
		if _, dup := obj[k]; dup {
			return nil, nil, l.syntax("key %q given twice", k)
		}
		if c, err = l.space(); err != nil || c != ':' {
			return nil, nil, l.syntax("expected ':' after the key %q", k)
		}
		if c, err = l.space(); err != nil {
			return nil, nil, l.eof(err)
		}
		if b64, streamed := streamedKeys[k]; streamed && c == '"' {
			if stored[k], err = b.streamString(l, b64); err != nil {
				return nil, nil, err
			}
			obj[k] = json.RawMessage(`""`) // given; its content is in stored
		} else {
			l.unread()
			if obj[k], err = l.value(bigValue); err != nil {
				return nil, nil, err
			}
		}
		if c, err = l.space(); err != nil {
			return nil, nil, l.eof(err)
		}
		switch c {
		case '}':
			return obj, stored, nil
		case ',':
		default:
			return nil, nil, l.syntax("invalid character %q after a member, expected ',' or '}'", c)
		}
	}
}

// value reads one JSON value's bytes (checked later, by jcs), at most max.
func (l *lineReader) value(max int) ([]byte, error) {
	var out []byte
	depth, inStr, esc := 0, false, false
	for {
		c, err := l.byte()
		if err != nil {
			return nil, l.eof(err)
		}
		if !inStr && (c == '\n' || ((c == ',' || c == '}' || c == ']' || isSpace(c)) && depth == 0 && len(out) > 0 && out[0] != '"' && out[0] != '{' && out[0] != '[')) {
			l.unread()
			return out, nil
		}
		out = append(out, c)
		if len(out) > max {
			return nil, l.syntax("a value of more than %d MiB outside the content keys", max>>20)
		}
		switch {
		case inStr && esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case inStr && c == '"':
			inStr = false
			if depth == 0 {
				return out, nil
			}
		case inStr:
		case c == '"':
			inStr = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
			if depth == 0 {
				return out, nil
			}
			if depth < 0 {
				return nil, l.syntax("invalid character %q", c)
			}
		}
	}
}

// streamString unescapes the string that starts after the opening quote
// into the sink (base64-decoded for a _base64 key) and returns what was
// stored (or why not, in the Result), or the string's syntax error, which
// ends the build.
func (b *builder) streamString(l *lineReader, b64 bool) (store.Result, error) {
	pr, pw := io.Pipe()
	done := make(chan store.Result, 1)
	go func() {
		var src io.Reader = pr
		if b64 {
			src = &base64Stream{r: pr}
		}
		h, n, err := b.sink.PutReader(src)
		pr.CloseWithError(err)
		done <- store.Result{Hash: h, Size: n, Err: err}
	}()
	err := unescapeTo(l, pw)
	pw.CloseWithError(err)
	r := <-done
	return r, err
}

// unescapeTo writes the string's content, up to its closing quote, to w,
// refusing what jcs refuses in a string (control characters, invalid
// UTF-8, lone surrogates, unknown escapes).
func unescapeTo(l *lineReader, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var pend [utf8.UTFMax]byte // an incomplete UTF-8 sequence
	np := 0
	for {
		c, err := l.byte()
		if err != nil {
			return l.eof(err)
		}
		if np > 0 || c >= utf8.RuneSelf {
			pend[np] = c
			np++
			if utf8.FullRune(pend[:np]) {
				r, size := utf8.DecodeRune(pend[:np])
				if r == utf8.RuneError && size <= 1 {
					return l.syntax("invalid UTF-8 in string")
				}
				bw.Write(pend[:np])
				np = 0
			}
			continue
		}
		switch {
		case c == '"':
			return bw.Flush()
		case c < 0x20:
			return l.syntax("control character U+%04X in string must be escaped", c)
		case c != '\\':
			bw.WriteByte(c)
			continue
		}
		e, err := l.byte()
		if err != nil {
			return l.eof(err)
		}
		switch e {
		case '"', '\\', '/':
			bw.WriteByte(e)
		case 'b':
			bw.WriteByte('\b')
		case 'f':
			bw.WriteByte('\f')
		case 'n':
			bw.WriteByte('\n')
		case 'r':
			bw.WriteByte('\r')
		case 't':
			bw.WriteByte('\t')
		case 'u':
			r, err := l.hex4()
			if err != nil {
				return err
			}
			if utf16.IsSurrogate(r) {
				c1, err1 := l.byte()
				c2, err2 := l.byte()
				if err1 != nil || err2 != nil || c1 != '\\' || c2 != 'u' {
					return l.syntax("lone surrogate \\u%x in string", r)
				}
				r2, err := l.hex4()
				if err != nil {
					return err
				}
				if r = utf16.DecodeRune(r, r2); r == utf8.RuneError {
					return l.syntax("lone surrogate in string")
				}
			}
			var buf [utf8.UTFMax]byte
			bw.Write(buf[:utf8.EncodeRune(buf[:], r)])
		default:
			return l.syntax("invalid escape \\%c in string", e)
		}
	}
}

func (l *lineReader) hex4() (rune, error) {
	var b [4]byte
	for i := range b {
		c, err := l.byte()
		if err != nil {
			return 0, l.eof(err)
		}
		b[i] = c
	}
	r, ok := jcs.Hex4(b[:], 0)
	if !ok {
		return 0, l.syntax("invalid \\u escape in string")
	}
	return r, nil
}

// base64Stream decodes base64 as decodeBase64 does (padded, or failing
// that unpadded; line breaks ignored), a group at a time.
type base64Stream struct {
	r    io.Reader
	in   []byte // characters not yet decoded
	out  []byte // decoded bytes not yet read
	read int64  // characters consumed, for errors
	eof  bool
	buf  [64 << 10]byte
}

func (s *base64Stream) Read(p []byte) (int, error) {
	for len(s.out) == 0 {
		if s.eof {
			return 0, io.EOF
		}
		n, err := s.r.Read(s.buf[:])
		for _, c := range s.buf[:n] {
			if c != '\r' && c != '\n' {
				s.in = append(s.in, c)
			}
		}
		if errors.Is(err, io.EOF) {
			s.eof = true
		} else if err != nil {
			return 0, err
		}
		// Decode whole groups, keeping the last one (it may be padded or
		// short) until the end.
		k := len(s.in) / 4 * 4
		if !s.eof && k > 0 {
			k -= 4
		}
		if s.eof {
			k = len(s.in)
		}
		if k == 0 {
			continue
		}
		enc := base64.StdEncoding
		if s.eof && k%4 != 0 {
			enc = base64.RawStdEncoding
		}
		dec := make([]byte, enc.DecodedLen(k))
		m, err := enc.Decode(dec, s.in[:k])
		if err != nil {
			var ce base64.CorruptInputError
			if errors.As(err, &ce) {
				return 0, base64.CorruptInputError(s.read + int64(ce))
			}
			return 0, err
		}
		s.read += int64(k)
		s.out = dec[:m]
		s.in = append(s.in[:0], s.in[k:]...)
	}
	n := copy(p, s.out)
	s.out = s.out[n:]
	return n, nil
}
