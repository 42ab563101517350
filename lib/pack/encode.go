package pack

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Encode returns the canonical bytes of m (without its hash field) and
// their hash, which is the pack's name.
//
// The canonical form is written straight from the struct into one buffer
// sized beforehand: the keys in RFC 8785 order (all ASCII, so byte order),
// each raw value canonicalized in place. For a 23,000-step manifest of
// 11 MB that is one copy of the manifest in memory instead of three (the
// encoding/json form, its canonical copy and their growth). Whatever this
// writer does not handle exactly as encoding/json followed by
// jcs.Canonicalize would (a string that is not valid UTF-8, an integer a
// double cannot hold, a raw value that is not canonicalizable) sends the
// whole manifest down that path instead, so the bytes and the errors are
// those of encodeSlow; TestEncodeMatchesSlow and FuzzEncode hold the two
// to it.
func Encode(m *Manifest) ([]byte, store.Hash, error) {
	if m.spill != nil {
		var buf bytes.Buffer
		if err := EncodeTo(&buf, m); err != nil {
			return nil, store.Hash{}, err
		}
		return buf.Bytes(), store.Sum(buf.Bytes()), nil
	}
	e := encoder{buf: make([]byte, 0, encodedSizeBound(m))}
	e.manifest(m)
	if e.fallback {
		return encodeSlow(m)
	}
	return e.buf, store.Sum(e.buf), nil
}

// EncodeTo writes the canonical bytes of m (as Encode returns them) to w.
// A manifest whose steps are in a scratch file (Options.Scratch) is
// streamed: everything but the steps is encoded in memory, with an empty
// steps array, and the steps are written in its place from the file, each
// already in its canonical form, so the whole manifest is never in memory.
func EncodeTo(w io.Writer, m *Manifest) error {
	if m.spill == nil {
		canon, _, err := Encode(m)
		if err == nil {
			_, err = w.Write(canon)
		}
		return err
	}
	c := *m
	c.spill, c.Steps = nil, []Step{}
	canon, _, err := Encode(&c)
	if err != nil {
		return err
	}
	// Only system_prompt, task and version follow the steps, and the
	// task holds only strings (whose quotes are escaped) and a number, so
	// the last match is the manifest's own steps array.
	i := bytes.LastIndex(canon, []byte(`"steps":[],"system_prompt":`))
	if i < 0 {
		return fmt.Errorf("manifest: no steps array in its canonical form")
	}
	i += len(`"steps":[`)
	if _, err := w.Write(canon[:i]); err != nil {
		return err
	}
	if err := m.spill.writeSteps(w); err != nil {
		return err
	}
	_, err = w.Write(canon[i:])
	return err
}

// encodeSlow is the reference: encoding/json, then RFC 8785.
func encodeSlow(m *Manifest) ([]byte, store.Hash, error) {
	c := *m
	c.Hash = ""
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(&c); err != nil {
		return nil, store.Hash{}, err
	}
	canon, err := jcs.Canonicalize(buf.Bytes())
	if err != nil {
		return nil, store.Hash{}, fmt.Errorf("manifest cannot be canonicalized: %w", err)
	}
	return canon, store.Sum(canon), nil
}

