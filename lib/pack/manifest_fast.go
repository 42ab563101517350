package pack

import (
	"encoding/hex"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/store"
)

// Reading a manifest is the first thing show, diff, replay, verify and fork
// do with a pack, and encoding/json spends most of its time on reflection
// and on scanning the document twice. decodeFast reads the manifests ctx
// writes (and any document in the same plain form) in one pass. It takes
// only the subset of JSON whose meaning for encoding/json is plain: the
// manifest's own keys, spelled exactly, each once; the expected type for
// each field (null only where a field is a pointer or raw JSON); integers
// written as integers; nothing after the document but white space. For
// anything else it reports false and Parse decodes with encoding/json as
// before, so the result, and every error, is encoding/json's. FuzzParse
// checks that the two agree wherever decodeFast answers.

// maxFastDepth bounds the nesting of raw values the fast path follows;
// deeper documents go to encoding/json, which has limits of its own.
const maxFastDepth = 200

// decodeFast decodes b into m when b is in the plain form described above.
func decodeFast(b []byte, m *Manifest) bool {
	d := fastDecoder{b: b}
	if !d.manifest(m) {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

type fastDecoder struct {
	b []byte
	i int
	// strs keeps one copy of each short string, which repeat from step to
	// step (types, tools, timestamps).
	strs map[string]string
	// hashes and sizes are slabs the pointer fields of steps point into, so
	// a 10,000-step manifest does not make 20,000 small allocations.
	hashes []store.Hash
	sizes  []int64
}

func (d *fastDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and consumes c when it comes next.
func (d *fastDecoder) next(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// peek skips white space and returns the next byte, or 0 at the end.
func (d *fastDecoder) peek() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// object reads an object whose keys each name a field: field reads the
// value of key and reports false to give up. Keys must be plain (no
// escapes, valid UTF-8); each field function checks that a key comes at
// most once.
func (d *fastDecoder) object(field func(key []byte) bool) bool {
	if !d.next('{') {
		return false
	}
	if d.next('}') {
		return true
	}
	for {
		raw, plain, ok := d.stringToken()
		if !ok || !plain || !d.next(':') || !field(raw[1:len(raw)-1]) {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next('}')
	}
}

// decodeList decodes an array into a new, non-nil *dst, each element by
// one.
func decodeList[T any](d *fastDecoder, dst *[]T, one func(*T) bool) bool {
	*dst = []T{}
	return d.array(func() bool {
		var zero T
		*dst = append(*dst, zero)
		return one(&(*dst)[len(*dst)-1])
	})
}

// array reads an array, elem reading each element.
func (d *fastDecoder) array(elem func() bool) bool {
	if !d.next('[') {
		return false
	}
	if d.next(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.next(',') {
			continue
		}
		return d.next(']')
	}
}

// first marks bit k of seen, false when it was set already (a key given
// twice, which encoding/json resolves its own way).
func first(seen *uint32, k uint) bool {
	if *seen&(1<<k) != 0 {
		return false
	}
	*seen |= 1 << k
	return true
}

// stringToken reads a string token, quotes included. plain says it holds no
// escape and is valid UTF-8; ok is false when it is not a valid JSON string.
func (d *fastDecoder) stringToken() (raw []byte, plain, ok bool) {
	if !d.next('"') {
		return nil, false, false
	}
	start := d.i - 1
	plain = true
	ascii := true
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			raw = d.b[start:d.i]
			if !ascii && !utf8.Valid(raw) {
				plain = false
			}
			return raw, plain, true
		case c < 0x20:
			return nil, false, false
		case c == '\\':
			plain = false
			d.i++
			if d.i >= len(d.b) {
				return nil, false, false
			}
			switch d.b[d.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				d.i++
			case 'u':
				if d.i+5 > len(d.b) {
					return nil, false, false
				}
				for _, h := range d.b[d.i+1 : d.i+5] {
					if !isHexDigit(h) {
						return nil, false, false
					}
				}
				d.i += 5
			default:
				return nil, false, false
			}
		default:
			if c >= 0x80 {
				ascii = false
			}
			d.i++
		}
	}
	return nil, false, false
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// str reads a string value as encoding/json would decode it.
func (d *fastDecoder) str() (string, bool) {
	raw, plain, ok := d.stringToken()
	if !ok {
		return "", false
	}
	if !plain {
		// Escapes, or invalid UTF-8 that encoding/json replaces: let it.
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	inner := raw[1 : len(raw)-1]
	if len(inner) > 64 {
		return string(inner), true
	}
	if s, ok := d.strs[string(inner)]; ok { // no allocation for the lookup
		return s, true
	}
	if d.strs == nil {
		d.strs = map[string]string{}
	}
	s := string(inner)
	d.strs[s] = s
	return s, true
}

// hash reads "sha256:<64 hex digits>", the form store.Hash's UnmarshalText
// accepts, written without escapes.
func (d *fastDecoder) hash(h *store.Hash) bool {
	raw, plain, ok := d.stringToken()
	const prefix = `"sha256:`
	if !ok || !plain || len(raw) != len(prefix)+64+1 || string(raw[:len(prefix)]) != prefix {
		return false
	}
	// hex.Decode takes either case, as store.ParseRef does.
	_, err := hex.Decode(h[:], raw[len(prefix):len(prefix)+64])
	return err == nil
}

// hashPtr reads a hash or null into *p.
func (d *fastDecoder) hashPtr(p **store.Hash) bool {
	if d.null() {
		*p = nil
		return true
	}
	if len(d.hashes) == 0 {
		d.hashes = make([]store.Hash, 256)
	}
	h := &d.hashes[0]
	if !d.hash(h) {
		return false
	}
	d.hashes = d.hashes[1:]
	*p = h
	return true
}

// null consumes a null when one comes next.
func (d *fastDecoder) null() bool {
	d.ws()
	if len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "null" {
		d.i += 4
		return true
	}
	return false
}

// integer reads an integer written as one (no fraction, no exponent) that
// fits in bits bits, as encoding/json decodes it into an int of that size.
func (d *fastDecoder) integer(bits int) (int64, bool) {
	d.ws()
	start := d.i
	if !d.number() {
		return 0, false
	}
	n, err := strconv.ParseInt(string(d.b[start:d.i]), 10, bits)
	return n, err == nil
}

// number consumes a JSON number.
func (d *fastDecoder) number() bool {
	digits := func() int {
		n := 0
		for d.i < len(d.b) && '0' <= d.b[d.i] && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	switch {
	case d.i < len(d.b) && d.b[d.i] == '0':
		d.i++
	case digits() == 0:
		return false
	}
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		if digits() == 0 {
			return false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			return false
		}
	}
	return true
}

// boolean reads true or false.
func (d *fastDecoder) boolean() (bool, bool) {
	d.ws()
	switch {
	case len(d.b)-d.i >= 4 && string(d.b[d.i:d.i+4]) == "true":
		d.i += 4
		return true, true
	case len(d.b)-d.i >= 5 && string(d.b[d.i:d.i+5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// raw reads any JSON value and returns a copy of its bytes, as
// json.RawMessage keeps it (null included).
func (d *fastDecoder) raw(p *json.RawMessage) bool {
	d.ws()
	start := d.i
	if !d.skip(0) {
		return false
	}
	*p = append(json.RawMessage(nil), d.b[start:d.i]...)
	return true
}

// skip consumes one valid JSON value.
func (d *fastDecoder) skip(depth int) bool {
	if depth > maxFastDepth {
		return false
	}
	switch d.peek() {
	case '{':
		d.i++
		if d.next('}') {
			return true
		}
		for {
			if _, _, ok := d.stringToken(); !ok || !d.next(':') || !d.skip(depth+1) {
				return false
			}
			if d.next(',') {
				continue
			}
			return d.next('}')
		}
	case '[':
		d.i++
		if d.next(']') {
			return true
		}
		for {
			if !d.skip(depth + 1) {
				return false
			}
			if d.next(',') {
				continue
			}
			return d.next(']')
		}
	case '"':
		_, _, ok := d.stringToken()
		return ok
	case 't':
		_, ok := d.boolean()
		return ok
	case 'f':
		_, ok := d.boolean()
		return ok
	case 'n':
		return d.null()
	case 0:
		return false
	}
	return d.number()
}

func (d *fastDecoder) manifest(m *Manifest) bool {
	var seen uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "version":
			if !first(&seen, 0) {
				return false
			}
			s, ok := d.str()
			m.Version = s
			return ok
		case "hash":
			if !first(&seen, 1) {
				return false
			}
			s, ok := d.str()
			m.Hash = s
			return ok
		case "created":
			if !first(&seen, 2) {
				return false
			}
			s, ok := d.str()
			m.Created = s
			return ok
		case "model":
			return first(&seen, 3) && d.model(&m.Model)
		case "system_prompt":
			return first(&seen, 4) && d.hashPtr(&m.SystemPrompt)
		case "prompts":
			return first(&seen, 5) && decodeList(d, &m.Prompts, d.prompt)
		case "inputs":
			return first(&seen, 6) && decodeList(d, &m.Inputs, d.file)
		case "steps":
			return first(&seen, 7) && decodeList(d, &m.Steps, d.step)
		case "outputs":
			return first(&seen, 8) && decodeList(d, &m.Outputs, d.output)
		case "environment":
			return first(&seen, 9) && d.raw(&m.Environment)
		case "parent":
			return first(&seen, 10) && d.hashPtr(&m.Parent)
		case "metadata":
			return first(&seen, 11) && d.raw(&m.Metadata)
		}
		return false
	})
}

func (d *fastDecoder) model(m *Model) bool {
	var seen uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "identifier":
			if !first(&seen, 0) {
				return false
			}
			s, ok := d.str()
			m.Identifier = s
			return ok
		case "parameters":
			return first(&seen, 1) && d.raw(&m.Parameters)
		}
		return false
	})
}

func (d *fastDecoder) prompt(p *Prompt) bool {
	var seen uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "role":
			if !first(&seen, 0) {
				return false
			}
			s, ok := d.str()
			p.Role = s
			return ok
		case "content_ref":
			return first(&seen, 1) && d.hash(&p.ContentRef)
		case "metadata":
			return first(&seen, 2) && d.raw(&p.Metadata)
		}
		return false
	})
}

