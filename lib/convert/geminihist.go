package convert

import (
	"regexp"
	"strings"
)

// Gemini CLI keeps a conversation's history as the Gemini API sees it: a
// list of Content objects, {"role": "user"|"model", "parts": [...]}, each
// part a {text} (with "thought": true for the model's reasoning), a
// {functionCall: {id?, name, args}}, a {functionResponse: {id?, name,
// response: {output}|{error}}}, an {executableCode} with its
// {codeExecutionResult}, or inline data. "/chat save TAG" writes it as
// checkpoint-TAG.json (bare, or as {"history": [...]} in later versions);
// history exports and API logs hold the same. The first user turn is the
// CLI's own setup context ("This is the Gemini CLI. We are setting up the
// context..."), not the user's words.

// geminiContents returns the Content list of a history: the document, or
// its "history" (a checkpoint of later versions) or "contents" (an API
// request).
func geminiContents(n node) (node, bool) { return listIn(n, "history", "contents") }

func isGeminiHistory(v any) bool {
	cn, ok := geminiContents(root(v, 0))
	if !ok {
		return false
	}
	list, _ := cn.arr()
	if len(list) == 0 {
		return false
	}
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		role, _ := m["role"].(string)
		if _, parts := m["parts"].([]any); !parts || (role != "user" && role != "model" && role != "function") {
			return false
		}
		if _, ok := m["content"]; ok {
			return false
		}
	}
	return true
}

func convertGeminiHistory(d *document, w *writer) error {
	return d.withLine(geminiHistoryDoc(d, w))
}

// geminiSetup recognises the context the CLI sends before the user's
// first words, and the model's acknowledgement of it.
func geminiSetup(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "This is the Gemini CLI.") || strings.HasPrefix(t, "<session_context>")
}

// geminiCwd finds the working directory the setup context names.
func geminiCwd() *regexp.Regexp {
	return regexp.MustCompile(`I'm currently working in the directory: ([^\n]+)`)
}

type geminiHist struct {
	w     *writer
	q     *steps
	setup bool // the last user turn was the CLI's setup context
}

func geminiHistoryDoc(d *document, w *writer) error {
	n := d.first()
	cn, ok := geminiContents(n)
	if !ok {
		return n.errorf("expected a list of Gemini API Content objects, or {\"history\": [...]}")
	}
	r := runFields{Metadata: map[string]any{"source_format": "gemini-history"}}
	if m, ok := n.obj(); ok {
		r.Metadata = setIf(r.Metadata, "extra", rest(m, "history", "contents"))
	}
	list, _ := cn.arr()
	// The setup context names the working directory.
	for _, e := range list {
		m, _ := e.(map[string]any)
		text, _, _ := textOf(root(m["parts"], 0))
		if sm := geminiCwd().FindStringSubmatch(text); sm != nil {
			w.setWorkdir(strings.TrimSpace(sm[1]))
			break
		}
	}
	if err := w.run(r); err != nil {
		return err
	}
	g := &geminiHist{w: w, q: newSteps(w)}
	for i := range list {
		c := cn.idx(i)
		m, err := c.needObj()
		if err != nil {
			return err
		}
		role, err := c.key("role").needStr()
		if err != nil {
			return err
		}
		parts := c.key("parts")
		if _, err := parts.needArr(); err != nil {
			return err
		}
		meta := setIf(nil, "extra", rest(m, "role", "parts"))
		if role == "model" {
			err = g.model(parts, meta)
		} else {
			err = g.user(parts, meta)
		}
		if err != nil {
			return err
		}
	}
	if err := g.q.close(); err != nil {
		return err
	}
	return w.close(r)
}

