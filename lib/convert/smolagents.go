package convert

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// smolagents' benchmark (examples/smolagents_benchmark/run.py) writes a
// JSON line per question: {"model_id", "agent_action_type" (code,
// tool-calling, vanilla), "question", "original_question", "answer",
// "true_answer", "source", "intermediate_steps", "start_time",
// "end_time", "token_counts"}. intermediate_steps is the agent's memory
// as chat messages ({role, content: [{type: text, text}], tool_calls,
// raw, token_usage}), roles system, user, assistant, tool-call and
// tool-response; for the bare model ("vanilla") it is the answer. A
// tool-call message holds its calls only as text, "Calling tools:\n"
// and the Python repr() of [{'id', 'type': 'function', 'function':
// {'name', 'arguments'}}]; a tool-response is "Observation:\n...", "Call
// id: ID\nError:\n..." (the call ran and failed), or "Error:\n..." with no
// call listed before it: a call that failed before smolagents could list
// it, seen only as its error. Each line is a run of its own.

func isSmolagents(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, steps := m["intermediate_steps"]
	_, q := m["question"]
	_, a := m["agent_action_type"]
	return steps && (q || a)
}

func isSmolagentsLine(line []byte) bool {
	var m map[string]json.RawMessage
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &m) != nil {
		return false
	}
	_, steps := m["intermediate_steps"]
	_, q := m["question"]
	_, a := m["agent_action_type"]
	return steps && (q || a)
}

func convertSmolagentsRecords(r *bufio.Reader, w *writer) error {
	return eachRecord(r, w, func(n node) string { return smolTask(n.v).ID }, convertSmolagentsRun)
}

func convertSmolagentsDoc(d *document, w *writer) error {
	return d.withLine(convertSmolagentsRun(d.first(), w))
}

// smolTask is the task a record ran: the benchmark's source and a digest
// of the question as the dataset gives it (original_question), so the runs
// of two agents on the same questions pair whatever order their threads
// finished in; the question itself, clipped, is its name.
func smolTask(v any) *pack.Task {
	m, _ := v.(map[string]any)
	q := firstString(m, "original_question", "question")
	if q == "" {
		return &pack.Task{}
	}
	sum := sha256.Sum256([]byte(q))
	id := hex.EncodeToString(sum[:6])
	if src := firstString(m, "source"); src != "" {
		id = src + "/" + id
	}
	return &pack.Task{ID: id, Name: firstLine(q, 80)}
}

// firstLine is the first line of s, at most n runes, "…" marking a cut.
func firstLine(s string, n int) string {
	s = strings.TrimSpace(s)
	line, _, more := strings.Cut(s, "\n")
	if utf8.RuneCountInString(line) <= n && !more {
		return line
	}
	r := []rune(line)
	if len(r) > n {
		r = r[:n]
	}
	return strings.TrimSpace(string(r)) + "…"
}

// smolRecord are the record fields the log holds elsewhere.
func smolMapped() []string {
	return []string{"intermediate_steps", "model_id", "start_time"}
}

type smolagents struct {
	w *writer
	q *steps

	pending *stepRec    // the assistant text not yet written
	group   []*smolCall // the calls of the last tool-call message
	calls   map[string]*smolCall
	errOnly int // calls seen only as their errors
}

// smolCall is a listed call and the responses given to it.
type smolCall struct {
	id, name string
	texts    []string
	isErr    bool
	shared   bool
}

func convertSmolagentsRun(n node, w *writer) error {
	m, err := n.needObj()
	if err != nil {
		return err
	}
	var r runFields
	if r.Model, err = n.key("model_id").optStr(); err != nil {
		return err
	}
	r.Created = unixTime(m["start_time"], time.Second)
	r.Metadata = map[string]any{"source_format": "smolagents"}
	r.Metadata = setIf(r.Metadata, "record", rest(m, smolMapped()...))
	if t := smolTask(m); t.ID != "" {
		r.Task = t
	}
	s := &smolagents{w: w, q: newSteps(w), calls: map[string]*smolCall{}}
	steps := n.key("intermediate_steps")
	if text, ok := steps.str(); ok {
		// The bare model: its answer is the run.
		if err := w.run(r); err != nil {
			return err
		}
		q, err := n.key("question").optStr()
		if err != nil {
			return err
		}
		if err := s.q.prompt("user", q, nil); err != nil {
			return err
		}
		if _, err := s.q.add(stepRec{Type: "model_call", Tool: w.model, Output: &text}); err != nil {
			return err
		}
		return s.close(r)
	}
	list, err := steps.needArr()
	if err != nil {
		return err
	}
	start := 0
	if len(list) > 0 && steps.idx(0).key("role").string() == "system" {
		text, _, _ := textOf(steps.idx(0).key("content"))
		r.SystemPrompt = &text
		start = 1
	}
	if err := w.run(r); err != nil {
		return err
	}
	for i := start; i < len(list); i++ {
		if err := s.message(steps.idx(i)); err != nil {
			return err
		}
	}
	if err := s.endGroup(); err != nil {
		return err
	}
	if err := s.writePending(); err != nil {
		return err
	}
	return s.close(r)
}

