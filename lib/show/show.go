// Package show is what ctx show prints of a pack: the manifest as JSON
// with its hash, or a summary that reads at a glance, one line per item.
//
// It must never change the store, and never print a byte of a pack's
// content that could break a line or take over a terminal.
package show

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// JSON is the manifest as ctx show --json prints it: the stored canonical
// bytes raw, with the hash put first, which is where a reader looks for
// it.
func JSON(h store.Hash, raw []byte) []byte {
	doc := make([]byte, 0, len(raw)+80)
	doc = append(doc, `{"hash":"`...)
	doc = append(doc, h.String()...)
	doc = append(doc, `",`...)
	return append(doc, raw[1:]...)
}

// WriteJSON writes pack h as JSON gives it, and a newline, without holding
// the manifest: one pass checks it (pack.Head: the hash, and that it is a
// pack), a second streams its bytes. Should the object change between the
// two, the second pass's own check ends in an error.
func WriteJSON(w io.Writer, st *store.Store, h store.Hash) error {
	if _, _, err := pack.Head(st, h, nil); err != nil {
		return packError(h, err)
	}
	obj, err := st.Open(h)
	if err != nil {
		return err
	}
	defer obj.Close()
	br := bufio.NewReaderSize(obj, 64<<10)
	if c, err := br.ReadByte(); err != nil || c != '{' {
		return fmt.Errorf("object %s is not a pack manifest", h)
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, `{"hash":"%s",`, h)
	if _, err := io.Copy(bw, br); err != nil {
		return err
	}
	bw.WriteByte('\n')
	return bw.Flush()
}

// packError words what pack.Head found as Parse does.
func packError(h store.Hash, err error) error {
	if errors.Is(err, pack.ErrNotPack) {
		return &NotPackError{fmt.Errorf("object %s is not a pack manifest", h)}
	}
	return err
}

// NotPackError is an object that is not a pack, or a manifest this ctx
// cannot read: trouble with the pack rather than with its name.
type NotPackError struct{ error }

func (e *NotPackError) Unwrap() error { return e.error }

// Parse reads the stored manifest of pack h.
func Parse(h store.Hash, raw []byte) (*pack.Manifest, error) {
	m, err := pack.Parse(raw)
	if err != nil {
		if errors.Is(err, pack.ErrNotPack) {
			return nil, fmt.Errorf("object %s is not a pack manifest", h)
		}
		return nil, fmt.Errorf("pack %s: %v", h, err)
	}
	m.Hash = h.String()
	return m, nil
}

// Pack is what Summary shows of a pack: its manifest without the steps,
// their number and column widths, and a way to read them again, so a pack
// of any length is shown in the memory of one step.
type Pack struct {
	*pack.Manifest
	Steps        int
	Rejected     int // steps refused before they ran
	toolW, typeW int
	each         func(fn func(*pack.Step) error) error
}

// Open reads pack h for Summary, one step at a time (pack.Head).
func Open(st *store.Store, h store.Hash) (*Pack, error) {
	p := &Pack{toolW: 4, typeW: 4}
	m, n, err := pack.Head(st, h, p.measure)
	if err != nil {
		var ve *pack.VersionError
		if errors.As(err, &ve) {
			return nil, &NotPackError{fmt.Errorf("pack %s: %v", h, ve)}
		}
		return nil, packError(h, err)
	}
	p.Manifest, p.Steps = m, n
	p.each = func(fn func(*pack.Step) error) error { return pack.EachStep(st, h, fn) }
	return p, nil
}

// InMemory is a manifest already read whole, for Summary.
func InMemory(m *pack.Manifest) *Pack {
	p := &Pack{Manifest: m, Steps: len(m.Steps), toolW: 4, typeW: 4}
	for i := range m.Steps {
		p.measure(&m.Steps[i])
	}
	p.each = func(fn func(*pack.Step) error) error {
		for i := range m.Steps {
			if err := fn(&m.Steps[i]); err != nil {
				return err
			}
		}
		return nil
	}
	return p
}

func (p *Pack) measure(s *pack.Step) error {
	p.toolW = max(p.toolW, min(utf8.RuneCountInString(s.Tool), 24))
	p.typeW = max(p.typeW, utf8.RuneCountInString(s.Type))
	if s.Outcome == pack.OutcomeRejected {
		p.Rejected++
	}
	return nil
}