// encodedSizeBound is a size the canonical form of m does not exceed
// unless its strings need escapes, so the buffer is allocated once.
func encodedSizeBound(m *Manifest) int {
	const hashField = 80 // `"content_ref":"sha256:<64 hex>",` and the like
	n := 512 + len(m.CreatedText()) + len(m.Model.Identifier) + len(m.Model.Parameters) + len(m.Environment) + len(m.Metadata)
	if m.Task != nil {
		n += 64 + len(m.Task.ID) + len(m.Task.Name)
	}
	if m.Outcome != nil {
		n += 96 + len(m.Outcome.Score) + len(m.Outcome.Value) + len(m.Outcome.Source)
	}
	if m.End != nil {
		n += 48 + len(m.End.State) + len(m.End.Message)
	}
	for i := range m.Prompts {
		p := &m.Prompts[i]
		n += 64 + hashField + len(p.Role) + len(p.Metadata)
	}
	for i := range m.Inputs {
		f := &m.Inputs[i]
		n += 64 + hashField + len(f.Name) + len(f.Metadata)
	}
	for i := range m.Steps {
		s := &m.Steps[i]
		n += 160 + hashField + len(s.Type) + len(s.Tool) + len(s.Parameters) + len(s.Metadata) + len(s.Outcome)
		if s.NormalizedOutputRef != nil {
			n += 32 + hashField
		}
		if s.Timestamp != nil {
			n += len(*s.Timestamp)
		}
	}
	for i := range m.Outputs {
		o := &m.Outputs[i]
		n += 96 + hashField + len(o.Name) + len(o.Confidence) + len(o.Notes) + len(o.Metadata)
	}
	return n
}

// encoder appends the canonical form of a manifest to buf; fallback is set
// at the first value it does not write exactly as the reference would.
type encoder struct {
	buf      []byte
	fallback bool
}

// key writes a member's key (sep is ',' for every member but the first).
func (e *encoder) key(sep bool, k string) {
	if sep {
		e.buf = append(e.buf, ',')
	}
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, k...)
	e.buf = append(e.buf, '"', ':')
}

func (e *encoder) str(s string) {
	if !utf8.ValidString(s) {
		// encoding/json would write U+FFFD for the bad bytes.
		e.fallback = true
		return
	}
	e.buf = jcs.AppendString(e.buf, s)
}

// maxExact is 2^53: every integer of smaller magnitude is exactly a double
// and RFC 8785 writes it in plain decimal.
const maxExact = 1 << 53

func (e *encoder) int(n int64) {
	if n >= maxExact || n <= -maxExact {
		e.fallback = true
		return
	}
	e.buf = strconv.AppendInt(e.buf, n, 10)
}

func (e *encoder) hash(h store.Hash) {
	e.buf = append(e.buf, `"sha256:`...)
	e.buf = hex.AppendEncode(e.buf, h[:])
	e.buf = append(e.buf, '"')
}

func (e *encoder) hashPtr(h *store.Hash) {
	if h == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.hash(*h)
}

// raw writes a raw value canonically; an empty one is null, as
// encoding/json writes a nil json.RawMessage.
func (e *encoder) raw(r json.RawMessage) {
	if len(r) == 0 {
		e.buf = append(e.buf, "null"...)
		return
	}
	out, err := jcs.Append(e.buf, r)
	if err != nil {
		e.fallback = true
		return
	}
	e.buf = out
}

func (e *encoder) manifest(m *Manifest) {
	e.buf = append(e.buf, '{')
	e.key(false, "created")
	if m.Created == nil {
		e.buf = append(e.buf, "null"...)
	} else {
		e.str(*m.Created)
	}
	if m.End != nil {
		e.key(true, "end")
		e.value(m.End)
	}
	e.key(true, "environment")
	e.raw(m.Environment)
	e.key(true, "inputs")
	if m.Inputs == nil {
		e.buf = append(e.buf, "null"...)
	} else {
		e.buf = append(e.buf, '[')
		for i := range m.Inputs {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.file(&m.Inputs[i])
		}
		e.buf = append(e.buf, ']')
	}
	if len(m.Metadata) > 0 {
		e.key(true, "metadata")
		e.raw(m.Metadata)
	}
	e.key(true, "model")
	e.buf = append(e.buf, '{')
	e.key(false, "identifier")
	e.str(m.Model.Identifier)
	e.key(true, "parameters")
	e.raw(m.Model.Parameters)
	e.buf = append(e.buf, '}')
	if m.Outcome != nil {
		e.key(true, "outcome")
		e.value(m.Outcome)
	}
	e.key(true, "outputs")
	if m.Outputs == nil {
		e.buf = append(e.buf, "null"...)
	} else {
		e.buf = append(e.buf, '[')
		for i := range m.Outputs {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.output(&m.Outputs[i])
		}
		e.buf = append(e.buf, ']')
	}
	if m.Parent != nil {
		e.key(true, "parent")
		e.hash(*m.Parent)
	}
	e.key(true, "prompts")
	if m.Prompts == nil {
		e.buf = append(e.buf, "null"...)
	} else {
		e.buf = append(e.buf, '[')
		for i := range m.Prompts {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.prompt(&m.Prompts[i])
		}
		e.buf = append(e.buf, ']')
	}
	e.key(true, "steps")
	if m.Steps == nil {
		e.buf = append(e.buf, "null"...)
	} else {
		e.buf = append(e.buf, '[')
		for i := range m.Steps {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.step(&m.Steps[i])
		}
		e.buf = append(e.buf, ']')
	}
	e.key(true, "system_prompt")
	e.hashPtr(m.SystemPrompt)
	if m.Task != nil {
		e.key(true, "task")
		e.value(m.Task)
	}
	e.key(true, "version")
	e.str(m.Version)
	e.buf = append(e.buf, '}')
}