// model maps a model turn: reasoning, text, calls, in their order.
func (g *geminiHist) model(parts node, meta map[string]any) error {
	model := g.w.model
	var text []string
	var other []any
	flush := func() error {
		if len(text) == 0 {
			return nil
		}
		s := strings.Join(text, "")
		text = nil
		m := meta
		meta = nil
		if g.setup {
			// The model's acknowledgement of the setup context.
			m = setIf(m, "setup", true)
		}
		_, err := g.q.add(stepRec{Type: "model_call", Tool: model, Output: &s, Meta: m})
		return err
	}
	list, _ := parts.arr()
	for i := range list {
		p := parts.idx(i)
		pm, err := p.needObj()
		if err != nil {
			return err
		}
		switch {
		case pm["thought"] == true:
			if err := flush(); err != nil {
				return err
			}
			s, err := p.key("text").optStr()
			if err != nil {
				return err
			}
			tm := setIf(meta, "signature", pm["thoughtSignature"])
			meta = nil
			if _, err := g.q.add(thinking(model, &s, "", tm)); err != nil {
				return err
			}
		case pm["functionCall"] != nil:
			if err := flush(); err != nil {
				return err
			}
			fc := p.key("functionCall")
			fm, err := fc.needObj()
			if err != nil {
				return err
			}
			name, err := fc.key("name").needStr()
			if err != nil {
				return err
			}
			params, bad := parseArguments(fm["args"])
			cm := setIf(meta, "arguments_not_json", bad)
			meta = nil
			cm = setIf(cm, "signature", pm["thoughtSignature"])
			cm = setIf(cm, "call_extra", rest(fm, "id", "name", "args"))
			id, _ := fm["id"].(string)
			if id == "" {
				id = "function:" + name
			}
			if _, err := g.q.call(id, stepRec{Type: "tool_call", Tool: name, Params: params, Meta: cm}); err != nil {
				return err
			}
		case pm["executableCode"] != nil:
			if err := flush(); err != nil {
				return err
			}
			ec, _ := pm["executableCode"].(map[string]any)
			params := map[string]any{}
			if ec != nil {
				params = cloneMeta(ec)
			}
			cm := meta
			meta = nil
			if _, err := g.q.call("code_execution", stepRec{Type: "tool_call", Tool: "code_execution", Params: params, Meta: cm}); err != nil {
				return err
			}
		default:
			if s, ok := pm["text"].(string); ok {
				text = append(text, s)
				continue
			}
			other = append(other, pm)
		}
	}
	if len(other) > 0 {
		if len(text) == 0 {
			// Parts of no kind known here still make a model call.
			text = append(text, "")
		}
		meta = setIf(meta, "parts", other)
	}
	return flush()
}

// user maps a user (or function) turn: results to their calls, text to a
// prompt, the CLI's setup context to an event.
func (g *geminiHist) user(parts node, meta map[string]any) error {
	var texts []string
	var other []any
	list, _ := parts.arr()
	for i := range list {
		p := parts.idx(i)
		pm, err := p.needObj()
		if err != nil {
			return err
		}
		switch {
		case pm["functionResponse"] != nil:
			fr := p.key("functionResponse")
			fm, err := fr.needObj()
			if err != nil {
				return err
			}
			name, _ := fm["name"].(string)
			id, _ := fm["id"].(string)
			if id == "" || g.q.pending(id) == nil {
				// No id, or one no call gave: the oldest waiting call of
				// the tool the response names (the API answers in order).
				if oid, ok := g.q.oldestOpen(name); ok {
					id = oid
				} else {
					id = "function:" + name
				}
			}
			text, has, isErr, extra := geminiResult(node{v: []any{pm}, path: p.path, line: p.line})
			rm := setIf(nil, "result_parts", extra)
			if _, err := g.q.result(id, callResult{Text: text, HasText: has, IsError: isErr, Tool: name, Meta: rm}); err != nil {
				return err
			}
		case pm["codeExecutionResult"] != nil:
			cr, _ := pm["codeExecutionResult"].(map[string]any)
			out, _ := cr["output"].(string)
			outcome, _ := cr["outcome"].(string)
			rm := setIf(nil, "code_outcome", outcome)
			if _, err := g.q.result("code_execution", callResult{Text: out, HasText: true, IsError: outcome != "" && outcome != "OUTCOME_OK", Tool: "code_execution", Meta: rm}); err != nil {
				return err
			}
		default:
			if s, ok := pm["text"].(string); ok {
				texts = append(texts, s)
				continue
			}
			other = append(other, pm)
		}
	}
	g.setup = false
	if len(texts) == 0 && len(other) == 0 {
		return nil
	}
	text := strings.Join(texts, "\n")
	if geminiSetup(text) {
		g.setup = true
		_, err := g.q.add(stepRec{Type: "event", Tool: "meta", Output: &text, Meta: setIf(setIf(meta, "role", "user"), "parts", other)})
		return err
	}
	meta = setIf(meta, "parts", other)
	return g.q.prompt("user", text, meta)
}
