package convert

import (
	"github.com/contextsubstrate/ctx/lib/pack"
)

// Some SWE-bench submissions publish each instance's trajectory as a span
// export: {"instance_id", "session_id", "trajectory": [{"type":
// "llm_call" | "tool_call" | "judge_call", ...}]}. Each tool_call entry is
// one executed call (tool, arguments, result, timestamp); an llm_call's
// own tool_calls list is incomplete (the tool_call entries are the
// calls); a judge_call is the harness's reviewer, not the agent, so it is
// kept in run metadata and is no step. An empty trajectory is a run with
// no steps.

func isSpanTrajectory(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	traj, ok := m["trajectory"].([]any)
	if !ok {
		return false
	}
	if _, id := m["instance_id"]; !id {
		return false
	}
	if len(traj) == 0 {
		_, session := m["session_id"]
		return session
	}
	for _, e := range traj {
		em, _ := e.(map[string]any)
		switch em["type"] {
		case "llm_call", "tool_call", "judge_call":
		default:
			return false
		}
	}
	return true
}

// spanText is an entry's text field: the first of keys that is a string,
// or the JSON text of the first that is another value.
func spanText(m map[string]any, keys ...string) (*string, string) {
	for _, k := range keys {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		if s, ok := v.(string); ok {
			return &s, k
		}
		s, _ := jsonText(v)
		return &s, k
	}
	return nil, ""
}

func convertSpanTrajectory(d *document, w *writer) error {
	n := d.first()
	top, err := n.needObj()
	if err != nil {
		return err
	}
	traj := n.key("trajectory")
	list, err := traj.needArr()
	if err != nil {
		return err
	}
	var r runFields
	r.Metadata = map[string]any{"source_format": "swe-spans"}
	r.Metadata = setIf(r.Metadata, "session_id", top["session_id"])
	r.Metadata = setIf(r.Metadata, "extra", rest(top, "instance_id", "session_id", "trajectory"))
	if id := eventID(top["instance_id"]); id != "" {
		r.Task = &pack.Task{ID: id}
	}
	var judges []any
	firstLLM := -1
	for i := range list {
		e := traj.idx(i)
		m, err := e.needObj()
		if err != nil {
			return err
		}
		switch m["type"] {
		case "llm_call":
			if firstLLM < 0 {
				firstLLM = i
				r.Model = e.key("model").string()
				if r.Model == "" {
					r.Model = e.key("model_name").string()
				}
			}
			if r.Created == "" {
				r.Created = rfc3339(e.key("timestamp").string())
			}
		case "tool_call":
			if r.Created == "" {
				r.Created = rfc3339(e.key("timestamp").string())
			}
		case "judge_call":
			judges = append(judges, rest(m, "type"))
		}
	}
	r.Metadata = setIf(r.Metadata, "judge_calls", judges)
	var prompt *string
	if firstLLM >= 0 {
		msgs := traj.idx(firstLLM).key("messages")
		if _, ok := msgs.arr(); !ok {
			msgs = traj.idx(firstLLM).key("input")
		}
		if list, ok := msgs.arr(); ok {
			for i := range list {
				msg := msgs.idx(i)
				text, has, _ := textOf(msg.key("content"))
				switch role := msg.key("role").string(); {
				case !has:
				case role == "system" && r.SystemPrompt == nil:
					r.SystemPrompt = &text
				case role == "user" && prompt == nil:
					prompt = &text
				}
			}
		}
	}
	if err := w.run(r); err != nil {
		return err
	}
	if prompt != nil {
		if err := w.prompt("user", *prompt, nil); err != nil {
			return err
		}
	}
	for i := range list {
		e := traj.idx(i)
		m, _ := e.obj()
		ts := rfc3339(e.key("timestamp").string())
		switch m["type"] {
		case "llm_call":
			out, k := spanText(m, "response", "output", "content", "completion", "text")
			meta := rest(m, "type", "model", "model_name", "messages", "input", "timestamp", k)
			model := e.key("model").string()
			if model == "" {
				model = w.model
			}
			if err := w.step(stepRec{Type: "model_call", Tool: model, Output: out, Timestamp: ts, Meta: meta}); err != nil {
				return err
			}
		case "tool_call":
			tool := e.key("tool").string()
			if tool == "" {
				tool = e.key("name").string()
			}
			params, _ := parseArguments(m["arguments"])
			out, k := spanText(m, "result", "output", "observation")
			meta := rest(m, "type", "tool", "name", "arguments", "timestamp", k)
			if err := w.step(stepRec{Type: "tool_call", Tool: tool, Params: params, Output: out, Timestamp: ts, Meta: meta}); err != nil {
				return err
			}
		}
	}
	if len(judges) > 0 {
		w.notef("%d judge_call entries (the harness's reviewer, not the agent) kept in run metadata.judge_calls, not as steps", len(judges))
	}
	return w.close(r)
}