// value writes a small struct (the task, outcome and end) as
// encoding/json and then RFC 8785 would.
func (e *encoder) value(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		e.fallback = true
		return
	}
	e.raw(b)
}

func (e *encoder) prompt(p *Prompt) {
	e.buf = append(e.buf, '{')
	e.key(false, "content_ref")
	e.hash(p.ContentRef)
	if len(p.Metadata) > 0 {
		e.key(true, "metadata")
		e.raw(p.Metadata)
	}
	e.key(true, "role")
	e.str(p.Role)
	e.buf = append(e.buf, '}')
}

func (e *encoder) file(f *File) {
	e.buf = append(e.buf, '{')
	e.key(false, "content_ref")
	e.hash(f.ContentRef)
	if len(f.Metadata) > 0 {
		e.key(true, "metadata")
		e.raw(f.Metadata)
	}
	e.key(true, "name")
	e.str(f.Name)
	e.key(true, "size")
	e.int(f.Size)
	e.buf = append(e.buf, '}')
}

func (e *encoder) step(s *Step) {
	e.buf = append(e.buf, '{')
	e.key(false, "deterministic")
	e.buf = strconv.AppendBool(e.buf, s.Deterministic)
	e.key(true, "index")
	e.int(int64(s.Index))
	if len(s.Metadata) > 0 {
		e.key(true, "metadata")
		e.raw(s.Metadata)
	}
	if s.NormalizedOutputRef != nil {
		e.key(true, "normalized_output_ref")
		e.hash(*s.NormalizedOutputRef)
	}
	if s.Outcome != "" {
		e.key(true, "outcome")
		e.str(s.Outcome)
	}
	e.key(true, "output_ref")
	e.hashPtr(s.OutputRef)
	if s.OutputSize != nil {
		e.key(true, "output_size")
		e.int(*s.OutputSize)
	}
	e.key(true, "parameters")
	e.raw(s.Parameters)
	e.key(true, "timestamp")
	if s.Timestamp == nil {
		e.buf = append(e.buf, "null"...)
	} else {
		e.str(*s.Timestamp)
	}
	e.key(true, "tool")
	e.str(s.Tool)
	e.key(true, "type")
	e.str(s.Type)
	e.buf = append(e.buf, '}')
}

func (e *encoder) output(o *Output) {
	e.buf = append(e.buf, '{')
	first := true
	if o.Confidence != "" {
		e.key(false, "confidence")
		e.str(o.Confidence)
		first = false
	}
	e.key(!first, "content_ref")
	e.hash(o.ContentRef)
	if len(o.Metadata) > 0 {
		e.key(true, "metadata")
		e.raw(o.Metadata)
	}
	e.key(true, "name")
	e.str(o.Name)
	if o.Notes != "" {
		e.key(true, "notes")
		e.str(o.Notes)
	}
	e.key(true, "size")
	e.int(o.Size)
	e.buf = append(e.buf, '}')
}