func (d *fastDecoder) file(f *File) bool {
	var seen uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			if !first(&seen, 0) {
				return false
			}
			s, ok := d.str()
			f.Name = s
			return ok
		case "content_ref":
			return first(&seen, 1) && d.hash(&f.ContentRef)
		case "size":
			if !first(&seen, 2) {
				return false
			}
			n, ok := d.integer(64)
			f.Size = n
			return ok
		case "metadata":
			return first(&seen, 3) && d.raw(&f.Metadata)
		}
		return false
	})
}

func (d *fastDecoder) step(s *Step) bool {
	var seen uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "index":
			if !first(&seen, 0) {
				return false
			}
			n, ok := d.integer(strconv.IntSize)
			s.Index = int(n)
			return ok
		case "type":
			if !first(&seen, 1) {
				return false
			}
			v, ok := d.str()
			s.Type = v
			return ok
		case "tool":
			if !first(&seen, 2) {
				return false
			}
			v, ok := d.str()
			s.Tool = v
			return ok
		case "parameters":
			return first(&seen, 3) && d.raw(&s.Parameters)
		case "output_ref":
			return first(&seen, 4) && d.hashPtr(&s.OutputRef)
		case "output_size":
			if !first(&seen, 5) {
				return false
			}
			if d.null() {
				s.OutputSize = nil
				return true
			}
			n, ok := d.integer(64)
			if !ok {
				return false
			}
			if len(d.sizes) == 0 {
				d.sizes = make([]int64, 256)
			}
			d.sizes[0] = n
			s.OutputSize = &d.sizes[0]
			d.sizes = d.sizes[1:]
			return true
		case "deterministic":
			if !first(&seen, 6) {
				return false
			}
			v, ok := d.boolean()
			s.Deterministic = v
			return ok
		case "timestamp":
			if !first(&seen, 7) {
				return false
			}
			if d.null() {
				s.Timestamp = nil
				return true
			}
			v, ok := d.str()
			s.Timestamp = &v
			return ok
		case "metadata":
			return first(&seen, 8) && d.raw(&s.Metadata)
		}
		return false
	})
}

func (d *fastDecoder) output(o *Output) bool {
	var seen uint32
	return d.object(func(key []byte) bool {
		switch string(key) {
		case "name":
			if !first(&seen, 0) {
				return false
			}
			s, ok := d.str()
			o.Name = s
			return ok
		case "content_ref":
			return first(&seen, 1) && d.hash(&o.ContentRef)
		case "size":
			if !first(&seen, 2) {
				return false
			}
			n, ok := d.integer(64)
			o.Size = n
			return ok
		case "confidence":
			if !first(&seen, 3) {
				return false
			}
			s, ok := d.str()
			o.Confidence = s
			return ok
		case "notes":
			if !first(&seen, 4) {
				return false
			}
			s, ok := d.str()
			o.Notes = s
			return ok
		case "metadata":
			return first(&seen, 5) && d.raw(&o.Metadata)
		}
		return false
	})
}
