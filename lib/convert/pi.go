package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// The pi coding agent writes a session as JSONL
// (~/.pi/agent/sessions/--CWD--/TIME_UUID.jsonl, format described in
// pi-mono's packages/coding-agent/docs/session.md): a header line
// {"type":"session", "version", "id", "timestamp", "cwd"}, then entries:
// message (an AgentMessage of role user, assistant, toolResult,
// bashExecution...), model_change, thinking_level_change, compaction,
// branch_summary, custom, custom_message, label, session_info. Version 1
// is a list; versions 2 and 3 give each entry an id and its parentId, so
// the session is a tree whose branches are alternatives: the conversation
// is the path from the last entry back to the root.

// isPiLine recognises a pi session's header.
func isPiLine(line []byte) bool {
	var head struct {
		Type *string `json:"type"`
		ID   *string `json:"id"`
		Cwd  *string `json:"cwd"`
		TS   *string `json:"timestamp"`
	}
	if !lineObject(line, &head) || head.Type == nil || *head.Type != "session" {
		return false
	}
	return head.ID != nil && (head.Cwd != nil || head.TS != nil)
}

// piEntry is a line of the session, held undecoded until the path through
// the tree is known.
type piEntry struct {
	raw    []byte
	line   int
	id     string
	parent string
}

func convertPi(r *bufio.Reader, w *writer) error {
	var header node
	var entries []piEntry
	for lineNo := 1; ; lineNo++ {
		line, err := pack.ReadLine(r, nil)
		if err != nil && err != io.EOF {
			return err
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			if header.v == nil {
				v, derr := jcs.Decode(t)
				if derr != nil {
					return jsonError(t, derr, lineNo)
				}
				header = root(v, lineNo)
				if typ, _ := header.key("type").v.(string); typ != "session" {
					return &InputError{Line: lineNo, Msg: `a pi session begins with its header, {"type": "session", ...}`}
				}
			} else {
				e, perr := piLink(t, lineNo, entries)
				if perr != nil {
					return perr
				}
				entries = append(entries, e)
			}
		}
		if err == io.EOF {
			break
		}
	}
	if header.v == nil {
		return &InputError{Line: 1, Msg: "empty input: expected a pi session"}
	}
	path, off := piPath(entries)
	p := &pi{w: w, q: newSteps(w)}
	nodes := make([]node, len(path))
	for i, k := range path {
		v, err := jcs.Decode(entries[k].raw)
		if err != nil {
			return jsonError(entries[k].raw, err, entries[k].line)
		}
		w.tally.census(v)
		nodes[i] = root(v, entries[k].line)
		entries[k].raw = nil
	}
	r0, err := p.runFields(header, nodes)
	if err != nil {
		return err
	}
	if off > 0 {
		w.warnf("%d entries are on branches the session left (not on the path from its last entry to the first): not converted", off)
		r0.Metadata = setIf(r0.Metadata, "entries_on_other_branches", off)
	}
	w.setWorkdir(header.key("cwd").string())
	if err := w.run(r0); err != nil {
		return err
	}
	p.results = map[string]bool{}
	for _, n := range nodes {
		if n.key("type").string() == "message" && n.key("message").key("role").string() == "toolResult" {
			p.results[n.key("message").key("toolCallId").string()] = true
		}
	}
	p.q.answered = func(s *stepRec) { s.Normalized = fileSentence(s.Tool, s.Params, w.wd) }
	for _, n := range nodes {
		if err := p.entry(n); err != nil {
			return err
		}
	}
	if err := p.q.close(); err != nil {
		return err
	}
	return w.close(r0)
}

// piLink reads an entry's id and parent. An entry without an id (version
// 1) follows the one before it, as pi's own migration links them.
func piLink(t []byte, lineNo int, before []piEntry) (piEntry, error) {
	var head struct {
		ID     json.RawMessage `json:"id"`
		Parent json.RawMessage `json:"parentId"`
	}
	if err := json.Unmarshal(t, &head); err != nil {
		var obj map[string]json.RawMessage
		if jerr := json.Unmarshal(t, &obj); jerr != nil {
			return piEntry{}, jsonError(t, jerr, lineNo)
		}
		return piEntry{}, &InputError{Line: lineNo, Msg: "id and parentId must be strings"}
	}
	e := piEntry{raw: append([]byte(nil), t...), line: lineNo}
	var id, parent *string
	if len(head.ID) > 0 && string(head.ID) != "null" {
		if json.Unmarshal(head.ID, &id) != nil || id == nil {
			return e, &InputError{Line: lineNo, Path: ".id", Msg: "must be a string"}
		}
		e.id = *id
	}
	if len(head.Parent) > 0 && string(head.Parent) != "null" {
		if json.Unmarshal(head.Parent, &parent) != nil || parent == nil {
			return e, &InputError{Line: lineNo, Path: ".parentId", Msg: "must be a string or null"}
		}
		e.parent = *parent
	}
	if e.id == "" {
		e.id = fmt.Sprintf("#%d", lineNo)
		if len(before) > 0 {
			e.parent = before[len(before)-1].id
		}
	}
	return e, nil
}

