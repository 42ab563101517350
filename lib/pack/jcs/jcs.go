// Package jcs produces the RFC 8785 JSON Canonicalization Scheme form of a
// JSON value, the byte-exact encoding the project hashes with SHA-256 to
// identify agent-run manifests.
//
// A hash commits to exactly one reading of a document, so this package must
// never accept input it cannot represent faithfully: invalid UTF-8, escaped
// lone surrogates, duplicate object keys, numbers that overflow a double and
// integer literals that a double would silently round are refused with an
// *Error rather than repaired or guessed at. It also must never let input
// size or shape turn into unbounded work: nesting is capped and no
// arbitrary-precision arithmetic is performed on attacker-chosen exponents.
package jcs

import (
	"encoding/binary"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// maxDepth bounds nesting so hostile input yields an error instead of
// growing the recursive descent's stack without limit.
const maxDepth = 1000

// Error describes why a value cannot be canonicalized.
type Error struct {
	Offset int64  // byte offset in src where the problem is
	Path   string // jq-style path of the offending value relative to the root: "" for the root, ".a.b[2]", `.["key with space"]`
	Msg    string
}

// Error formats the error as "PATH: MSG", or "byte OFFSET: MSG" for problems at the root.
func (e *Error) Error() string {
	if e.Path != "" {
		return e.Path + ": " + e.Msg
	}
	return "byte " + strconv.FormatInt(e.Offset, 10) + ": " + e.Msg
}

// Canonicalize returns the RFC 8785 canonical form of the JSON value in src.
func Canonicalize(src []byte) ([]byte, error) {
	out, err := Append(make([]byte, 0, len(src)+8), src)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Append appends the canonical form of src to dst, returning dst unchanged with the error if src cannot be canonicalized.
func Append(dst, src []byte) ([]byte, error) {
	p := parserPool.Get().(*parser)
	p.src = src
	p.pos = 0
	p.out = dst
	ok := p.document()
	if ok {
		p.finish()
	}
	out := p.out
	var err *Error
	if !ok {
		err = p.makeError()
	}
	p.release()
	if err != nil {
		// Bytes may already have been written into dst's spare capacity;
		// returning the original header hides them from the caller.
		return dst, err
	}
	return out, nil
}

// member records one object member already written to the output, so the
// object can be reordered once all of its members are known.
type member struct {
	rawStart, rawEnd int // key content in src, escapes still encoded
	decStart, decEnd int // decoded key: in arena if inArena, else same as raw
	inArena          bool
	start, end       int // `"key":value` in out, without separating commas
}

// seg is one step of the path to a failing value, collected while the
// recursive descent unwinds so that the happy path never builds paths.
type seg struct {
	isKey            bool
	rawStart, rawEnd int
	index            int
}

type parser struct {
	src []byte
	pos int
	out []byte

	members []member // shared stack: each open object owns a suffix
	arena   []byte   // decoded keys that contained escapes
	keys    []sortKey

	// Deferred reordering, applied once by finish.
	unsorted []reorder
	order    []span
	tmp      []byte // the output region being reordered
	tmpBase  int    // output offset of tmp[0]

	errOff int
	errMsg string
	segs   []seg
}

var parserPool = sync.Pool{New: func() any { return new(parser) }}

// release drops references to caller memory and oversized scratch space
// before the parser goes back to the pool.
func (p *parser) release() {
	p.src, p.out = nil, nil
	p.members = p.members[:0]
	p.arena = p.arena[:0]
	p.tmp = p.tmp[:0]
	p.unsorted = p.unsorted[:0]
	p.order = p.order[:0]
	p.segs = p.segs[:0]
	p.errMsg = ""
	// Big enough to keep the scratch for typical multi-megabyte manifests,
	// small enough that an idle pool does not pin much memory.
	const keep = 8 << 20
	if cap(p.tmp) > keep {
		p.tmp = nil
	}
	if cap(p.arena) > keep {
		p.arena = nil
	}
	if cap(p.members) > keep/64 {
		p.members = nil
	}
	if cap(p.keys) > keep/64 {
		p.keys = nil
	}
	if cap(p.unsorted) > keep/64 {
		p.unsorted = nil
	}
	if cap(p.order) > keep/64 {
		p.order = nil
	}
	parserPool.Put(p)
}

func (p *parser) fail(off int, msg string) bool {
	p.errOff = off
	p.errMsg = msg
	p.segs = p.segs[:0]
	return false
}

func (p *parser) pushIndex(i int) bool {
	p.segs = append(p.segs, seg{index: i})
	return false
}

func (p *parser) pushKey(rawStart, rawEnd int) bool {
	p.segs = append(p.segs, seg{isKey: true, rawStart: rawStart, rawEnd: rawEnd})
	return false
}

func (p *parser) makeError() *Error {
	var b []byte
	for i := len(p.segs) - 1; i >= 0; i-- {
		s := p.segs[i]
		if !s.isKey {
			if len(b) == 0 {
				b = append(b, '.')
			}
			b = append(b, '[')
			b = strconv.AppendInt(b, int64(s.index), 10)
			b = append(b, ']')
			continue
		}
		key := unescape(nil, p.src[s.rawStart:s.rawEnd])
		if isIdent(key) {
			b = append(b, '.')
			b = append(b, key...)
		} else {
			b = append(b, ".["...)
			b = appendQuoted(b, key)
			b = append(b, ']')
		}
	}
	return &Error{Offset: int64(p.errOff), Path: string(b), Msg: p.errMsg}
}

func isIdent(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	for i, c := range s {
		if c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return true
}

func (p *parser) skipWS() {
	src, i := p.src, p.pos
	for i < len(src) {
		switch src[i] {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		}
		break
	}
	p.pos = i
}

func (p *parser) document() bool {
	p.skipWS()
	if p.pos >= len(p.src) {
		return p.fail(p.pos, "empty input")
	}
	if !p.value(0) {
		return false
	}
	p.skipWS()
	if p.pos < len(p.src) {
		return p.fail(p.pos, "unexpected "+describe(p.src[p.pos])+" after top-level value")
	}
	return true
}

// describe names a byte for an error message without echoing raw control
// or non-ASCII bytes into text meant for logs.
func describe(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "character " + strconv.QuoteRune(rune(c))
	}
	return "byte 0x" + string(hexDigits[c>>4]) + string(hexDigits[c&0xf])
}

// value expects p.pos to be at the first byte of a value, whitespace skipped.
func (p *parser) value(depth int) bool {
	if p.pos >= len(p.src) {
		return p.fail(p.pos, "unexpected end of input, expected a value")
	}
	switch c := p.src[p.pos]; c {
	case '{':
		return p.object(depth + 1)
	case '[':
		return p.array(depth + 1)
	case '"':
		_, ok := p.str()
		return ok
	case 't':
		return p.literal("true")
	case 'f':
		return p.literal("false")
	case 'n':
		return p.literal("null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return p.number()
	default:
		return p.fail(p.pos, "unexpected "+describe(c)+", expected a value")
	}
}

func (p *parser) literal(lit string) bool {
	end := p.pos + len(lit)
	if end > len(p.src) || string(p.src[p.pos:end]) != lit || end < len(p.src) && isAlnum(p.src[end]) {
		return p.fail(p.pos, "invalid literal, expected "+lit)
	}
	p.out = append(p.out, lit...)
	p.pos = end
	return true
}

func isAlnum(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func (p *parser) array(depth int) bool {
	if depth > maxDepth {
		return p.fail(p.pos, "nesting deeper than "+strconv.Itoa(maxDepth)+" levels")
	}
	p.pos++
	p.out = append(p.out, '[')
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		p.out = append(p.out, ']')
		return true
	}
	for i := 0; ; i++ {
		if !p.value(depth) {
			return p.pushIndex(i)
		}
		p.skipWS()
		if p.pos >= len(p.src) {
			return p.fail(p.pos, "unexpected end of input in array")
		}
		switch c := p.src[p.pos]; c {
		case ',':
			p.pos++
			p.out = append(p.out, ',')
			p.skipWS()
		case ']':
			p.pos++
			p.out = append(p.out, ']')
			return true
		default:
			return p.fail(p.pos, "unexpected "+describe(c)+" after array element, expected ',' or ']'")
		}
	}
}

func (p *parser) object(depth int) bool {
	if depth > maxDepth {
		return p.fail(p.pos, "nesting deeper than "+strconv.Itoa(maxDepth)+" levels")
	}
	p.pos++
	p.out = append(p.out, '{')
	p.skipWS()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		p.out = append(p.out, '}')
		return true
	}
	base := len(p.members)
	arenaBase := len(p.arena)
	body := len(p.out)
	for {
		if p.pos >= len(p.src) {
			return p.fail(p.pos, "unexpected end of input in object")
		}
		if c := p.src[p.pos]; c != '"' {
			return p.fail(p.pos, "unexpected "+describe(c)+", expected a string key")
		}
		if len(p.members) > base {
			p.out = append(p.out, ',')
		}
		m := member{start: len(p.out), rawStart: p.pos + 1}
		escaped, ok := p.str()
		if !ok {
			return false
		}
		m.rawEnd = p.pos - 1
		if escaped {
			m.inArena = true
			m.decStart = len(p.arena)
			p.arena = unescape(p.arena, p.src[m.rawStart:m.rawEnd])
			m.decEnd = len(p.arena)
		} else {
			m.decStart, m.decEnd = m.rawStart, m.rawEnd
		}
		p.skipWS()
		if p.pos >= len(p.src) {
			return p.fail(p.pos, "unexpected end of input in object")
		}
		if c := p.src[p.pos]; c != ':' {
			return p.fail(p.pos, "unexpected "+describe(c)+" after object key, expected ':'")
		}
		p.pos++
		p.out = append(p.out, ':')
		p.skipWS()
		if !p.value(depth) {
			return p.pushKey(m.rawStart, m.rawEnd)
		}
		m.end = len(p.out)
		p.members = append(p.members, m)
		p.skipWS()
		if p.pos >= len(p.src) {
			return p.fail(p.pos, "unexpected end of input in object")
		}
		c := p.src[p.pos]
		if c == '}' {
			p.pos++
			break
		}
		if c != ',' {
			return p.fail(p.pos, "unexpected "+describe(c)+" after object member, expected ',' or '}'")
		}
		p.pos++
		p.skipWS()
	}
	if !p.sortMembers(p.members[base:], body) {
		return false
	}
	p.out = append(p.out, '}')
	p.members = p.members[:base]
	p.arena = p.arena[:arenaBase]
	return true
}

func (p *parser) key(m *member) []byte {
	if m.inArena {
		return p.arena[m.decStart:m.decEnd]
	}
	return p.src[m.decStart:m.decEnd]
}

// sortKey pairs a decoded key with its member so sorting moves 32-byte
// values and never re-resolves where a key lives.
type sortKey struct {
	key []byte
	m   int
}

// sortMembers works out the RFC 8785 order of the members written at
// out[body:] and rejects duplicate keys, which only become adjacent once
// sorted.
func (p *parser) sortMembers(ms []member, body int) bool {
	ks := p.keys[:0]
	for i := range ms {
		ks = append(ks, sortKey{p.key(&ms[i]), i})
	}
	ok := p.sortKeys(ms, ks, body)
	// Keys point into src and the arena; drop them before the slice can
	// outlive this call in the pool.
	clear(ks)
	p.keys = ks[:0]
	return ok
}

func (p *parser) sortKeys(ms []member, ks []sortKey, body int) bool {
	sorted := true
	for i := 1; i < len(ks); i++ {
		c := compareUTF16(ks[i-1].key, ks[i].key)
		if c == 0 {
			return p.duplicate(&ms[i])
		}
		if c > 0 {
			sorted = false
			break
		}
	}
	if sorted {
		return true
	}
	if len(ks) <= 16 {
		for i := 1; i < len(ks); i++ {
			for j := i; j > 0 && compareUTF16(ks[j-1].key, ks[j].key) > 0; j-- {
				ks[j-1], ks[j] = ks[j], ks[j-1]
			}
		}
	} else {
		slices.SortFunc(ks, func(a, b sortKey) int { return compareUTF16(a.key, b.key) })
	}
	for i := 1; i < len(ks); i++ {
		if compareUTF16(ks[i-1].key, ks[i].key) == 0 {
			// Name the later occurrence: the first one was legitimate
			// until the second appeared.
			return p.duplicate(&ms[max(ks[i-1].m, ks[i].m)])
		}
	}
	// Record the order instead of moving bytes now: moving at every level
	// would copy a large member once per enclosing unsorted object, letting
	// deep input multiply the work by the nesting depth.
	lo := len(p.order)
	for _, k := range ks {
		p.order = append(p.order, span{ms[k.m].start, ms[k.m].end})
	}
	// The closing brace is appended right after this returns.
	p.unsorted = append(p.unsorted, reorder{start: body - 1, end: len(p.out) + 1, lo: lo, hi: len(p.order)})
	return true
}

// span is a member's `"key":value` bytes in the output.
type span struct{ start, end int }

// reorder is an object whose members were written in source order and must
// be emitted in the order order[lo:hi] gives.
type reorder struct {
	start, end int // the object's braces in the output, end exclusive
	lo, hi     int // its members in sorted order, as indexes into order
}

// finish applies all recorded reorders in one pass, so every output byte
// is moved at most once whatever the nesting.
func (p *parser) finish() {
	if len(p.unsorted) == 0 {
		return
	}
	// Objects were recorded as they closed, children before parents;
	// emission walks them in document order.
	slices.SortFunc(p.unsorted, func(a, b reorder) int { return a.start - b.start })
	lo, hi := p.unsorted[0].start, 0
	for _, r := range p.unsorted {
		hi = max(hi, r.end)
	}
	p.tmp = append(p.tmp[:0], p.out[lo:hi]...)
	p.tmpBase = lo
	if w := p.emit(lo, lo, hi, 0, len(p.unsorted)); w != hi {
		panic("jcs: reordering changed the output length")
	}
}

// emit copies the output bytes [lo, hi), as saved in tmp, back to out[w:]
// with every unsorted object inside rewritten in sorted order, and returns
// the new write position. Only unsorted[k:kEnd] can start inside [lo, hi).
func (p *parser) emit(w, lo, hi, k, kEnd int) int {
	u := p.unsorted[:kEnd]
	k = searchStart(u, k, lo)
	for k < len(u) && u[k].start < hi {
		r := u[k]
		// Objects nested in r follow it directly in document order.
		inner := k + 1
		k = searchStart(u, inner, r.end)
		w += copy(p.out[w:], p.tmp[lo-p.tmpBase:r.start-p.tmpBase])
		p.out[w] = '{'
		w++
		for i, m := range p.order[r.lo:r.hi] {
			if i > 0 {
				p.out[w] = ','
				w++
			}
			w = p.emit(w, m.start, m.end, inner, k)
		}
		p.out[w] = '}'
		w++
		lo = r.end
	}
	return w + copy(p.out[w:], p.tmp[lo-p.tmpBase:hi-p.tmpBase])
}

// searchStart returns the first index i >= k with u[i].start >= x; binary
// search keeps hostile shapes (many siblings, deep chains) from making
// emission quadratic.
func searchStart(u []reorder, k, x int) int {
	lo, hi := k, len(u)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if u[mid].start < x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

func (p *parser) duplicate(m *member) bool {
	msg := appendQuoted([]byte("duplicate key "), p.key(m))
	p.fail(m.rawStart-1, string(msg))
	return p.pushKey(m.rawStart, m.rawEnd)
}

// compareUTF16 orders valid UTF-8 strings by their UTF-16 code units, as
// RFC 8785 section 3.2.3 requires. UTF-8 byte order equals code point order,
// which differs from UTF-16 order only when U+E000..U+FFFF meets a
// supplementary character, because the latter is encoded with surrogates
// that sort below U+E000.
func compareUTF16(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == n {
		return len(a) - len(b)
	}
	// At the first difference both bytes are continuation bytes of the same
	// sequence or both are lead bytes; lead bytes 0xEE and 0xEF start
	// U+E000..U+FFFF and 0xF0..0xF4 start supplementary characters.
	ca, cb := a[i], b[i]
	if ca >= 0xEE && cb >= 0xEE && (ca >= 0xF0) != (cb >= 0xF0) {
		if ca >= 0xF0 {
			return -1
		}
		return 1
	}
	if ca < cb {
		return -1
	}
	return 1
}

// safe marks bytes copied through unchanged inside strings, letting the
// scanner move over long plain runs without per-byte branching on kind.
var safe = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

const hexDigits = "0123456789abcdef"

// lsb and msb select the low and high bit of every byte of a word for the
// SWAR string scan.
const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// str canonicalizes the string starting at p.pos and reports whether its
// source contained escapes, in which case the decoded form differs from the
// raw bytes.
func (p *parser) str() (escaped, ok bool) {
	src := p.src
	out := append(p.out, '"')
	i := p.pos + 1
	run := i
	for {
		// Skip eight plain ASCII bytes at a time; any byte that is a
		// control, quote, backslash or non-ASCII stops the fast scan.
		for i+8 <= len(src) {
			x := binary.LittleEndian.Uint64(src[i:])
			q := x ^ (lsb * '"')
			b := x ^ (lsb * '\\')
			if ((x-lsb*0x20)&^x|(q-lsb)&^q|(b-lsb)&^b|x)&msb != 0 {
				break
			}
			i += 8
		}
		for i < len(src) && safe[src[i]] {
			i++
		}
		if i >= len(src) {
			p.out = out
			return escaped, p.fail(len(src), "unexpected end of input in string")
		}
		c := src[i]
		switch {
		case c == '"':
			out = append(out, src[run:i]...)
			p.out = append(out, '"')
			p.pos = i + 1
			return escaped, true
		case c == '\\':
			out = append(out, src[run:i]...)
			escaped = true
			var n int
			out, n = p.escape(out, i)
			if n == 0 {
				p.out = out
				return escaped, false
			}
			i += n
			run = i
		case c < 0x20:
			p.out = out
			return escaped, p.fail(i, "control character U+00"+string(hexDigits[c>>4])+string(hexDigits[c&0xf])+" in string must be escaped")
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				p.out = out
				return escaped, p.fail(i, "invalid UTF-8 in string")
			}
			i += size
		}
	}
}

// escape decodes the escape sequence at src[i] and appends its canonical
// form, returning the number of source bytes consumed or 0 on error.
func (p *parser) escape(out []byte, i int) ([]byte, int) {
	r, n, msg := Escape(p.src[i:])
	if n == 0 {
		at := i
		if i+1 >= len(p.src) {
			at = len(p.src)
		}
		p.fail(at, msg)
		return out, 0
	}
	return appendRune(out, r), n
}

// Hex4 decodes the 4 hex digits of a \u escape at src[i:]; ok is false
// when there are not 4 or they are not all hex.
func Hex4(src []byte, i int) (rune, bool) {
	if i+4 > len(src) {
		return 0, false
	}
	var r rune
	for _, c := range src[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// appendRune writes a decoded code point in canonical form: RFC 8785
// escapes only the quote, the backslash and C0 controls.
func appendRune(out []byte, r rune) []byte {
	switch {
	case r < 0x20:
		return appendControl(out, byte(r))
	case r == '"' || r == '\\':
		return append(out, '\\', byte(r))
	case r < 0x80:
		return append(out, byte(r))
	}
	return utf8.AppendRune(out, r)
}

func appendControl(out []byte, c byte) []byte {
	switch c {
	case '\b':
		return append(out, '\\', 'b')
	case '\t':
		return append(out, '\\', 't')
	case '\n':
		return append(out, '\\', 'n')
	case '\f':
		return append(out, '\\', 'f')
	case '\r':
		return append(out, '\\', 'r')
	}
	return append(out, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// AppendString appends s, which must be valid UTF-8, as an RFC 8785
// string: only the quote, the backslash and C0 controls escaped.
func AppendString(dst []byte, s string) []byte { return appendQuoted(dst, s) }

// appendQuoted writes decoded, valid UTF-8 as a canonical JSON string.
func appendQuoted[T string | []byte](out []byte, s T) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20:
			out = appendControl(out, c)
		case c == '"' || c == '\\':
			out = append(out, '\\', c)
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// unescape appends the decoded content of a string body that str has
// already validated.
func unescape(out, raw []byte) []byte {
	out, _ = Unescape(out, raw)
	return out
}

// maxExactDigits is the longest plain integer that is always exactly a
// double: every integer below 10^15 is under 2^53.
const maxExactDigits = 15

func (p *parser) number() bool {
	src := p.src
	start := p.pos
	i := start
	if src[i] == '-' {
		i++
	}
	digits := i
	switch {
	case i >= len(src):
		return p.fail(start, "invalid number: no digits after '-'")
	case src[i] == '0':
		i++
		if i < len(src) && isDigit(src[i]) {
			return p.fail(start, "invalid number: leading zero")
		}
	case isDigit(src[i]):
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	default:
		return p.fail(start, "invalid number: expected digit after '-'")
	}
	intDigits := i - digits
	isInt := true
	frac, fracEnd := 0, 0
	if i < len(src) && src[i] == '.' {
		i++
		if i >= len(src) || !isDigit(src[i]) {
			return p.fail(start, "invalid number: expected digit after decimal point")
		}
		frac = i
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		fracEnd = i
		isInt = false
	}
	plainDecimal := !isInt
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		plainDecimal = false
		i++
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i >= len(src) || !isDigit(src[i]) {
			return p.fail(start, "invalid number: expected digit in exponent")
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
		isInt = false
	}
	if i < len(src) && (isAlnum(src[i]) || src[i] == '.' || src[i] == '+' || src[i] == '-') {
		// Catches hex, 1.2.3, 1e5e5 and the like with a message about the
		// number instead of a confusing one about the next token.
		return p.fail(start, "invalid number")
	}
	p.pos = i
	lit := src[start:i]
	if isInt && intDigits <= maxExactDigits {
		// Already canonical: small integers print as themselves.
		if len(lit) == 2 && lit[0] == '-' && lit[1] == '0' {
			p.out = append(p.out, '0')
		} else {
			p.out = append(p.out, lit...)
		}
		return true
	}
	if plainDecimal && src[fracEnd-1] != '0' && simpleDecimal(src[digits:frac-1], src[frac:fracEnd]) {
		p.out = append(p.out, lit...)
		return true
	}
	// strconv bounds its work on long mantissas and huge exponents, so this
	// is linear in the literal's length whatever the attacker writes.
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return p.fail(start, "number "+abbrev(lit)+" overflows a double")
	}
	mark := len(p.out)
	p.out = appendNumber(p.out, f)
	if isInt && string(p.out[mark:]) != string(lit) && !exactInteger(lit[digits-start:], f) {
		p.out = p.out[:mark]
		return p.fail(start, "integer "+abbrev(lit)+" cannot be represented exactly as a double; write it as a string")
	}
	return true
}

// simpleDecimal reports whether a plain decimal whose fraction does not end
// in zero is already in ECMAScript form, which skips a parse and format
// round trip for the common case. With at most 15 significant digits the
// digits are exactly the shortest round-trip digits of the nearest double
// (any two such decimals map to distinct doubles), and a value of at least
// 1e-6 and below 1e15 is laid out without an exponent, as written.
func simpleDecimal(intPart, frac []byte) bool {
	sig := len(frac)
	if len(intPart) == 1 && intPart[0] == '0' {
		zeros := 0
		for zeros < len(frac) && frac[zeros] == '0' {
			zeros++
		}
		if zeros > 5 {
			return false
		}
		sig -= zeros
	} else {
		sig += len(intPart)
	}
	return sig <= maxExactDigits
}

// exactInteger reports whether the decimal integer digits equal |f|.
// An integer literal is only refused when it is neither exact nor already
// the canonical spelling of its double, so canonical output such as
// 295147905179352830000 is accepted again and canonicalization stays
// idempotent while 12345678901234567890, which would silently lose its
// last digits, is refused.
func exactInteger(digits []byte, f float64) bool {
	if f < 0 {
		f = -f
	}
	if len(digits) <= 19 {
		var u uint64
		for _, c := range digits {
			u = u*10 + uint64(c-'0')
		}
		// f < 1e19 < 2^64 here, so the conversion is defined.
		return uint64(f) == u
	}
	// f is below 2^1024 because overflow was rejected, so this formats at
	// most 309 digits.
	var buf [320]byte
	return string(strconv.AppendFloat(buf[:0], f, 'f', 0, 64)) == string(digits)
}

func abbrev(lit []byte) string {
	if len(lit) > 40 {
		return string(lit[:37]) + "..."
	}
	return string(lit)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// appendNumber writes f as ECMAScript's Number.prototype.toString does,
// which RFC 8785 section 3.2.2.3 adopts: shortest round-trip digits, laid
// out in full below 1e21 and down to 1e-6, exponent form otherwise.
func appendNumber(out []byte, f float64) []byte {
	if f == 0 {
		return append(out, '0') // also -0
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, 'e', -1, 64)
	if b[0] == '-' {
		out = append(out, '-')
		b = b[1:]
	}
	// b is d[.ddd]e±XX; gather the digits and the decimal exponent.
	var digits [24]byte
	k := 0
	j := 0
	for ; b[j] != 'e'; j++ {
		if b[j] != '.' {
			digits[k] = b[j]
			k++
		}
	}
	exp := 0
	for _, c := range b[j+2:] {
		exp = exp*10 + int(c-'0')
	}
	if b[j+1] == '-' {
		exp = -exp
	}
	n := exp + 1 // position of the decimal point relative to the digits
	d := digits[:k]
	switch {
	case k <= n && n <= 21:
		out = append(out, d...)
		for ; n > k; n-- {
			out = append(out, '0')
		}
	case 0 < n && n <= 21:
		out = append(out, d[:n]...)
		out = append(out, '.')
		out = append(out, d[n:]...)
	case -6 < n && n <= 0:
		out = append(out, '0', '.')
		for ; n < 0; n++ {
			out = append(out, '0')
		}
		out = append(out, d...)
	default:
		out = append(out, d[0])
		if k > 1 {
			out = append(out, '.')
			out = append(out, d[1:]...)
		}
		out = append(out, 'e')
		e := n - 1
		if e > 0 {
			out = append(out, '+')
		} else {
			out = append(out, '-')
			e = -e
		}
		out = strconv.AppendInt(out, int64(e), 10)
	}
	return out
}
