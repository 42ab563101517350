package convert

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// The OpenAI Responses API speaks in items: message (role user, assistant,
// system or developer, content parts input_text / output_text / refusal
// / input_image), reasoning (summary parts, encrypted content),
// function_call answered by function_call_output (by call_id),
// custom_tool_call and its output, local_shell_call, web_search_call,
// file_search_call, computer_call, code_interpreter_call, mcp_call and the
// rest. Codex writes the same items, without their ids, as the
// response_item lines of its rollout. respItems maps them for both
// readers.

// respMaxHeld bounds a model request held for its token usage: past this
// many steps or bytes it is written without waiting further.
const (
	respMaxHeldSteps = 256
	respMaxHeldBytes = 8 << 20
)

type respItems struct {
	w *writer
	q *steps
	// model is the model answering now ("" before any names it).
	model string
	// codex marks a Codex rollout: developer messages and the harness text
	// Codex sends as user messages are meta events, not prompts.
	codex bool
	// skip is the index of the item that became the system prompt (-1).
	skip int

	req     []*reqItem     // the model request read so far, held for its usage
	held    int            // bytes of output held in req
	usage   map[string]any // a request's usage that came before its items
	pending *userMsg       // a user message waiting to be told a prompt or harness text
	// echo is the prompt a user_message event just gave, which the
	// response item that follows repeats.
	echo *string

	approvals map[string]map[string]any // MCP approval requests by id
	declined  map[string]bool           // call ids an end event said were declined
	searchID  string                    // the call id of the last web_search_end event
	unknown   map[string]int            // item types this reader does not know, counted
}

// reqItem is one step of a held model request.
type reqItem struct {
	s        stepRec
	id       string // the call id of a tool call waiting for a result
	res      *callResult
	model    bool // a step the model produced (its usage goes on the first)
	rejected bool
}

type userMsg struct {
	text string
	meta map[string]any
	ts   string
}

func newRespItems(w *writer, q *steps) *respItems {
	return &respItems{w: w, q: q, skip: -1, approvals: map[string]map[string]any{}, declined: map[string]bool{}, unknown: map[string]int{}}
}

func (r *respItems) answerer() string {
	if r.model != "" {
		return r.model
	}
	return r.w.model
}

// hold adds a step to the request being read, or writes it when no
// request is open and it is not the model's.
func (r *respItems) hold(it *reqItem) error {
	if it.model && len(r.req) == 0 && r.usage != nil {
		it.s.Meta = setIf(it.s.Meta, "usage", r.usage)
		r.usage = nil
	}
	if !it.model && it.id == "" && len(r.req) == 0 {
		_, err := r.q.add(it.s)
		return err
	}
	r.req = append(r.req, it)
	if it.s.Output != nil {
		r.held += len(*it.s.Output)
	}
	if len(r.req) > respMaxHeldSteps || r.held > respMaxHeldBytes {
		return r.endRequest(nil)
	}
	return nil
}

// endRequest writes the held request; usage, when given, goes on its
// first model step (or, when the request is already written, waits for
// the next one: older Codex versions count a request's tokens before
// they write its items).
func (r *respItems) endRequest(usage map[string]any) error {
	if usage != nil {
		attached := false
		for _, it := range r.req {
			if it.model {
				if _, has := it.s.Meta["usage"]; !has {
					it.s.Meta = setIf(it.s.Meta, "usage", usage)
					attached = true
				}
				break
			}
		}
		if !attached {
			r.usage = usage
		}
	}
	req := r.req
	r.req, r.held = nil, 0
	for _, it := range req {
		if it.id == "" {
			if _, err := r.q.add(it.s); err != nil {
				return err
			}
			continue
		}
		if _, err := r.q.call(it.id, it.s); err != nil {
			return err
		}
		if it.rejected && it.res == nil && len(r.declined) < maxWaiting {
			// Declined before its output came: the output will say so.
			r.declined[it.id] = true
		}
		if it.res != nil {
			if _, err := r.q.result(it.id, *it.res); err != nil {
				return err
			}
		}
	}
	return nil
}

