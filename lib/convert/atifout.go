package convert

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// ATIFVersion is the ATIF schema version ctx convert --to atif writes.
const ATIFVersion = "ATIF-v1.7"

// WriteATIF writes the pack m as an ATIF trajectory (one JSON document,
// written step by step). blob reads an object of the pack's store by its
// name ("sha256:<hex>"), verified: the prompts and the steps' outputs.
//
// The system prompt is the first step (source system), each prompt a user
// (or system) step, each model call an agent step with the tool calls that
// follow it and their results as its observation, each event a system
// step; token usage goes into metrics, and what is ctx's own (the step
// indices, a refused call's outcome, the pack's inputs and outputs) into
// extra.ctx. A pack converted from ATIF gives its trajectory back: every
// step, tool call and observation as it was.
func WriteATIF(out io.Writer, m *pack.Manifest, blob func(ref string) ([]byte, error)) error {
	a := &atifWriter{out: bufio.NewWriterSize(out, 64<<10), m: m, blob: blob}
	if err := a.write(); err != nil {
		return err
	}
	return a.out.Flush()
}

type atifWriter struct {
	out  *bufio.Writer
	m    *pack.Manifest
	blob func(string) ([]byte, error)
	run  map[string]any // the run's metadata
	orig map[string]any // the trajectory a pack from ATIF came from, less its steps

	next   int          // the next step_id
	cur    *atifBuild   // the step being built
	totals [4]float64   // prompt, completion, cached tokens and cost
	has    [4]bool      // which totals any step gave
	buf    bytes.Buffer // one step's JSON
}

// atifBuild is one ATIF step while its entries are read.
type atifBuild struct {
	key     string // "atif:<id>" for a step from ATIF, else "" (generic)
	fields  map[string]any
	calls   []any
	results []atifResult
	message bool // the message is set
	indices []int
}

type atifResult struct {
	index int // the result's place in the original observation, -1 if none
	value map[string]any
}

// decodeMeta reads a metadata object of the manifest.
func decodeMeta(raw json.RawMessage) map[string]any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if dec.Decode(&m) != nil {
		return nil
	}
	return m
}

func (a *atifWriter) text(ref string) (string, bool, error) {
	b, err := a.blob(ref)
	if err != nil {
		return "", false, err
	}
	if utf8.Valid(b) {
		return string(b), true, nil
	}
	return base64.StdEncoding.EncodeToString(b), false, nil
}

func (a *atifWriter) write() error {
	a.run = decodeMeta(a.m.Metadata)
	if a.run["source_format"] == "atif" {
		a.orig, _ = a.run["atif"].(map[string]any)
	}
	if err := a.header(); err != nil {
		return err
	}
	a.next = 1
	if err := a.system(); err != nil {
		return err
	}
	// Prompts go before the step they came before (metadata.at_step);
	// prompts that do not say, before every step.
	p := 0
	atStep := func(i int) int {
		if n, ok := decodeMeta(a.m.Prompts[i].Metadata)["at_step"].(json.Number); ok {
			if v, err := n.Int64(); err == nil {
				return int(v)
			}
		}
		return -1
	}
	for _, s := range a.m.Steps {
		for p < len(a.m.Prompts) && atStep(p) <= s.Index {
			if err := a.prompt(p); err != nil {
				return err
			}
			p++
		}
		if err := a.step(s); err != nil {
			return err
		}
	}
	for ; p < len(a.m.Prompts); p++ {
		if err := a.prompt(p); err != nil {
			return err
		}
	}
	if err := a.flush(); err != nil {
		return err
	}
	if a.next == 1 {
		// ATIF needs a step: an empty run is said so.
		a.cur = &atifBuild{fields: map[string]any{"source": "system", "message": ""}}
		a.cur.fields["extra"] = map[string]any{"ctx": map[string]any{"empty": true}}
		if err := a.flush(); err != nil {
			return err
		}
	}
	return a.trailer()
}