// Summary writes the human view of m: a header block, then one section per part
// of the pack, one line per item, so a 200-step pack reads at a glance.
func Summary(w io.Writer, st *store.Store, p *Pack, paint func(code, s string) string) error {
	m := p.Manifest
	bold := func(s string) string { return paint("1", s) }
	dim := func(s string) string { return paint("2", s) }
	var firstErr error
	blob := func(h store.Hash) (string, int64) {
		b, err := st.ReadAll(h)
		if err != nil {
			if firstErr == nil {
				firstErr = err
			}
			return "[" + err.Error() + "]", -1
		}
		return firstLine(b), int64(len(b))
	}

	fmt.Fprintf(w, "%s     %s\n", bold("pack"), m.Hash)
	fmt.Fprintf(w, "created  %s\n", text.Time(m.CreatedText()))
	fmt.Fprintf(w, "model    %s", m.Model.Identifier)
	if p := compact(m.Model.Parameters); p != "{}" && p != "" {
		fmt.Fprintf(w, "  %s", p)
	}
	fmt.Fprintln(w)
	if m.Parent != nil {
		fmt.Fprintf(w, "parent   %s\n", m.Parent)
	}
	if line := RunLine(m); line != "" {
		fmt.Fprintf(w, "run      %s\n", line)
	}
	if m.SystemPrompt != nil {
		line, n := blob(*m.SystemPrompt)
		fmt.Fprintf(w, "system   %s %s\n", line, dim(text.Size(n)))
	} else {
		fmt.Fprintf(w, "system   %s\n", dim("(none)"))
	}

	fmt.Fprintf(w, "\n%s (%d)\n", bold("prompts"), len(m.Prompts))
	for i, p := range m.Prompts {
		line, n := blob(p.ContentRef)
		fmt.Fprintf(w, "  %d  %-9s %s %s\n", i, p.Role, line, dim(text.Size(n)))
	}

	fmt.Fprintf(w, "\n%s (%d)\n", bold("inputs"), len(m.Inputs))
	width := 0
	for _, f := range m.Inputs {
		width = max(width, utf8.RuneCountInString(f.Name))
	}
	for _, f := range m.Inputs {
		fmt.Fprintf(w, "  %-*s  %9s  %s\n", width, f.Name, text.Size(f.Size), dim(f.ContentRef.Short()))
	}

	if p.Rejected > 0 {
		fmt.Fprintf(w, "\n%s (%d, %d rejected)\n", bold("steps"), p.Steps, p.Rejected)
	} else {
		fmt.Fprintf(w, "\n%s (%d)\n", bold("steps"), p.Steps)
	}
	if p.Steps > 0 {
		toolW, typeW := p.toolW, p.typeW
		idxW := len(fmt.Sprint(p.Steps - 1))
		fmt.Fprintf(w, "  %s\n", dim(fmt.Sprintf("%*s  %-*s  %-*s  %9s  %-5s  %s", idxW, "#", typeW, "type", toolW, "tool", "output", "det", "parameters")))
		err := p.each(func(s *pack.Step) error {
			out := "-"
			if s.OutputSize != nil {
				out = text.Size(*s.OutputSize)
			}
			// A refused call never ran: its output is the refusal, and
			// the mark says so where the eye looks for what it gave.
			if s.Outcome == pack.OutcomeRejected {
				out = "rejected"
			}
			det := "no"
			if s.Deterministic {
				det = "yes"
			}
			_, err := fmt.Fprintf(w, "  %*d  %-*s  %-*s  %9s  %-5s  %s\n", idxW, s.Index, typeW, s.Type, toolW, text.Clip(s.Tool, 24), out, det, params(s.Parameters, 72))
			return err
		})
		if err != nil {
			return err
		}
	}

	fmt.Fprintf(w, "\n%s (%d)\n", bold("outputs"), len(m.Outputs))
	width = 0
	for _, o := range m.Outputs {
		width = max(width, utf8.RuneCountInString(o.Name))
	}
	for _, o := range m.Outputs {
		fmt.Fprintf(w, "  %-*s  %9s  %s", width, o.Name, text.Size(o.Size), dim(o.ContentRef.Short()))
		if o.Confidence != "" {
			fmt.Fprintf(w, "  confidence %s", o.Confidence)
		}
		if o.Notes != "" {
			fmt.Fprintf(w, "  notes %q", text.Clip(o.Notes, 60))
		}
		fmt.Fprintln(w)
	}

	fmt.Fprintf(w, "\n%s\n", bold("environment"))
	env := m.Env()
	var parts []string
	for _, kv := range [][2]string{{"os", env.OS}, {"arch", env.Arch}, {"runtime", env.Runtime}} {
		if kv[1] != "" {
			parts = append(parts, kv[0]+" "+kv[1])
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "  %s\n", strings.Join(parts, "  "))
	}
	if len(env.ToolVersions) > 0 {
		names := make([]string, 0, len(env.ToolVersions))
		for k := range env.ToolVersions {
			names = append(names, k)
		}
		sort.Strings(names)
		for i, k := range names {
			names[i] = k + " " + env.ToolVersions[k]
		}
		fmt.Fprintf(w, "  tools %s\n", strings.Join(names, ", "))
	}
	if len(parts) == 0 && len(env.ToolVersions) == 0 {
		fmt.Fprintf(w, "  %s\n", dim("(none recorded)"))
	}
	if firstErr != nil {
		return text.WithHints(firstErr, "run 'ctx fsck' to check the whole store")
	}
	return nil
}