// result answers the call with id, held or already queued; normalized,
// when not nil, is the output a replay executor gives for it.
func (r *respItems) result(id string, res callResult, rejected bool, normalized *string) error {
	if r.declined[id] {
		delete(r.declined, id)
		rejected = true
	}
	for _, it := range r.req {
		if it.id == id && it.res == nil {
			if rejected || it.rejected {
				res.Outcome = pack.OutcomeRejected
			}
			it.res = &res
			it.s.Normalized = normalized
			if res.HasText {
				r.held += len(res.Text)
			}
			return nil
		}
	}
	if rejected {
		res.Outcome = pack.OutcomeRejected
	}
	if e := r.q.pending(id); e != nil {
		e.step.Normalized = normalized
	}
	_, err := r.q.result(id, res)
	return err
}

// decline marks a call an event said was declined: Codex writes the event
// before or after the call's output.
func (r *respItems) decline(id string) {
	if id == "" {
		return
	}
	for _, it := range r.req {
		if it.id == id {
			it.rejected = true
			if it.res != nil {
				it.res.Outcome = pack.OutcomeRejected
			}
			return
		}
	}
	if r.q.pending(id) != nil && len(r.declined) < maxWaiting {
		r.declined[id] = true
	}
}

// prompt writes a user-side message, after the request it followed.
func (r *respItems) prompt(role, text string, meta map[string]any) error {
	if err := r.endRequest(nil); err != nil {
		return err
	}
	return r.q.prompt(role, text, meta)
}

// event adds an event step in its place among the held steps.
func (r *respItems) event(tool string, out *string, ts string, meta map[string]any) error {
	return r.hold(&reqItem{s: stepRec{Type: "event", Tool: tool, Output: out, Timestamp: ts, Meta: meta}})
}

// item maps one item; i is its index in its list (for skip).
func (r *respItems) item(n node, i int, ts string) error {
	m, err := n.needObj()
	if err != nil {
		return err
	}
	typ, err := n.key("type").optStr()
	if err != nil {
		return err
	}
	if typ == "" {
		if _, ok := m["role"]; ok {
			typ = "message" // the shorthand {role, content} of a request's input
		}
	}
	var meta map[string]any
	meta = setIf(meta, "item_id", m["id"])
	meta = setIf(meta, "status", m["status"])
	switch typ {
	case "message":
		if r.skip >= 0 && i == r.skip {
			return nil
		}
		return r.message(n, m, ts, meta)
	case "reasoning":
		return r.reasoning(n, m, ts, meta)
	case "function_call", "custom_tool_call":
		return r.call(n, m, typ, ts, meta)
	case "local_shell_call", "computer_call":
		id, _ := m["call_id"].(string)
		if id == "" {
			id, _ = m["id"].(string)
		}
		action, _ := m["action"].(map[string]any)
		params := cloneMeta(action)
		if typ == "local_shell_call" {
			delete(params, "type")
		}
		meta = setIf(meta, "tool_call_id", id)
		meta = setIf(meta, "extra", rest(m, "type", "id", "call_id", "status", "action"))
		tool := strings.TrimSuffix(typ, "_call")
		return r.hold(&reqItem{s: stepRec{Type: "tool_call", Tool: tool, Params: params, Timestamp: ts, Meta: meta}, id: id, model: true})
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "computer_call_output":
		return r.output(n, m, ts)
	case "web_search_call", "file_search_call", "code_interpreter_call", "image_generation_call", "mcp_call":
		return r.hostedCall(n, m, typ, ts, meta)
	case "mcp_approval_request":
		if id, _ := m["id"].(string); id != "" && len(r.approvals) < maxWaiting {
			r.approvals[id] = m
		}
		return r.event(typ, nil, ts, setIf(meta, "item", rest(m, "type", "id", "status")))
	case "mcp_approval_response":
		return r.approval(m, ts, meta)
	case "ghost_snapshot", "compaction", "compaction_summary", "mcp_list_tools", "item_reference":
		item := rest(m, "type", "id", "status", "encrypted_content")
		meta = setIf(meta, "encrypted", m["encrypted_content"] != nil)
		if typ == "ghost_snapshot" { // Codex's snapshot of the tree for undo: bookkeeping
			return r.hold(&reqItem{s: stepRec{Type: "event", Tool: typ, Timestamp: ts, Meta: setIf(meta, "item", item), Bookkeeping: true}})
		}
		return r.event(typ, nil, ts, setIf(meta, "item", item))
	}
	// An item of a type this reader does not know is kept whole.
	if typ == "" {
		typ = "unknown"
	}
	r.unknown[typ]++
	return r.event("item/"+typ, nil, ts, setIf(meta, "item", rest(m, "id", "status")))
}