// header writes the trajectory's fields before its steps.
func (a *atifWriter) header() error {
	version := ATIFVersion
	if v, ok := a.orig["schema_version"].(string); ok {
		// A trajectory read from ATIF goes back in its own version.
		version = v
	}
	a.out.WriteString(`{"schema_version":` + quote(version))
	if a.orig != nil {
		for _, k := range []string{"session_id", "trajectory_id", "agent"} {
			if v, ok := a.orig[k]; ok {
				a.field(k, v)
			}
		}
	} else {
		sid, _ := a.run["session_id"].(string)
		if sid == "" {
			sid = strings.TrimPrefix(a.m.Hash, "sha256:")
		}
		a.field("session_id", sid)
		agent := map[string]any{"name": a.agentName(), "version": a.agentVersion(), "model_name": a.m.Model.Identifier}
		if params := decodeMeta(a.m.Model.Parameters); len(params) > 0 {
			agent["extra"] = map[string]any{"ctx": map[string]any{"model_parameters": params}}
		}
		a.field("agent", agent)
	}
	a.out.WriteString(`,"steps":[`)
	return nil
}

func (a *atifWriter) agentName() string {
	if s, _ := a.run["source_format"].(string); s != "" {
		return s
	}
	return "unknown"
}

// agentVersion is the version of the agent that made the run, where its
// transcript said it.
func (a *atifWriter) agentVersion() string {
	for _, p := range []string{"claude_code_version", "session.cli_version", "info.mini_version", "version"} {
		if v, ok := dotted(a.run, p); ok {
			if s, ok := v.(string); ok && s != "" {
				return s
			}
		}
	}
	return "unknown"
}

func (a *atifWriter) field(k string, v any) {
	a.out.WriteString("," + quote(k) + ":")
	b, _ := encodeJSON(v)
	a.out.Write(b)
}

// trailer writes the fields after the steps and closes the document.
func (a *atifWriter) trailer() error {
	a.out.WriteString("]")
	if a.orig != nil {
		for _, k := range sortedKeys(a.orig) {
			switch k {
			case "schema_version", "session_id", "trajectory_id", "agent":
				continue
			}
			a.field(k, a.orig[k])
		}
		a.out.WriteString("}\n")
		return nil
	}
	fm := map[string]any{"total_steps": a.next - 1}
	for i, k := range []string{"total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_cost_usd"} {
		if a.has[i] {
			if i == 3 {
				fm[k] = a.totals[i]
			} else {
				fm[k] = int64(a.totals[i])
			}
		}
	}
	a.field("final_metrics", fm)
	ctx := map[string]any{"pack": a.m.Hash, "created": a.m.Created}
	files := func(list []pack.File) []any {
		var out []any
		for _, f := range list {
			out = append(out, map[string]any{"name": f.Name, "content_ref": f.ContentRef.String(), "size": f.Size})
		}
		return out
	}
	ctx = setIf(ctx, "inputs", files(a.m.Inputs))
	var outs []any
	for _, o := range a.m.Outputs {
		outs = append(outs, map[string]any{"name": o.Name, "content_ref": o.ContentRef.String(), "size": o.Size})
	}
	ctx = setIf(ctx, "outputs", outs)
	ctx = setIf(ctx, "metadata", a.run)
	a.field("extra", map[string]any{"ctx": ctx})
	a.out.WriteString("}\n")
	return nil
}

// system writes the system prompt as the first step.
func (a *atifWriter) system() error {
	if a.m.SystemPrompt == nil {
		return nil
	}
	text, ok, err := a.text(a.m.SystemPrompt.String())
	if err != nil {
		return err
	}
	a.cur = &atifBuild{fields: map[string]any{"source": "system", "message": text}}
	if own, isObj := a.run["atif_system_step"].(map[string]any); isObj && a.orig != nil {
		a.cur.restore(own)
	} else if !ok {
		a.cur.fields["extra"] = map[string]any{"ctx": map[string]any{"content_base64": true}}
	}
	return a.flush()
}

// restore puts back a step's own fields as its trajectory gave them.
func (b *atifBuild) restore(own map[string]any) {
	for k, v := range own {
		if k == "step_id" {
			continue
		}
		b.fields[k] = v
	}
}