func (s *smolagents) close(r runFields) error {
	if err := s.q.close(); err != nil {
		return err
	}
	s.w.sayCounted(s.errOnly, "call(s) seen only as their errors (smolagents listed no call before them): written as failed tool_call steps, metadata.seen_only_as_error")
	return s.w.close(r)
}

func (s *smolagents) message(n node) error {
	m, err := n.needObj()
	if err != nil {
		return err
	}
	role, err := n.key("role").needStr()
	if err != nil {
		return err
	}
	text, _, parts := textOf(n.key("content"))
	var meta map[string]any
	meta = setIf(meta, "parts", parts)
	meta = setIf(meta, "extra", rest(m, "role", "content"))
	if u, ok := m["token_usage"].(map[string]any); ok {
		meta = setIf(meta, "usage", usageOf(u, nil))
	}
	switch role {
	case "tool-call":
		return s.toolCall(n, text, meta)
	case "tool-response":
		return s.response(text, meta)
	}
	if err := s.endGroup(); err != nil {
		return err
	}
	if err := s.writePending(); err != nil {
		return err
	}
	switch role {
	case "assistant":
		s.pending = &stepRec{Type: "model_call", Tool: s.w.model, Output: &text, Meta: meta}
		return nil
	case "user", "system":
		return s.q.prompt(role, text, meta)
	}
	// A role of no known kind: an event named for it.
	_, err = s.q.add(stepRec{Type: "event", Tool: role, Output: &text, Meta: meta})
	return err
}

// writePending writes the assistant text held back.
func (s *smolagents) writePending() error {
	if s.pending == nil {
		return nil
	}
	p := s.pending
	s.pending = nil
	_, err := s.q.add(*p)
	return err
}

// smolCalls reads the calls of a tool-call message.
func smolCalls(text string) ([]any, bool) {
	lit, ok := strings.CutPrefix(strings.TrimSpace(text), "Calling tools:")
	if !ok {
		return nil, false
	}
	v, n, err := pyLiteral(lit)
	list, isList := v.([]any)
	if err != nil || n != len(lit) || !isList {
		return nil, false
	}
	return list, true
}

func (s *smolagents) toolCall(n node, text string, meta map[string]any) error {
	if err := s.endGroup(); err != nil {
		return err
	}
	list, ok := smolCalls(text)
	if !ok {
		// Calls written in a form this reader cannot read: kept, and the
		// census counts them as not mapped.
		if err := s.writePending(); err != nil {
			return err
		}
		s.w.warnf("a tool-call message whose calls are not a Python literal list: kept as an event step tool-call")
		_, err := s.q.add(stepRec{Type: "event", Tool: "tool-call", Output: &text, Meta: meta})
		return err
	}
	var calls []*smolCall
	var steps []stepRec
	for _, e := range list {
		em, _ := e.(map[string]any)
		fn, _ := em["function"].(map[string]any)
		c := &smolCall{id: firstString(em, "id"), name: firstString(fn, "name")}
		sm := cloneMeta(meta)
		extra := rest(em, "id", "function")
		if extra["type"] == "function" {
			delete(extra, "type")
		}
		sm = setIf(sm, "call_extra", extra)
		steps = append(steps, stepRec{Type: "tool_call", Tool: c.name, Params: smolArguments(fn["arguments"]), Meta: sm})
		calls = append(calls, c)
	}
	if s.pending != nil && smolRendering(*s.pending.Output, calls) {
		// The assistant message only renders the calls that follow
		// ("Tool call ID: calling 'NAME' with arguments: ..."): a repeat.
		s.pending = nil
	}
	if err := s.writePending(); err != nil {
		return err
	}
	for i, c := range calls {
		if _, err := s.q.call(c.id, steps[i]); err != nil {
			return err
		}
		if c.id != "" {
			s.calls[c.id] = c
		}
	}
	s.group = calls
	return nil
}