func (r *respItems) message(n node, m map[string]any, ts string, meta map[string]any) error {
	role, err := n.key("role").needStr()
	if err != nil {
		return err
	}
	content := n.key("content")
	switch content.v.(type) {
	case nil, string, []any:
	default:
		return content.errorf("must be a string or an array of content parts, not %s", kindOf(content.v))
	}
	text, has, parts := textOf(content)
	var other []any
	var refusal []string
	for _, p := range parts {
		pm, _ := p.(map[string]any)
		if s, ok := pm["refusal"].(string); ok && pm["type"] == "refusal" {
			refusal = append(refusal, s)
			continue
		}
		other = append(other, p)
	}
	meta = setIf(meta, "phase", m["phase"])
	meta = setIf(meta, "parts", other)
	meta = setIf(meta, "extra", rest(m, "type", "role", "content", "id", "status", "phase"))
	switch role {
	case "assistant":
		if len(refusal) > 0 {
			meta = setIf(meta, "refusal", true)
			if has {
				text += "\n"
			}
			text += strings.Join(refusal, "\n")
			has = true
		}
		s := stepRec{Type: "model_call", Tool: r.answerer(), Timestamp: ts, Meta: meta}
		if has || len(other) == 0 {
			s.Output = &text
		}
		return r.hold(&reqItem{s: s, model: true})
	case "user":
		return r.user(text, meta, ts)
	case "system", "developer":
		if r.codex {
			// Codex sends its permissions, collaboration and skills
			// instructions as developer messages: the harness, not a
			// person.
			meta = setIf(meta, "role", role)
			if err := r.endRequest(nil); err != nil {
				return err
			}
			return r.event("meta", &text, ts, meta)
		}
		return r.prompt("system", text, setIf(meta, "timestamp", ts))
	}
	return r.prompt(role, text, setIf(meta, "timestamp", ts))
}

// codexHarness reports whether a user message Codex wrote holds the
// harness's own text (AGENTS.md instructions, the environment context,
// turn markers) rather than what the user typed.
func codexHarness(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "<") || strings.HasPrefix(t, "# AGENTS.md instructions")
}

// user maps a user message. In a Codex rollout, what the user typed is
// also written as a user_message event, right after (or before) the item;
// an item no event repeats is the harness's text when it looks so.
func (r *respItems) user(text string, meta map[string]any, ts string) error {
	if !r.codex {
		return r.prompt("user", text, setIf(meta, "timestamp", ts))
	}
	if r.echo != nil && *r.echo == text {
		r.echo = nil
		return nil
	}
	if err := r.settleUser(); err != nil {
		return err
	}
	r.pending = &userMsg{text: text, meta: meta, ts: ts}
	return nil
}

// userEvent is a Codex user_message event: what the user typed.
func (r *respItems) userEvent(text string, meta map[string]any, ts string) error {
	if p := r.pending; p != nil && p.text == text {
		r.pending = nil
		for _, k := range sortedKeys(p.meta) {
			meta = setIf(meta, k, p.meta[k])
		}
		return r.prompt("user", text, setIf(meta, "timestamp", ts))
	}
	if err := r.settleUser(); err != nil {
		return err
	}
	r.echo = &text
	return r.prompt("user", text, setIf(meta, "timestamp", ts))
}

// settleUser decides a user item no event repeated.
func (r *respItems) settleUser() error {
	p := r.pending
	if p == nil {
		return nil
	}
	r.pending = nil
	if codexHarness(p.text) {
		if err := r.endRequest(nil); err != nil {
			return err
		}
		return r.event("meta", &p.text, p.ts, setIf(p.meta, "role", "user"))
	}
	return r.prompt("user", p.text, setIf(p.meta, "timestamp", p.ts))
}