func (a *atifWriter) prompt(i int) error {
	p := a.m.Prompts[i]
	meta := decodeMeta(p.Metadata)
	text, ok, err := a.text(p.ContentRef.String())
	if err != nil {
		return err
	}
	if err := a.flush(); err != nil {
		return err
	}
	source := "user"
	if p.Role == "system" || p.Role == "developer" {
		source = "system"
	}
	a.cur = &atifBuild{fields: map[string]any{"source": source, "message": text}}
	if own, isObj := meta["atif_step"].(map[string]any); isObj && a.orig != nil {
		a.cur.key = "atif:" + stringOf(meta["atif_step_id"])
		a.cur.restore(own)
		return nil
	}
	ctx := map[string]any{"prompt": i}
	if p.Role != "user" && p.Role != source {
		ctx["role"] = p.Role
	}
	if !ok {
		ctx["content_base64"] = true
	}
	if ts, _ := meta["timestamp"].(string); ts != "" {
		a.cur.fields["timestamp"] = ts
	}
	a.cur.fields["extra"] = map[string]any{"ctx": ctx}
	return nil
}

func (a *atifWriter) step(s pack.Step) error {
	meta := decodeMeta(s.Metadata)
	var out *string
	binary := false
	if s.OutputRef != nil {
		text, ok, err := a.text(s.OutputRef.String())
		if err != nil {
			return err
		}
		out, binary = &text, !ok
	}
	if _, sub := meta["atif_subagent"]; sub && a.orig != nil {
		// A step of an embedded sub-agent's trajectory, which the
		// trajectory kept in the run's metadata gives back whole.
		return nil
	}
	key := ""
	if id, ok := meta["atif_step_id"]; ok && a.orig != nil {
		key = "atif:" + stringOf(id)
	}
	if key != "" {
		return a.atifEntry(s, meta, key, out)
	}
	thinking := false
	if len(s.Parameters) > 0 {
		thinking = decodeMeta(s.Parameters)["thinking"] == true
	}
	cur := a.cur
	open := cur != nil && cur.key == "" && cur.fields["source"] == "agent"
	switch s.Type {
	case "model_call":
		if !open || cur.message || len(cur.calls) > 0 || thinking && cur.fields["reasoning_content"] != nil {
			if err := a.newAgent(); err != nil {
				return err
			}
		}
		b := a.cur
		b.indices = append(b.indices, s.Index)
		if s.Timestamp != nil && b.fields["timestamp"] == nil {
			b.fields["timestamp"] = *s.Timestamp
		}
		b.fields["model_name"] = s.Tool
		text := ""
		if out != nil {
			text = *out
		}
		if thinking {
			b.fields["reasoning_content"] = text
		} else {
			b.fields["message"], b.message = text, true
		}
		if binary {
			b.ctx()["content_base64"] = true
		}
		if mt := atifMetrics(meta["usage"]); mt != nil {
			b.fields["metrics"] = mt
		}
		return nil
	case "tool_call":
		// A call with usage is the first thing a model request gave (Codex
		// says so): an agent step of its own.
		usage := atifMetrics(meta["usage"])
		if !open || usage != nil {
			if err := a.newAgent(); err != nil {
				return err
			}
			a.cur.fields["model_name"] = a.m.Model.Identifier
			if usage != nil {
				a.cur.fields["metrics"] = usage
			}
		}
		b := a.cur
		b.indices = append(b.indices, s.Index)
		if s.Timestamp != nil && b.fields["timestamp"] == nil {
			b.fields["timestamp"] = *s.Timestamp
		}
		id, _ := meta["tool_call_id"].(string)
		if id == "" || b.hasCall(id) {
			id = "call_" + strconv.Itoa(s.Index)
		}
		ctx := map[string]any{"step": s.Index}
		ctx = setIf(ctx, "outcome", s.Outcome)
		ctx = setIf(ctx, "error", meta["error"])
		if s.Timestamp != nil {
			ctx["timestamp"] = *s.Timestamp
		}
		b.calls = append(b.calls, map[string]any{"tool_call_id": id, "function_name": s.Tool, "arguments": jsonObject(s.Parameters), "extra": map[string]any{"ctx": ctx}})
		if out != nil {
			r := map[string]any{"source_call_id": id, "content": *out}
			if binary {
				r["extra"] = map[string]any{"ctx": map[string]any{"content_base64": true}}
			}
			b.results = append(b.results, atifResult{index: -1, value: r})
		}
		return nil
	}
	// An event (or a step of a type ATIF has no name for): a system step.
	if err := a.flush(); err != nil {
		return err
	}
	msg := ""
	if out != nil {
		msg = *out
	}
	a.cur = &atifBuild{fields: map[string]any{"source": "system", "message": msg}, indices: []int{s.Index}}
	ctx := a.cur.ctx()
	ctx["type"], ctx["tool"] = s.Type, s.Tool
	if binary {
		ctx["content_base64"] = true
	}
	if s.Timestamp != nil {
		a.cur.fields["timestamp"] = *s.Timestamp
	}
	return a.flush()
}

