package pack

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/store"
)

// An NDJSON line longer than tuning.bigLine is not read into memory
// whole: it is read as a stream (bigEvent), the strings of its content
// keys (content, output, normalized_output and their _base64 forms)
// unescaped straight into the store, so a 500 MB line packs in the memory
// of a few buffers. Its other values are kept, up to tuning.bigValue each.

// MaxValueOutsideContent bounds each value of an event outside its content
// keys (a step's tool, parameters, metadata), in bytes of JSON, in a line
// or an element of a document longer than 16 MiB; content has no bound. ctx record refuses a span that
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

// streamedKey reports whether a long line or element streams the string
// value of key k (a content key), and whether it is base64.
func streamedKey(k string) (b64, streamed bool) {
	switch k {
	case "content", "output", "normalized_output":
		return false, true
	case "content_base64", "output_base64", "normalized_output_base64":
		return true, true
	}
	return false, false
}

// lineReader reads one long value, an NDJSON line or an element of a
// document: first head, the bytes of it already read, then br, a byte at
// a time, never beyond the value's end, so what follows stays in br. It
// counts bytes, and in a document lines, for error positions.
type lineReader struct {
	head   []byte
	hpos   int
	br     *bufio.Reader
	last   byte // the byte just read, and whether from br (for unread)
	fromBr bool
	off    int64 // NDJSON: bytes of the line read; a document: its offset
	line   int
	lastNL int64 // a document: the offset of the last newline, -1 if none
	prevNL int64
	doc    bool // a document, where a newline is white space
}

func (l *lineReader) byte() (byte, error) {
	var c byte
	if l.hpos < len(l.head) {
		c = l.head[l.hpos]
		l.hpos++
		l.fromBr = false
	} else {
		var err error
		if c, err = l.br.ReadByte(); err != nil {
			return 0, err
		}
		l.fromBr = true
	}
	if l.doc && c == '\n' {
		l.line++
		l.prevNL, l.lastNL = l.lastNL, l.off
	}
	l.off++
	l.last = c
	return c, nil
}

// unread puts back the byte just read.
func (l *lineReader) unread() {
	if l.fromBr {
		_ = l.br.UnreadByte()
	} else {
		l.hpos--
	}
	l.off--
	if l.doc && l.last == '\n' {
		l.line--
		l.lastNL = l.prevNL
	}
}

// peek returns up to n bytes ahead without reading them; err is br's
// when there are fewer.
func (l *lineReader) peek(n int, buf []byte) ([]byte, error) {
	buf = append(buf[:0], l.head[l.hpos:min(len(l.head), l.hpos+n)]...)
	if len(buf) == n {
		return buf, nil
	}
	more, err := l.br.Peek(n - len(buf))
	return append(buf, more...), err
}

// skip moves past n bytes that peek gave, none a newline.
func (l *lineReader) skip(n int) {
	h := min(n, len(l.head)-l.hpos)
	l.hpos += h
	_, _ = l.br.Discard(n - h)
	l.off += int64(n)
}

// syntax is the error at the byte just read.
func (l *lineReader) syntax(msg string, args ...any) error {
	if l.doc {
		return at(l.off-1, l.line, l.lastNL, fmt.Sprintf(msg, args...))
	}
	return &SyntaxError{Line: l.line, Column: int(l.off), Offset: l.off, Msg: fmt.Sprintf(msg, args...)}
}

// eof words a read error: the end of input in the middle of the value is
// a truncated log.
func (l *lineReader) eof(err error) error {
	switch {
	case !errors.Is(err, io.EOF):
		return err
	case l.doc:
		return at(l.off, l.line, l.lastNL, "unexpected end of input: the log is truncated")
	}
	return l.syntax("unexpected end of input: the line is truncated")
}

// ends reports whether c ends the line (NDJSON).
func (l *lineReader) ends(c byte) bool { return c == '\n' && !l.doc }

func (l *lineReader) space() (byte, error) {
	for {
		c, err := l.byte()
		if err != nil || !jcs.IsSpace(c) || l.ends(c) {
			return c, err
		}
	}
}

// bigEvent reads the rest of a long event line, whose first bytes are
// head, and dispatches it as event does.
func (r *reader) bigEvent(head []byte, br *bufio.Reader, lineNo int, dispatch func(ev string) error) error {
	b := r.b
	l := &lineReader{head: head, br: br, line: lineNo}
	if bytes.HasSuffix(head, []byte{'\n'}) {
		l.br = bufio.NewReader(bytes.NewReader(nil)) // head is the whole line
	}
	obj, stored, err := r.bigObject(l)
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
		if !jcs.IsSpace(c) {
			return l.syntax("invalid character %q after the event", c)
		}
	}
	if !r.checkLong(obj, stored, "") {
		return nil
	}
	ev, ok := plainString(obj["event"])
	if !ok {
		b.problem("", "no \"event\" key; every line of an NDJSON log is an event (run, prompt, input, step, output)")
		return nil
	}
	b.parsed, b.stored = obj, stored
	return dispatch(ev)
}

