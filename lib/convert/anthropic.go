package convert

import "strings"

// The Anthropic Messages API: a request {model, system, messages, ...}
// whose messages hold content blocks: text, thinking, tool_use in assistant
// turns; text and tool_result (answering a tool_use by id, with is_error)
// in user turns. A transcript is such a request, its messages alone, or
// messages where assistant turns are whole responses (id, model, usage).

// anthropicBlocks reports whether any message holds a block only the
// Messages API writes.
func anthropicBlocks(v any) bool {
	list, _ := v.([]any)
	for _, e := range list {
		m, _ := e.(map[string]any)
		if m["type"] == "message" {
			return true
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			switch t, _ := bm["type"].(string); t {
			case "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use":
				return true
			}
		}
	}
	return false
}

func isAnthropic(v any) bool {
	n := root(v, 0)
	msgs := n
	if m, ok := n.obj(); ok {
		msgs = n.key("messages")
		if !looksLikeMessages(msgs.v) {
			return false
		}
		if _, ok := m["system"]; ok {
			return true
		}
		if _, ok := m["anthropic_version"]; ok {
			return true
		}
	}
	return looksLikeMessages(msgs.v) && anthropicBlocks(msgs.v)
}

func convertAnthropic(d *document, w *writer) error {
	n := d.first()
	msgs := n
	var r runFields
	r.Metadata = map[string]any{"source_format": "anthropic"}
	if m, ok := n.obj(); ok {
		msgs = n.key("messages")
		model, err := n.key("model").optStr()
		if err != nil {
			return err
		}
		r.Model = model
		params, extra := splitRecord(m, "messages", "model", "system")
		r.Parameters = params
		r.Metadata = setIf(r.Metadata, "record", extra)
		sys := n.key("system")
		if !sys.null() {
			text, _, parts := textOf(sys)
			if len(parts) > 0 {
				return sys.errorf("must be a string or an array of text blocks")
			}
			r.SystemPrompt = &text
		}
	}
	list, err := msgs.needArr()
	if err != nil {
		return err
	}
	if r.Model == "" {
		// Responses kept in the list name their model.
		for _, e := range list {
			if m, _ := e.(map[string]any); m != nil {
				if s, _ := m["model"].(string); s != "" {
					r.Model = s
					break
				}
			}
		}
	}
	if err := w.run(r); err != nil {
		return err
	}
	a := &anthropic{w: w, q: newSteps(w)}
	for i := range list {
		if err := a.message(msgs.idx(i)); err != nil {
			return err
		}
	}
	if err := a.q.close(); err != nil {
		return err
	}
	return w.close(r)
}

type anthropic struct {
	w *writer
	q *steps
}

func (a *anthropic) message(n node) error {
	m, err := n.needObj()
	if err != nil {
		return err
	}
	role, err := n.key("role").needStr()
	if err != nil {
		return err
	}
	var meta map[string]any
	meta = setIf(meta, "message_id", m["id"])
	meta = setIf(meta, "usage", m["usage"])
	meta = setIf(meta, "stop_reason", m["stop_reason"])
	meta = setIf(meta, "extra", rest(m, "role", "content", "id", "type", "model", "usage", "stop_reason"))
	content := n.key("content")
	if s, ok := content.str(); ok {
		if role == "assistant" {
			_, err := a.q.add(stepRec{Type: "model_call", Tool: a.model(m), Output: &s, Meta: meta})
			return err
		}
		return a.q.prompt(role, s, meta)
	}
	blocks, err := content.needArr()
	if err != nil {
		return err
	}
	if role == "assistant" {
		return a.assistant(content, blocks, m, meta)
	}
	var texts []string
	var other []any
	for i := range blocks {
		b := content.idx(i)
		bm, err := b.needObj()
		if err != nil {
			return err
		}
		typ, _ := bm["type"].(string)
		switch {
		case typ == "text":
			s, err := b.key("text").optStr()
			if err != nil {
				return err
			}
			texts = append(texts, s)
		case resultBlock(typ):
			if err := a.result(b, bm); err != nil {
				return err
			}
		default:
			other = append(other, bm)
		}
	}
	if len(texts) > 0 || len(other) > 0 {
		meta = setIf(meta, "parts", other)
		return a.q.prompt(role, strings.Join(texts, "\n"), meta)
	}
	return nil
}