func (r *respItems) reasoning(n node, m map[string]any, ts string, meta map[string]any) error {
	var summary, content []string
	for _, k := range []string{"summary", "content"} {
		list, _ := m[k].([]any)
		for i := range list {
			p := n.key(k).idx(i)
			if s, err := p.key("text").optStr(); err != nil {
				return err
			} else if s != "" {
				if k == "summary" {
					summary = append(summary, s)
				} else {
					content = append(content, s)
				}
			}
		}
	}
	s := thinking(r.answerer(), nil, ts, nil)
	switch {
	case len(content) > 0:
		out := strings.Join(content, "\n\n")
		s.Output = &out
		meta = setIf(meta, "summary", strings.Join(summary, "\n\n"))
	case len(summary) > 0:
		out := strings.Join(summary, "\n\n")
		s.Output = &out
	}
	// The encrypted reasoning is for the provider alone: said, not kept.
	if e, _ := m["encrypted_content"].(string); e != "" {
		meta = setIf(meta, "encrypted", true)
	}
	meta = setIf(meta, "extra", rest(m, "type", "id", "status", "summary", "content", "encrypted_content"))
	s.Meta = meta
	return r.hold(&reqItem{s: s, model: true})
}

func (r *respItems) call(n node, m map[string]any, typ, ts string, meta map[string]any) error {
	name, err := n.key("name").needStr()
	if err != nil {
		return err
	}
	id, err := n.key("call_id").optStr()
	if err != nil {
		return err
	}
	ns, err := n.key("namespace").optStr()
	if err != nil {
		return err
	}
	var params map[string]any
	bad := false
	if typ == "custom_tool_call" {
		in, err := n.key("input").optStr()
		if err != nil {
			return err
		}
		params = map[string]any{"input": in}
	} else {
		params, bad = parseArguments(m["arguments"])
	}
	meta = setIf(meta, "arguments_not_json", bad)
	if typ != "function_call" {
		meta = setIf(meta, "call_type", typ)
	}
	meta = setIf(meta, "namespace", ns)
	meta = setIf(meta, "extra", rest(m, "type", "id", "status", "name", "call_id", "arguments", "input", "namespace"))
	s := stepRec{Type: "tool_call", Tool: ns + name, Params: params, Timestamp: ts, Meta: meta}
	if id == "" {
		s.Meta = setIf(s.Meta, "no_result", true)
	}
	return r.hold(&reqItem{s: s, id: id, model: true})
}

// rejectedTexts are the outputs Codex gives a call the user refused.
func rejectedTexts() []string {
	return []string{"exec command rejected by user", "patch rejected by user", "unified exec command rejected by user"}
}

func (r *respItems) output(n node, m map[string]any, ts string) error {
	id, err := n.key("call_id").optStr()
	if err != nil {
		return err
	}
	if id == "" {
		id, _ = m["id"].(string)
	}
	out := n.key("output")
	var res callResult
	res.Timestamp = ts
	var meta map[string]any
	switch v := out.v.(type) {
	case string:
		res.Text, res.HasText = v, true
	case nil:
	case []any:
		text, has, parts := textOf(out)
		res.Text, res.HasText = text, has
		meta = setIf(meta, "result_parts", parts)
	default:
		// A computer screenshot and other structured outputs: their JSON.
		res.Text, _ = jsonText(v)
		res.HasText = true
	}
	meta = setIf(meta, "result_extra", rest(m, "type", "call_id", "id", "output"))
	inner, exit, hasExit := shellOutput(res.Text)
	if hasExit {
		meta = setIf(meta, "exit_code", exit)
		res.IsError = exit != "0"
	}
	rejected := false
	for _, t := range rejectedTexts() {
		if res.Text == t || inner != nil && *inner == t {
			rejected = true
		}
	}
	res.Meta = meta
	if rejected {
		// A refused call printed nothing: there is no output to normalise.
		inner = nil
	}
	return r.result(id, res, rejected, inner)
}