// piPath returns the indices of the entries on the path from the last
// entry back to the root, in order, and how many entries are off it.
func piPath(entries []piEntry) ([]int, int) {
	if len(entries) == 0 {
		return nil, 0
	}
	byID := make(map[string]int, len(entries))
	for i, e := range entries {
		byID[e.id] = i
	}
	var path []int
	seen := map[int]bool{}
	for k := len(entries) - 1; ; {
		if seen[k] {
			break // a loop of parents: the path ends where it closes
		}
		seen[k] = true
		path = append(path, k)
		next, ok := byID[entries[k].parent]
		if entries[k].parent == "" || !ok {
			break
		}
		k = next
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, len(entries) - len(path)
}

type pi struct {
	w       *writer
	q       *steps
	results map[string]bool // tool call ids a result answers
}

// runFields reads what holds for the whole run: the header's session and
// working directory, the first entry's time, and the model that answered.
func (p *pi) runFields(header node, nodes []node) (runFields, error) {
	var r runFields
	r.Metadata = map[string]any{"source_format": "pi"}
	hm, err := header.needObj()
	if err != nil {
		return r, err
	}
	r.Metadata = setIf(r.Metadata, "session_id", hm["id"])
	version := any(json.Number("1"))
	if v, ok := hm["version"]; ok && v != nil {
		version = v
	}
	r.Metadata["pi_session_version"] = version
	r.Metadata = setIf(r.Metadata, "session", rest(hm, "type", "id", "version", "cwd", "timestamp", "provider", "modelId", "thinkingLevel"))
	if tl, ok := hm["thinkingLevel"].(string); ok && tl != "" {
		r.Parameters = map[string]any{"thinking_level": tl}
	}
	// The header's time is when the file was written, which can be after
	// the run; the run began with its first entry.
	for _, n := range nodes {
		if ts := rfc3339(n.key("timestamp").string()); ts != "" {
			r.Created = ts
			break
		}
	}
	if r.Created == "" {
		r.Created = rfc3339(header.key("timestamp").string())
	}
	// The model is the one that answered first; a request aborted before
	// any answer (pi writes an empty assistant message) names no model
	// that worked.
	first, provider := "", ""
	for _, n := range nodes {
		msg := n.key("message")
		if n.key("type").string() != "message" || msg.key("role").string() != "assistant" {
			continue
		}
		model := msg.key("model").string()
		if first == "" {
			first, provider = model, msg.key("provider").string()
		}
		if list, _ := msg.key("content").arr(); len(list) > 0 && model != "" {
			r.Model, provider = model, msg.key("provider").string()
			break
		}
	}
	if r.Model == "" {
		r.Model = first
	}
	if r.Model == "" {
		r.Model, _ = hm["modelId"].(string)
		provider, _ = hm["provider"].(string)
	}
	r.Metadata = setIf(r.Metadata, "provider", provider)
	return r, nil
}

// entryMeta is the metadata every step of an entry carries.
func entryMeta(m map[string]any) map[string]any {
	var meta map[string]any
	meta = setIf(meta, "entry_id", m["id"])
	meta = setIf(meta, "parent_id", m["parentId"])
	return meta
}

func (p *pi) entry(n node) error {
	m, err := n.needObj()
	if err != nil {
		return err
	}
	typ, err := n.key("type").optStr()
	if err != nil {
		return err
	}
	ts := rfc3339(n.key("timestamp").string())
	meta := entryMeta(m)
	if typ == "message" {
		return p.message(n, n.key("message"), ts, meta)
	}
	if typ == "" {
		typ = "unknown"
	}
	// Entries that are not messages happened between them: model and
	// thinking-level changes, compactions, summaries of abandoned
	// branches, extension entries, labels, the session's name.
	s := stepRec{Type: "event", Tool: typ, Timestamp: ts}
	// A change of model or thinking level, a label, the session's name:
	// bookkeeping, kept in metadata; a compaction or a branch's summary
	// changed what the model saw, and custom entries may: steps.
	switch typ {
	case "model_change", "thinking_level_change", "label", "session_info":
		s.Bookkeeping = true
	}
	known := []string{"type", "id", "parentId", "timestamp"}
	switch typ {
	case "compaction", "branch_summary":
		if t, ok := m["summary"].(string); ok {
			s.Output = &t
			known = append(known, "summary")
		}
	case "custom_message":
		if text, has, parts := textOf(n.key("content")); has {
			s.Output = &text
			known = append(known, "content")
			meta = setIf(meta, "parts", parts)
		}
	}
	s.Meta = setIf(meta, "entry", rest(m, known...))
	_, err = p.q.add(s)
	return err
}

func (p *pi) message(n, msg node, ts string, meta map[string]any) error {
	mm, err := msg.needObj()
	if err != nil {
		return err
	}
	role, err := msg.key("role").needStr()
	if err != nil {
		return err
	}
	switch role {
	case "user":
		text, _, parts := textOf(msg.key("content"))
		meta = setIf(meta, "timestamp", ts)
		meta = setIf(meta, "parts", parts)
		meta = setIf(meta, "message_extra", rest(mm, "role", "content", "timestamp"))
		return p.q.prompt("user", text, meta)
	case "assistant":
		return p.assistant(msg, mm, ts, meta)
	case "toolResult":
		id, err := msg.key("toolCallId").optStr()
		if err != nil {
			return err
		}
		text, has, parts := textOf(msg.key("content"))
		meta = setIf(meta, "result_parts", parts)
		meta = setIf(meta, "details", mm["details"])
		meta = setIf(meta, "result_extra", rest(mm, "role", "toolCallId", "toolName", "content", "details", "isError", "timestamp"))
		name, _ := mm["toolName"].(string)
		r := callResult{Text: text, HasText: has, IsError: msg.key("isError").bool(), Tool: name, Timestamp: ts, Meta: meta}
		_, err = p.q.result(id, r)
		return err
	}
	// A shell command the user ran (!cmd), an extension's message, the
	// summary of a compaction or of an abandoned branch: events.
	s := stepRec{Type: "event", Tool: role, Timestamp: ts}
	known := []string{"role", "timestamp"}
	if role == "bashExecution" {
		if out, ok := mm["output"].(string); ok {
			s.Output = &out
			known = append(known, "output")
		}
	} else if text, has, parts := textOf(msg.key("content")); has {
		s.Output = &text
		known = append(known, "content")
		meta = setIf(meta, "parts", parts)
	} else if sum, ok := mm["summary"].(string); ok {
		s.Output = &sum
		known = append(known, "summary")
	}
	s.Meta = setIf(meta, "message", rest(mm, known...))
	_, err = p.q.add(s)
	return err
}

// assistant maps an assistant message: its thinking, its text as one
// model_call, then its tool calls, in block order. A message that ended
// aborted or in error had its tool calls cut off: pi never ran them, and
// unless a result says otherwise they are rejected.
func (p *pi) assistant(msg node, mm map[string]any, ts string, meta map[string]any) error {
	model := msg.key("model").string()
	if model == "" {
		model = p.w.model
	}
	stop, _ := mm["stopReason"].(string)
	first := setIf(cloneMeta(meta), "message", rest(mm, "role", "content", "model"))
	next := func() map[string]any {
		m := first
		first = nil
		if m == nil {
			m = cloneMeta(meta)
		}
		return m
	}
	content := msg.key("content")
	list, _ := content.arr()
	var texts []string
	var calls []node
	for i := range list {
		b := content.idx(i)
		bm, err := b.needObj()
		if err != nil {
			return err
		}
		switch typ, _ := bm["type"].(string); typ {
		case "thinking":
			s, err := blockThinking(b, typ)
			if err != nil {
				return err
			}
			tm := setIf(next(), "block_extra", rest(bm, "type", "thinking"))
			if _, err := p.q.add(thinking(model, s, ts, tm)); err != nil {
				return err
			}
		case "text":
			s, err := b.key("text").optStr()
			if err != nil {
				return err
			}
			texts = append(texts, s)
		case "toolCall":
			calls = append(calls, b) // after the text, in their order
		default:
			if _, err := p.q.add(stepRec{Type: "event", Tool: "assistant/" + typ, Timestamp: ts, Meta: setIf(next(), "block", bm)}); err != nil {
				return err
			}
		}
	}
	if len(texts) > 0 || len(calls) == 0 {
		// A message with neither text nor calls (an aborted request)
		// still happened.
		s := stepRec{Type: "model_call", Tool: model, Timestamp: ts, Meta: next()}
		if len(texts) > 0 {
			out := strings.Join(texts, "\n\n")
			s.Output = &out
		}
		if _, err := p.q.add(s); err != nil {
			return err
		}
	}
	for _, b := range calls {
		bm, _ := b.obj()
		id, s, err := blockCall(b, bm, "toolCall", next(), ts)
		if err != nil {
			return err
		}
		if (stop == "aborted" || stop == "error") && !p.results[id] {
			s.Outcome = pack.OutcomeRejected
			s.Meta = setIf(s.Meta, "tool_call_id", id)
			s.Meta = setIf(s.Meta, "not_run", stop)
			if _, err := p.q.add(s); err != nil {
				return err
			}
			continue
		}
		if _, err := p.q.call(id, s); err != nil {
			return err
		}
	}
	return nil
}