func (a *anthropic) model(m map[string]any) string {
	if s, _ := m["model"].(string); s != "" {
		return s
	}
	return a.w.model
}

func (a *anthropic) assistant(content node, blocks []any, m, meta map[string]any) error {
	model := a.model(m)
	var text []string
	first := true
	next := func() map[string]any {
		if first {
			first = false
			return meta
		}
		return nil
	}
	flushText := func() error {
		if len(text) == 0 {
			return nil
		}
		out := strings.Join(text, "\n\n")
		text = nil
		_, err := a.q.add(stepRec{Type: "model_call", Tool: model, Output: &out, Meta: next()})
		return err
	}
	for i := range blocks {
		b := content.idx(i)
		bm, err := b.needObj()
		if err != nil {
			return err
		}
		typ, _ := bm["type"].(string)
		switch {
		case typ == "text":
			s, err := b.key("text").optStr()
			if err != nil {
				return err
			}
			text = append(text, s)
		case typ == "thinking" || typ == "redacted_thinking":
			if err := flushText(); err != nil {
				return err
			}
			t, _ := blockThinking(b, typ)
			if _, ok := bm["thinking"].(string); !ok {
				t = nil
			}
			s := thinking(model, t, "", next())
			s.Meta = setIf(s.Meta, "signature", bm["signature"])
			s.Meta = setIf(s.Meta, "redacted_thinking", bm["data"])
			if _, err := a.q.add(s); err != nil {
				return err
			}
		case callBlock(typ):
			if err := flushText(); err != nil {
				return err
			}
			if _, err := b.key("name").needStr(); err != nil {
				return err
			}
			id, s, err := blockCall(b, bm, typ, next(), "")
			if err != nil {
				return err
			}
			if _, err := a.q.call(id, s); err != nil {
				return err
			}
		case strings.HasSuffix(typ, "_tool_result"):
			// A server tool's result comes inside the assistant turn.
			if err := flushText(); err != nil {
				return err
			}
			if err := a.result(b, bm); err != nil {
				return err
			}
		default:
			if err := flushText(); err != nil {
				return err
			}
			sm := setIf(next(), "block", bm)
			if _, err := a.q.add(stepRec{Type: "event", Tool: "assistant/" + typ, Meta: sm}); err != nil {
				return err
			}
		}
	}
	if err := flushText(); err != nil {
		return err
	}
	if first && meta != nil {
		// A turn with no blocks at all still happened.
		_, err := a.q.add(stepRec{Type: "model_call", Tool: model, Meta: meta})
		return err
	}
	return nil
}

func (a *anthropic) result(b node, bm map[string]any) error {
	id, err := b.key("tool_use_id").optStr()
	if err != nil {
		return err
	}
	c := b.key("content")
	text, has, parts := textOf(c)
	var meta map[string]any
	if len(parts) > 0 && !has {
		// Structured results (web search hits...) are the output, as JSON.
		raw, _ := jsonText(c.v)
		text, has, parts = raw, true, nil
	}
	meta = setIf(meta, "result_parts", parts)
	meta = setIf(meta, "result_extra", rest(bm, "type", "tool_use_id", "content", "is_error"))
	if t, _ := bm["type"].(string); t != "tool_result" {
		meta = setIf(meta, "result_type", t)
	}
	_, err = a.q.result(id, callResult{Text: text, HasText: has, IsError: b.key("is_error").bool(), Meta: meta})
	return err
}
