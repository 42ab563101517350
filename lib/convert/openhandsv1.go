package convert

import (
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// OpenHands V1 (the software-agent-sdk) persists a conversation as typed
// events, one JSON file each under conversations/ID/events/, and serves
// them as lists ({"items": [...]} from the events search API). Every
// event has id, timestamp, source (user, agent, environment) and kind:
// SystemPromptEvent {system_prompt, tools}; MessageEvent {llm_message
// {role, content, reasoning_content}}; ActionEvent {thought, reasoning_content,
// action {kind, ...}, tool_name, tool_call_id, tool_call {id, name,
// arguments}, llm_response_id}; ObservationEvent {tool_name, tool_call_id,
// observation {content, is_error, ...}, action_id}; UserRejectObservation
// {rejection_reason}; AgentErrorEvent {error}; ACPToolCallEvent (a call an
// outside agent made, with its input and output); ConversationStateUpdateEvent
// {key, value} (the stats name the model); Condensation, PauseEvent and
// others. Calls and results are linked by tool_call_id. A list, the
// search API's page, or the event files concatenated (cat events/*.json)
// are read alike.

// ohV1Events returns the events of a document: a list, {items}, {events},
// or the values of a concatenation.
func ohV1Events(d *document) []node {
	if len(d.values) > 1 {
		out := make([]node, len(d.values))
		for i, v := range d.values {
			out[i] = node{v: v, path: "", line: d.lineOfValue(i)}
		}
		return out
	}
	n, ok := listIn(d.first(), "items", "events")
	if !ok {
		return []node{d.first()}
	}
	list, _ := n.arr()
	out := make([]node, len(list))
	for i := range list {
		out[i] = n.idx(i)
	}
	return out
}

func isOHV1Event(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	kind := ohV1Kind(m)
	_, src := m["source"].(string)
	return src && (strings.HasSuffix(kind, "Event") || strings.HasSuffix(kind, "Observation") || kind == "Condensation" || kind == "CondensationRequest")
}

// ohV1Kind is an event's kind, without a module path if one is given.
func ohV1Kind(m map[string]any) string {
	kind, _ := m["kind"].(string)
	return kind[strings.LastIndexByte(kind, '.')+1:]
}

func isOpenHandsV1(v any) bool {
	if isOHV1Event(v) {
		return true
	}
	if m, ok := v.(map[string]any); ok && isOHV1State(m) {
		// base_state.json ahead of the event files (cat base_state.json
		// events/*.json); alone it is refused as a companion.
		return true
	}
	n, _ := listIn(root(v, 0), "items", "events")
	list, _ := n.arr()
	return len(list) > 0 && isOHV1Event(list[0])
}

type ohV1 struct {
	w     *writer
	q     *steps
	model string
	kinds map[string]int    // events of no kind mapped here
	calls map[string]string // the call id of each ActionEvent, by event id
}

func convertOpenHandsV1(d *document, w *writer) error {
	return d.withLine(openHandsV1Doc(d, w))
}

func openHandsV1Doc(d *document, w *writer) error {
	evs := ohV1Events(d)
	r := runFields{Metadata: map[string]any{"source_format": "openhands-v1"}}
	// The model and the system prompt, before the first step.
	if m, ok := evs[0].obj(); ok && isOHV1State(m) {
		// The conversation's state: its model and id.
		llm, _ := m["agent"].(map[string]any)["llm"].(map[string]any)
		r.Model, _ = llm["model"].(string)
		r.Metadata = setIf(r.Metadata, "conversation_id", m["id"])
		r.Metadata = setIf(r.Metadata, "execution_status", m["execution_status"])
		evs = evs[1:]
	}
	for _, e := range evs {
		m, _ := e.obj()
		switch ohV1Kind(m) {
		case "SystemPromptEvent":
			if r.SystemPrompt == nil {
				text, _, _ := textOf(node{v: []any{m["system_prompt"]}})
				r.SystemPrompt = &text
				r.Metadata = setIf(r.Metadata, "tools", m["tools"])
			}
		case "ConversationStateUpdateEvent":
			if m["key"] == "stats" && r.Model == "" {
				r.Model = ohV1Model(m["value"])
			}
			if m["key"] == "execution_status" && r.Metadata["execution_status"] == nil {
				r.Metadata = setIf(r.Metadata, "execution_status", m["value"])
			}
		}
		if r.Created == "" {
			r.Created = rfc3339(e.key("timestamp").string())
		}
	}
	if err := w.run(r); err != nil {
		return err
	}
	o := &ohV1{w: w, q: newSteps(w), model: w.model, kinds: map[string]int{}, calls: map[string]string{}}
	for _, e := range evs {
		if err := o.event(e); err != nil {
			return err
		}
	}
	if len(o.kinds) > 0 {
		w.notef("events not mapped to steps: %s", counted(o.kinds))
	}
	if err := o.q.close(); err != nil {
		return err
	}
	return w.close(r)
}

// ohV1Model finds the model the stats name.
func ohV1Model(v any) string {
	m, _ := v.(map[string]any)
	u, _ := m["usage_to_metrics"].(map[string]any)
	for _, k := range append([]string{"default", "agent"}, sortedKeys(u)...) {
		mm, _ := u[k].(map[string]any)
		if s, _ := mm["model_name"].(string); s != "" {
			return s
		}
	}
	return ""
}

// contentText joins the text of a content list (TextContent items).
func contentText(v any) (string, bool, []any) {
	if s, ok := v.(string); ok {
		return s, true, nil
	}
	return textOf(node{v: v})
}

func (o *ohV1) event(e node) error {
	m, err := e.needObj()
	if err != nil {
		return err
	}
	kind := ohV1Kind(m)
	source, _ := m["source"].(string)
	ts := rfc3339(e.key("timestamp").string())
	meta := setIf(nil, "event_id", m["id"])
	switch kind {
	case "SystemPromptEvent", "ConversationStateUpdateEvent":
		return nil // in the run event
	case "MessageEvent":
		lm, _ := m["llm_message"].(map[string]any)
		text, _, parts := contentText(lm["content"])
		meta = setIf(meta, "parts", parts)
		meta = setIf(meta, "extra", rest(m, "id", "timestamp", "source", "kind", "llm_message"))
		if source == "user" {
			meta = setIf(meta, "timestamp", ts)
			return o.q.prompt("user", text, meta)
		}
		if rc, _ := lm["reasoning_content"].(string); rc != "" {
			if _, err := o.q.add(thinking(o.model, &rc, ts, nil)); err != nil {
				return err
			}
		}
		_, err := o.q.add(stepRec{Type: "model_call", Tool: o.model, Output: &text, Timestamp: ts, Meta: meta})
		return err
	case "ActionEvent":
		return o.action(e, m, ts, meta)
	case "ObservationEvent", "UserRejectObservation", "AgentErrorEvent":
		id, _ := m["tool_call_id"].(string)
		if aid, _ := m["action_id"].(string); id == "" && o.calls[aid] != "" {
			// Linked by the action's event id alone.
			id = o.calls[aid]
		}
		name, _ := m["tool_name"].(string)
		r := callResult{Tool: name, Timestamp: ts, Meta: meta}
		switch kind {
		case "ObservationEvent":
			obs, _ := m["observation"].(map[string]any)
			r.Text, r.HasText, _ = contentText(obs["content"])
			r.IsError = obs["is_error"] == true
			r.Meta = setIf(r.Meta, "observation", rest(obs, "content", "is_error"))
		case "UserRejectObservation":
			r.Text, _ = m["rejection_reason"].(string)
			r.HasText = true
			r.Outcome = pack.OutcomeRejected
			r.Meta = setIf(r.Meta, "rejection_source", m["rejection_source"])
		default:
			r.Text, _ = m["error"].(string)
			r.HasText, r.IsError = true, true
		}
		_, err := o.q.result(id, r)
		return err
	case "ACPToolCallEvent":
		// A call an outside agent made and reports whole.
		params, _ := parseArguments(m["raw_input"])
		s := stepRec{Type: "tool_call", Tool: e.key("title").string(), Params: params, Timestamp: ts, Meta: setIf(meta, "tool_kind", m["tool_kind"])}
		if out, ok := m["raw_output"]; ok && out != nil {
			text, isStr := out.(string)
			if !isStr {
				text, _ = jsonText(out)
			}
			s.Output = &text
		}
		if m["is_error"] == true {
			s.Meta = setIf(s.Meta, "error", true)
		}
		_, err := o.q.add(s)
		return err
	}
	if source == "" && kind == "" {
		return e.errorf("an OpenHands event has a kind and a source")
	}
	o.kinds[kind]++
	if kind == "Condensation" || kind == "CondensationSummaryEvent" || kind == "PauseEvent" || kind == "ConversationErrorEvent" {
		meta = setIf(meta, "event", rest(m, "id", "timestamp", "kind"))
		_, err := o.q.add(stepRec{Type: "event", Tool: kind, Timestamp: ts, Meta: meta})
		return err
	}
	return nil
}

func (o *ohV1) action(e node, m map[string]any, ts string, meta map[string]any) error {
	if rc, _ := m["reasoning_content"].(string); rc != "" {
		if _, err := o.q.add(thinking(o.model, &rc, ts, nil)); err != nil {
			return err
		}
	}
	if thought, has, _ := contentText(m["thought"]); has && strings.TrimSpace(thought) != "" {
		if _, err := o.q.add(stepRec{Type: "model_call", Tool: o.model, Output: &thought, Timestamp: ts, Meta: setIf(nil, "llm_response_id", m["llm_response_id"])}); err != nil {
			return err
		}
	}
	name, _ := m["tool_name"].(string)
	id, _ := m["tool_call_id"].(string)
	tc, _ := m["tool_call"].(map[string]any)
	var params map[string]any
	bad := false
	if args, ok := tc["arguments"]; ok {
		params, bad = parseArguments(args)
	} else {
		act, _ := m["action"].(map[string]any)
		params = rest(act, "kind")
		if params == nil {
			params = map[string]any{}
		}
	}
	if name == "" {
		name, _ = tc["name"].(string)
	}
	if name == "" {
		return e.key("tool_name").errorf("an ActionEvent names its tool")
	}
	act, _ := m["action"].(map[string]any)
	meta = setIf(meta, "arguments_not_json", bad)
	meta = setIf(meta, "action_kind", act["kind"])
	meta = setIf(meta, "summary", m["summary"])
	meta = setIf(meta, "security_risk", m["security_risk"])
	meta = setIf(meta, "llm_response_id", m["llm_response_id"])
	if eid, _ := m["id"].(string); eid != "" {
		if id == "" {
			// No call id: its observation names the event.
			id = "event:" + eid
		}
		o.calls[eid] = id
	}
	_, err := o.q.call(id, stepRec{Type: "tool_call", Tool: name, Params: params, Timestamp: ts, Meta: meta})
	return err
}

// isOHV1StateDoc recognises a document that is an OpenHands V1
// conversation's base_state.json alone (a companion of its events).
func isOHV1StateDoc(v any) bool {
	m, ok := v.(map[string]any)
	return ok && isOHV1State(m)
}

// isOHV1State recognises an OpenHands V1 conversation's base_state.json.
func isOHV1State(m map[string]any) bool {
	_, agent := m["agent"].(map[string]any)
	_, workspace := m["workspace"]
	_, persist := m["persistence_dir"]
	return agent && workspace && persist
}