// firstLine returns the first non-empty line of b, clipped for one line of
// output, or a note for binary content.
func firstLine(b []byte) string {
	if !utf8.Valid(b) {
		return "(binary)"
	}
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	return text.Clip(s, 72)
}

func compact(raw json.RawMessage) string {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return string(raw)
	}
	return buf.String()
}

// params renders a step's parameters as key=value pairs, values compact and
// clipped, so the key parameters fit on the step's line.
func params(raw json.RawMessage, n int) string {
	members, ok := plainMembers(raw)
	if !ok {
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return ""
		}
		members = members[:0]
		for k, v := range obj {
			members = append(members, member{k, v})
		}
		sort.Slice(members, func(i, j int) bool { return members[i].key < members[j].key })
	}
	if len(members) == 0 {
		return ""
	}
	parts := make([]string, 0, len(members))
	for _, m := range members {
		parts = append(parts, m.key+"="+text.Clip(strings.ReplaceAll(paramValue(m.value), "\n", `\n`), 48))
	}
	return text.Clip(strings.Join(parts, " "), n)
}

// paramValue is a parameter's value as it reads on a step's line: a string
// that needs no quoting as itself, anything else as compact JSON.
func paramValue(raw []byte) string {
	if len(raw) >= 2 && raw[0] == '"' {
		var s string
		if inner := raw[1 : len(raw)-1]; bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
			s = string(inner)
		} else if json.Unmarshal(raw, &s) != nil {
			s = ""
		}
		if s != "" && !strings.ContainsAny(s, " \n\t\"") {
			return s
		}
	}
	return compact(raw)
}

// member is a key and its raw value.
type member struct {
	key   string
	value []byte
}

// plainMembers returns the members of the JSON object raw, sorted by key,
// without decoding the values: what a map decode gives, at a fraction of
// its cost, for a step of a pack with ten thousand. It handles the plain
// case, keys without escapes each given once, and reports false for any
// other, which params decodes with encoding/json. raw comes from a parsed
// manifest, so it is valid JSON.
func plainMembers(raw []byte) ([]member, bool) {
	i := jcs.SkipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return nil, false
	}
	var out []member
	i = jcs.SkipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return out, jcs.SkipSpace(raw, i+1) == len(raw)
	}
	for i < len(raw) && raw[i] == '"' {
		end := bytes.IndexByte(raw[i+1:], '"')
		if end < 0 {
			return nil, false
		}
		key := raw[i+1 : i+1+end]
		if bytes.IndexByte(key, '\\') >= 0 || !utf8.Valid(key) {
			return nil, false
		}
		i = jcs.SkipSpace(raw, i+end+2)
		if i >= len(raw) || raw[i] != ':' {
			return nil, false
		}
		start := jcs.SkipSpace(raw, i+1)
		stop := jcs.ValueEnd(raw, start)
		if stop < 0 {
			return nil, false
		}
		out = append(out, member{string(key), raw[start:stop]})
		i = jcs.SkipSpace(raw, stop)
		if i < len(raw) && raw[i] == ',' {
			i = jcs.SkipSpace(raw, i+1)
			continue
		}
		if i >= len(raw) || raw[i] != '}' || jcs.SkipSpace(raw, i+1) != len(raw) {
			return nil, false
		}
		sort.Slice(out, func(a, b int) bool { return out[a].key < out[b].key })
		for k := 1; k < len(out); k++ {
			if out[k].key == out[k-1].key {
				return nil, false // encoding/json keeps the last; let it
			}
		}
		return out, true
	}
	return nil, false
}

// RunLine says in one line which task a run was, how it was judged and
// how it ended, as far as its manifest says: "task django__django-11099
// epoch 2, passed (score 1, results.json), ended iteration_limit: Agent
// reached maximum iteration"; "" when it says none of it.
func RunLine(m *pack.Manifest) string {
	var parts []string
	if t := m.RunTask(); t != nil {
		s := "task " + t.ID
		if t.Epoch > 0 {
			s += fmt.Sprintf(" epoch %d", t.Epoch)
		}
		parts = append(parts, s)
	}
	if o := m.Outcome; o != nil {
		s := o.Verdict()
		var why []string
		if len(o.Score) > 0 {
			why = append(why, "score "+strings.Trim(string(o.Score), `"`))
		}
		if o.Source != "" {
			why = append(why, o.Source)
		}
		if len(why) > 0 {
			s += " (" + strings.Join(why, ", ") + ")"
		}
		parts = append(parts, s)
	}
	if e := m.End; e != nil {
		s := "ended " + e.State
		if e.Message != "" {
			s += ": " + text.Clip(e.Message, 100)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