func (a *atifWriter) newAgent() error {
	if err := a.flush(); err != nil {
		return err
	}
	a.cur = &atifBuild{fields: map[string]any{"source": "agent", "message": ""}}
	return nil
}

func (b *atifBuild) ctx() map[string]any {
	ex, _ := b.fields["extra"].(map[string]any)
	if ex == nil {
		ex = map[string]any{}
		b.fields["extra"] = ex
	}
	c, _ := ex["ctx"].(map[string]any)
	if c == nil {
		c = map[string]any{}
		ex["ctx"] = c
	}
	return c
}

func (b *atifBuild) hasCall(id string) bool {
	for _, c := range b.calls {
		if c.(map[string]any)["tool_call_id"] == id {
			return true
		}
	}
	return false
}

// atifEntry adds an entry of a step that came from ATIF to that step.
func (a *atifWriter) atifEntry(s pack.Step, meta map[string]any, key string, out *string) error {
	if a.cur == nil || a.cur.key != key {
		if err := a.flush(); err != nil {
			return err
		}
		source := "agent"
		if s.Type == "event" && s.Tool == "system" {
			source = "system"
		}
		a.cur = &atifBuild{key: key, fields: map[string]any{"source": source, "message": ""}}
	}
	b := a.cur
	text := ""
	if out != nil {
		text = *out
	}
	if own, ok := meta["atif_step"].(map[string]any); ok {
		if out != nil {
			b.fields["message"] = text
		}
		b.restore(own)
		if mt := atifMetrics(meta["usage"]); mt != nil || meta["atif_metrics"] != nil {
			if mt == nil {
				mt = map[string]any{}
			}
			if rest, ok := meta["atif_metrics"].(map[string]any); ok {
				for k, v := range rest {
					mt[k] = v
				}
			}
			b.fields["metrics"] = mt
		}
		return nil
	}
	switch {
	case s.Type == "model_call":
		b.fields["reasoning_content"] = text
	case s.Type == "tool_call":
		id, _ := meta["tool_call_id"].(string)
		call := map[string]any{"tool_call_id": id, "function_name": s.Tool, "arguments": jsonObject(s.Parameters)}
		if ex, ok := meta["atif_call_extra"]; ok {
			call["extra"] = ex
		}
		b.calls = append(b.calls, call)
		if info, ok := meta["atif_result"].(map[string]any); ok {
			b.results = append(b.results, atifResultOf(info, id, out))
		}
	default:
		if info, ok := meta["atif_result"].(map[string]any); ok {
			id, _ := info["source_call_id"].(string)
			b.results = append(b.results, atifResultOf(info, id, out))
		}
	}
	return nil
}

// atifResultOf rebuilds an observation result from what the reader kept.
func atifResultOf(info map[string]any, id string, out *string) atifResult {
	r := map[string]any{}
	if id != "" && info["unnamed"] != true {
		r["source_call_id"] = id
	}
	switch {
	case info["content_absent"] == true:
	case info["content_parts"] != nil:
		r["content"] = info["content_parts"]
	case info["content_null"] == true || out == nil:
		r["content"] = nil
	default:
		r["content"] = *out
	}
	for _, k := range []string{"subagent_trajectory_ref", "extra"} {
		if v, ok := info[k]; ok {
			r[k] = v
		}
	}
	idx := -1
	if n, ok := info["index"].(json.Number); ok {
		if v, err := n.Int64(); err == nil {
			idx = int(v)
		}
	}
	return atifResult{index: idx, value: r}
}