// checkLong has jcs check the values of a long object that were kept (not
// streamed), as it checks a whole line or element; false when one is
// refused (a problem at path, the object's).
func (r *reader) checkLong(obj map[string]json.RawMessage, stored map[string]store.Result, path string) bool {
	b := r.b
	for k, raw := range obj {
		if _, ok := stored[k]; ok {
			continue
		}
		if _, err := jcs.Canonicalize(raw); err != nil {
			var je *jcs.Error
			if errors.As(err, &je) {
				b.problem(subPath(key(path, k), je.Path), "%s", je.Msg)
			} else {
				b.problem(key(path, k), "%v", err)
			}
			return false
		}
	}
	return true
}

// bigElement reads the rest of a long element of a document's array, at
// path, whose first bytes are in d.val, and adds it (add) as the element
// whole would be.
func (r *reader) bigElement(d *docReader, path string, add func()) error {
	b := r.b
	l := &lineReader{head: d.val, br: d.br, off: d.vOff, line: d.vLine, lastNL: d.vNL, prevNL: -1, doc: true}
	obj, stored, err := r.bigObject(l)
	d.off, d.line, d.lastNL, d.prevNL = l.off, l.line, l.lastNL, l.prevNL
	d.val = nil // up to a long line's worth: not kept for the next element
	if err != nil || !r.checkLong(obj, stored, path) {
		return err
	}
	b.parsed, b.stored = obj, stored
	add()
	b.parsed, b.stored = nil, nil
	return nil
}

// bigObject reads the event object: its members, with the strings of the
// content keys stored as they are read.
func (r *reader) bigObject(l *lineReader) (map[string]json.RawMessage, map[string]store.Result, error) {
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
		k, ok := plainString(rawKey) // as jcs takes it: no invalid UTF-8, no lone surrogate
		if !ok {
			if err := json.Unmarshal(rawKey, &k); err != nil {
				return nil, nil, l.syntax("bad key: %v", err)
			}
			return nil, nil, l.syntax("key %q holds invalid UTF-8 or a lone surrogate", k)
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
		if b64, streamed := streamedKey(k); streamed && c == '"' {
			if stored[k], err = r.streamString(l, b64); err != nil {
				return nil, nil, err
			}
			obj[k] = json.RawMessage(`""`) // given; its content is in stored
		} else {
			l.unread()
			if obj[k], err = l.value(r.tune.bigValue); err != nil {
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
	var s jcs.Scanner // for a string, object or array
	for {
		c, err := l.byte()
		if err != nil {
			return nil, l.eof(err)
		}
		scalar := len(out) > 0 && out[0] != '"' && out[0] != '{' && out[0] != '['
		if !s.InString() && (l.ends(c) || scalar && (c == ',' || c == '}' || c == ']' || jcs.IsSpace(c))) {
			l.unread()
			return out, nil
		}
		if len(out) == 0 && (c == '}' || c == ']') {
			return nil, l.syntax("invalid character %q", c)
		}
		out = append(out, c)
		if len(out) > max {
			return nil, l.syntax("a value of more than %d MiB outside the content keys", max>>20)
		}
		if o := out[0]; o == '"' || o == '{' || o == '[' {
			if _, done := s.Scan(out[len(out)-1:]); done {
				return out, nil
			}
		}
	}
}

// streamString unescapes the string that starts after the opening quote
// into the sink (base64-decoded for a _base64 key) and returns what was
// stored (or why not, in the Result), or the string's syntax error, which
// ends the build.
func (r *reader) streamString(l *lineReader, b64 bool) (store.Result, error) {
	b := r.b
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
	res := <-done
	return res, err
}

// unescapeTo writes the string's content, up to its closing quote, to w,
// refusing what jcs refuses in a string (control characters, invalid
// UTF-8, lone surrogates, unknown escapes).
func unescapeTo(l *lineReader, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var pend [utf8.UTFMax]byte // an incomplete UTF-8 sequence
	np := 0
	var peekBuf [12]byte
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
		// An escape: jcs decodes it from the bytes ahead.
		l.unread()
		ahead, perr := l.peek(12, peekBuf[:]) // fewer at the end of the input
		r, n, msg := jcs.Escape(ahead)
		if n == 0 {
			if perr != nil && (len(ahead) < 2 || ahead[1] == 'u' && bytes.IndexAny(ahead, "\"\n") < 0) {
				return l.eof(perr) // the input ends in the escape
			}
			l.skip(min(2, len(ahead)))
			return l.syntax("%s", msg)
		}
		l.skip(n)
		var buf [utf8.UTFMax]byte
		bw.Write(buf[:utf8.EncodeRune(buf[:], r)])
	}
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