// smolArguments are a call's parameters: a dict as it is, JSON text of an
// object decoded, other text (a code agent's code) as {"arguments": text}.
func smolArguments(v any) map[string]any {
	switch x := v.(type) {
	case map[string]any:
		return x
	case string:
		if p, bad := parseArguments(x); !bad {
			return p
		}
	}
	return map[string]any{"arguments": v}
}

// smolRendering reports whether text only renders the calls, a line each.
func smolRendering(text string, calls []*smolCall) bool {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) == 0 || lines[0] == "" {
		return false
	}
	for _, l := range lines {
		ok := false
		for _, c := range calls {
			if strings.HasPrefix(l, "Tool call "+c.id+": calling '"+c.name+"' with arguments: ") {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// smolError reads an error smolagents gives with no call listed before
// it: the tool and arguments it names ("Error executing tool 'NAME' with
// arguments {...}: ..."), or a code agent's reply with no code in it
// ("Error in code parsing"); ok is false for any other text.
func smolError(text string) (tool string, params map[string]any, parsing, ok bool) {
	body, isErr := strings.CutPrefix(text, "Error:\n")
	if !isErr {
		return "", nil, false, false
	}
	if strings.HasPrefix(body, "Error in code parsing") {
		return "python_interpreter", map[string]any{}, true, true
	}
	rest, ok := strings.CutPrefix(body, "Error executing tool '")
	if !ok {
		return "", nil, false, false
	}
	tool, args, ok := strings.Cut(rest, "' with arguments ")
	if !ok || tool == "" || strings.ContainsAny(tool, "'\n") {
		return "", nil, false, false
	}
	params = map[string]any{}
	if v, n, err := pyLiteral(args); err == nil && strings.HasPrefix(args[n:], ":") {
		params = smolArguments(v)
	}
	return tool, params, false, true
}

// smolCallError names the call a response is the error of ("Call id:
// ID\nError:\n...").
func smolCallError(text string) (string, bool) {
	head, body, ok := strings.Cut(text, "\n")
	id, named := strings.CutPrefix(head, "Call id: ")
	return strings.TrimSpace(id), ok && named && strings.HasPrefix(body, "Error:")
}

func (s *smolagents) response(text string, meta map[string]any) error {
	if tool, params, parsing, ok := smolError(text); ok {
		// A call seen only as its error: the reply (or nothing) before it
		// asked for it, and it failed.
		if err := s.endGroup(); err != nil {
			return err
		}
		if err := s.writePending(); err != nil {
			return err
		}
		s.errOnly++
		meta = setIf(meta, "error", true)
		meta = setIf(meta, "seen_only_as_error", true)
		st := stepRec{Type: "tool_call", Tool: tool, Params: params, Output: &text, Meta: meta}
		if parsing {
			// The reply held no code to run: the call never ran.
			st.Outcome = pack.OutcomeRejected
			st.Meta = setIf(st.Meta, "not_run", "code parsing")
		}
		_, err := s.q.add(st)
		return err
	}
	if id, ok := smolCallError(text); ok {
		if c := s.calls[id]; c != nil && contains(groupIDs(s.group), id) {
			c.texts = append(c.texts, text)
			c.isErr = true
			return nil
		}
	}
	if len(s.group) > 0 {
		// One response answers every call of the message (a message of
		// two calls gets one response holding both results).
		for _, c := range s.group {
			c.texts = append(c.texts, text)
			c.shared = len(s.group) > 1
			if strings.HasPrefix(text, "Error:") {
				c.isErr = true
			}
		}
		return nil
	}
	// A response to no call.
	if err := s.writePending(); err != nil {
		return err
	}
	_, err := s.q.result("", callResult{Text: text, HasText: true, IsError: strings.HasPrefix(text, "Error:"), Meta: meta})
	return err
}

func groupIDs(g []*smolCall) []string {
	out := make([]string, len(g))
	for i, c := range g {
		out[i] = c.id
	}
	return out
}

// endGroup answers the calls of the last tool-call message with the
// responses given to them, joined.
func (s *smolagents) endGroup() error {
	g := s.group
	s.group = nil
	for _, c := range g {
		if len(c.texts) == 0 || c.id == "" {
			continue
		}
		var meta map[string]any
		meta = setIf(meta, "result_shared", c.shared)
		if len(c.texts) > 1 {
			meta = setIf(meta, "responses", len(c.texts))
		}
		r := callResult{Text: strings.Join(c.texts, "\n"), HasText: true, IsError: c.isErr, Meta: meta}
		if _, err := s.q.result(c.id, r); err != nil {
			return err
		}
		delete(s.calls, c.id)
	}
	return nil
}