// shellOutput reads the two forms Codex gives a command's output: JSON
// {"output": ..., "metadata": {"exit_code": N, ...}} (up to version 0.77)
// and "...Process exited with code N\n...Output:\n<output>" (later). It
// returns what the command printed and its exit code, when it finished.
func shellOutput(text string) (inner *string, exit json.Number, ok bool) {
	if strings.HasPrefix(text, `{"output":`) {
		v, err := jcs.Decode([]byte(text))
		if m, isObj := v.(map[string]any); err == nil && isObj {
			md, _ := m["metadata"].(map[string]any)
			if s, isStr := m["output"].(string); isStr && md != nil && len(m) == 2 {
				if n, isNum := md["exit_code"].(json.Number); isNum {
					return &s, n, true
				}
				return &s, "", false
			}
		}
		return nil, "", false
	}
	// "Exit code: N" heads the output of shell_command; "Process exited
	// with code N" follows the chunk header of exec_command.
	code, body, found := "", text, false
	if rest, ok := strings.CutPrefix(text, "Exit code: "); ok {
		code, body, found = strings.Cut(rest, "\n")
	} else if strings.HasPrefix(text, "Chunk ID: ") {
		if _, rest, ok := strings.Cut(text, "\nProcess exited with code "); ok {
			code, body, found = strings.Cut(rest, "\n")
		}
	}
	if !found {
		return nil, "", false
	}
	if _, err := strconv.Atoi(code); err != nil {
		return nil, "", false
	}
	if k := strings.Index(body, "Output:\n"); k >= 0 && (k == 0 || body[k-1] == '\n') {
		s := body[k+len("Output:\n"):]
		return &s, json.Number(code), true
	}
	return nil, json.Number(code), true
}

// hostedCall maps a tool the API runs itself: its call and its result are
// one item.
func (r *respItems) hostedCall(n node, m map[string]any, typ, ts string, meta map[string]any) error {
	tool := strings.TrimSuffix(typ, "_call")
	var params map[string]any
	var out *string
	switch typ {
	case "web_search_call":
		action, _ := m["action"].(map[string]any)
		params = cloneMeta(action)
		if r.searchID != "" {
			meta = setIf(meta, "tool_call_id", r.searchID)
			r.searchID = ""
		}
	case "file_search_call":
		params = setIf(nil, "queries", m["queries"])
		if res, ok := m["results"]; ok && res != nil {
			s, _ := jsonText(res)
			out = &s
		}
	case "code_interpreter_call":
		params = setIf(nil, "code", m["code"])
		params = setIf(params, "container_id", m["container_id"])
		if res, ok := m["outputs"]; ok && res != nil {
			s, _ := jsonText(res)
			out = &s
		}
	case "image_generation_call":
		if s, ok := m["result"].(string); ok {
			out = &s
		}
	case "mcp_call":
		name, err := n.key("name").needStr()
		if err != nil {
			return err
		}
		tool = name
		var bad bool
		params, bad = parseArguments(m["arguments"])
		meta = setIf(meta, "arguments_not_json", bad)
		meta = setIf(meta, "server_label", m["server_label"])
		if s, ok := m["output"].(string); ok {
			out = &s
		}
		if e, ok := m["error"].(string); ok && e != "" {
			meta = setIf(meta, "error", true)
			if out == nil {
				out = &e
			}
		}
	}
	meta = setIf(meta, "call_type", typ)
	meta = setIf(meta, "extra", rest(m, "type", "id", "status", "action", "queries", "results", "code", "container_id", "outputs", "result", "name", "arguments", "server_label", "output", "error"))
	return r.hold(&reqItem{s: stepRec{Type: "tool_call", Tool: tool, Params: params, Output: out, Timestamp: ts, Meta: meta}, model: true})
}

// approval maps the answer to an MCP approval request: a call refused is
// a tool call that never ran.
func (r *respItems) approval(m map[string]any, ts string, meta map[string]any) error {
	id, _ := m["approval_request_id"].(string)
	req := r.approvals[id]
	delete(r.approvals, id)
	if ok, _ := m["approve"].(bool); ok || req == nil {
		return r.event("mcp_approval_response", nil, ts, setIf(meta, "item", rest(m, "type", "id")))
	}
	name, _ := req["name"].(string)
	params, bad := parseArguments(req["arguments"])
	meta = setIf(meta, "arguments_not_json", bad)
	meta = setIf(meta, "server_label", req["server_label"])
	meta = setIf(meta, "approval_request_id", id)
	s := stepRec{Type: "tool_call", Tool: name, Params: params, Timestamp: ts, Meta: meta, Outcome: pack.OutcomeRejected}
	if reason, ok := m["reason"].(string); ok {
		s.Output = &reason
	}
	return r.hold(&reqItem{s: s})
}

// close writes what is held and warns of item types not known.
func (r *respItems) close() error {
	if err := r.settleUser(); err != nil {
		return err
	}
	if err := r.endRequest(nil); err != nil {
		return err
	}
	if len(r.unknown) > 0 {
		r.w.warnf("items of a type not known kept as event steps named item/TYPE: %s", counted(r.unknown))
	}
	return nil
}