// atifMetrics turns a step's usage into ATIF metrics: prompt tokens count
// the cached ones (Anthropic's usage counts cache reads and writes apart).
func atifMetrics(v any) map[string]any {
	u, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	num := func(k string) (int64, bool) {
		n, ok := u[k].(json.Number)
		if !ok {
			return 0, false
		}
		i, err := n.Int64()
		return i, err == nil
	}
	mt := map[string]any{}
	if in, ok := num("input_tokens"); ok {
		r, hasR := num("cache_read_input_tokens")
		c, hasC := num("cache_creation_input_tokens")
		if hasR || hasC {
			in += r + c
		}
		mt["prompt_tokens"] = in
	}
	if o, ok := num("output_tokens"); ok {
		mt["completion_tokens"] = o
	}
	if c, ok := num("cached_input_tokens"); ok {
		mt["cached_tokens"] = c
	} else if c, ok := num("cache_read_input_tokens"); ok {
		mt["cached_tokens"] = c
	}
	if n, ok := u["cost_usd"].(json.Number); ok {
		if f, err := n.Float64(); err == nil {
			mt["cost_usd"] = f
		}
	}
	if len(mt) == 0 {
		return nil
	}
	return mt
}

// flush writes the step being built.
func (a *atifWriter) flush() error {
	b := a.cur
	if b == nil {
		return nil
	}
	a.cur = nil
	f := b.fields
	f["step_id"] = a.next
	if len(b.calls) > 0 {
		f["tool_calls"] = b.calls
	}
	if len(b.results) > 0 {
		sort.SliceStable(b.results, func(i, j int) bool { return b.results[i].index < b.results[j].index })
		var res []any
		for _, r := range b.results {
			res = append(res, r.value)
		}
		f["observation"] = map[string]any{"results": res}
	}
	if b.key == "" && len(b.indices) > 0 {
		b.ctx()["steps"] = b.indices
	}
	if mt, ok := f["metrics"].(map[string]any); ok {
		for i, k := range []string{"prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd"} {
			switch v := mt[k].(type) {
			case int64:
				a.totals[i] += float64(v)
				a.has[i] = true
			case float64:
				a.totals[i] += v
				a.has[i] = true
			case json.Number:
				if x, err := v.Float64(); err == nil {
					a.totals[i] += x
					a.has[i] = true
				}
			}
		}
	}
	a.buf.Reset()
	if a.next > 1 {
		a.buf.WriteByte(',')
	}
	writeOrdered(&a.buf, f, []string{"step_id", "timestamp", "source", "model_name", "reasoning_effort", "message", "reasoning_content", "tool_calls", "observation", "metrics"})
	a.next++
	_, err := a.out.Write(a.buf.Bytes())
	return err
}

// writeOrdered writes an object with the keys of order first, in that
// order, then the others sorted.
func writeOrdered(b *bytes.Buffer, m map[string]any, order []string) {
	b.WriteByte('{')
	first := true
	put := func(k string) {
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(quote(k))
		b.WriteByte(':')
		v, _ := encodeJSON(m[k])
		b.Write(v)
	}
	done := map[string]bool{}
	for _, k := range order {
		if _, ok := m[k]; ok {
			put(k)
			done[k] = true
		}
	}
	for _, k := range sortedKeys(m) {
		if !done[k] {
			put(k)
		}
	}
	b.WriteByte('}')
}

func encodeJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func quote(s string) string {
	b, _ := encodeJSON(s)
	return string(b)
}

// jsonObject decodes a step's parameters, an object.
func jsonObject(raw json.RawMessage) map[string]any {
	m := decodeMeta(raw)
	if m == nil {
		m = map[string]any{}
	}
	return m
}
