package convert

import (
	"strconv"
	"strings"
)

// ATIF, the Agent Trajectory Interchange Format of Harbor and
// Terminal-Bench: {"schema_version": "ATIF-v1.x", "session_id", "agent":
// {name, version, model_name, tool_definitions, extra}, "steps": [...],
// "notes", "final_metrics", "continued_trajectory_ref", "extra"}; a step
// {step_id, timestamp, source: system|user|agent, message,
// reasoning_content, model_name, tool_calls: [{tool_call_id,
// function_name, arguments}], observation: {results: [{source_call_id,
// content, subagent_trajectory_ref}]}, metrics, is_copied_context,
// extra}.
//
// Each ATIF step becomes one or more entries of the log (an agent step
// its reasoning, its message and its tool calls; a system step an event
// and its observations), each entry carrying the step's id as
// metadata.atif_step_id and the step's own fields under metadata.atif_step
// (on the first entry), so that ctx convert --to atif gives the
// trajectory back step for step (atifout.go).

func isATIF(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	sv, _ := m["schema_version"].(string)
	steps, _ := m["steps"].([]any)
	if strings.HasPrefix(sv, "ATIF-") && steps != nil {
		return true
	}
	// ATIF-like trajectories that write the version bare ("1.4"): steps
	// with an id and a source.
	if sv == "" || sv[0] < '0' || sv[0] > '9' || len(steps) == 0 {
		return false
	}
	first, _ := steps[0].(map[string]any)
	_, id := first["step_id"]
	_, src := first["source"].(string)
	return id && src
}

// A variant of ATIF (written with a bare version, "1.4") spells a call
// {id, name, arguments} and gives its result in a step of its own, linked
// by the call's id (tool_call_id, or an observation's source_call_id),
// sometimes before the step that lists the call. Such a result is read
// with its call, wherever it stands; one that names no call of the
// trajectory is an orphan.

// atifLate is a result given outside the step of its call.
type atifLate struct {
	text  string
	has   bool
	isErr bool
	step  any // the step that holds it
}

// atifCallID reads a call's id and name in either spelling.
func atifCallID(m map[string]any) (id, name string) {
	id = firstString(m, "tool_call_id", "id")
	name = firstString(m, "function_name", "name")
	if name == "" {
		if fn, ok := m["function"].(map[string]any); ok {
			name, _ = fn["name"].(string)
		}
	}
	return id, name
}

// atifResultStep reports a step that is a tool's result: it names a call
// and makes none.
func atifResultStep(m map[string]any) (string, bool) {
	if _, calls := m["tool_calls"]; calls {
		return "", false
	}
	id, ok := m["tool_call_id"].(string)
	return id, ok && id != ""
}

// prepare finds, before the steps are read, every call id of the
// trajectory and the results given outside their call's step.
func (a *atifReader) prepare(steps node, list []any) {
	a.callIDs = map[string]bool{}
	a.late = map[string][]atifLate{}
	own := map[int]map[string]bool{}
	for i := range list {
		m, _ := list[i].(map[string]any)
		calls, _ := m["tool_calls"].([]any)
		own[i] = map[string]bool{}
		for _, c := range calls {
			cm, _ := c.(map[string]any)
			if id, _ := atifCallID(cm); id != "" {
				a.callIDs[id] = true
				own[i][id] = true
			}
		}
	}
	for i := range list {
		n := steps.idx(i)
		m, _ := list[i].(map[string]any)
		if id, ok := atifResultStep(m); ok {
			text, has, _, _ := atifText(n.key("message"))
			if !has {
				text, has, _, _ = atifText(n.key("content"))
			}
			if !has {
				res := n.key("observation").key("results")
				if rl, _ := res.arr(); len(rl) > 0 {
					text, has, _, _ = atifText(res.idx(0).key("content"))
				}
			}
			a.late[id] = append(a.late[id], atifLate{text: text, has: has, isErr: n.key("is_error").bool(), step: m["step_id"]})
			continue
		}
		res := n.key("observation").key("results")
		rl, _ := res.arr()
		for k := range rl {
			src, _ := res.idx(k).key("source_call_id").v.(string)
			if src != "" && !own[i][src] && a.callIDs[src] {
				text, has, _, _ := atifText(res.idx(k).key("content"))
				a.late[src] = append(a.late[src], atifLate{text: text, has: has, step: m["step_id"]})
			}
		}
	}
}

// takeLate answers a call still waiting after its own step with a result
// given elsewhere.
func (a *atifReader) takeLate(key, cid string) error {
	l := a.late[cid]
	if len(l) == 0 || a.q.pending(key) == nil {
		return nil
	}
	a.late[cid] = l[1:]
	r := callResult{Text: l[0].text, HasText: l[0].has, IsError: l[0].isErr, Meta: map[string]any{"atif_result_step_id": l[0].step}}
	_, err := a.q.result(key, r)
	return err
}

func convertATIF(d *document, w *writer) error { return d.withLine(convertATIFDoc(d, w)) }

func convertATIFDoc(d *document, w *writer) error {
	n := d.first()
	top, err := n.needObj()
	if err != nil {
		return err
	}
	if _, err := n.key("schema_version").needStr(); err != nil {
		return err
	}
	agent := n.key("agent")
	sv, _ := top["schema_version"].(string)
	variant := !strings.HasPrefix(sv, "ATIF-")
	if _, err := agent.needObj(); err != nil && !(variant && agent.null()) {
		return err
	}
	steps := n.key("steps")
	list, err := steps.needArr()
	if err != nil {
		return err
	}
	var r runFields
	r.Metadata = map[string]any{"source_format": "atif"}
	r.Metadata = setIf(r.Metadata, "session_id", top["session_id"])
	r.Metadata = setIf(r.Metadata, "atif", rest(top, "steps"))
	if r.Model, err = agent.key("model_name").optStr(); err != nil {
		return err
	}
	if r.Model == "" {
		for i := range list {
			if s := steps.idx(i).key("model_name").string(); s != "" {
				r.Model = s
				break
			}
		}
	}
	if ex, ok := agent.key("extra").obj(); ok {
		// Terminus writes its sampling parameters there.
		if t, ok := ex["temperature"]; ok {
			r.Parameters = setIf(r.Parameters, "temperature", t)
		}
	}
	start := 0
	if len(list) > 0 {
		first := steps.idx(0)
		if first.key("source").string() == "system" && first.key("observation").null() {
			if s, ok := first.key("message").str(); ok {
				r.SystemPrompt = &s
				fm, _ := first.obj()
				r.Metadata = setIf(r.Metadata, "atif_system_step", rest(fm, "source", "message"))
				start = 1
			}
		}
	}
	for i := range list {
		if t := rfc3339(steps.idx(i).key("timestamp").string()); t != "" {
			r.Created = t
			break
		}
	}
	if err := w.run(r); err != nil {
		return err
	}
	a := &atifReader{w: w, q: newSteps(w)}
	a.prepare(steps, list)
	a.variant = variant
	for i := start; i < len(list); i++ {
		if err := a.step(steps.idx(i)); err != nil {
			return err
		}
	}
	if err := a.q.close(); err != nil {
		return err
	}
	return w.close(r)
}

type atifReader struct {
	w       *writer
	q       *steps
	callIDs map[string]bool       // every call id of the trajectory
	late    map[string][]atifLate // results given outside their call's step, by call id
	variant bool                  // the bare-version variant
}

// atifText reads a message or a result's content: a string, or (from
// v1.6) an array of content parts, whose text parts are joined; the
// parts themselves are kept when there are any.
func atifText(n node) (text string, has bool, parts []any, err error) {
	switch v := n.v.(type) {
	case nil:
		return "", false, nil, nil
	case string:
		return v, true, nil, nil
	case []any:
		var texts []string
		for i, p := range v {
			pm, ok := p.(map[string]any)
			if !ok {
				return "", false, nil, n.idx(i).errorf("must be a content part (an object), not %s", kindOf(p))
			}
			if s, ok := pm["text"].(string); ok {
				texts = append(texts, s)
			}
		}
		return strings.Join(texts, "\n"), true, v, nil
	}
	return "", false, nil, n.errorf("must be a string or an array of content parts, not %s", kindOf(n.v))
}

func (a *atifReader) step(n node) error {
	m, err := n.needObj()
	if err != nil {
		return err
	}
	idn := n.key("step_id")
	if !tokenCount(idn.v) {
		return idn.errorf("must be a number, not %s", kindOf(idn.v))
	}
	id := idn.v
	source, err := n.key("source").needStr()
	if err != nil {
		return err
	}
	ts, err := n.key("timestamp").optTime()
	if err != nil {
		return err
	}
	text, has, parts, err := atifText(n.key("message"))
	if err != nil {
		return err
	}
	head := map[string]any{"atif_step_id": id}
	if cid, ok := atifResultStep(m); ok {
		if a.callIDs[cid] {
			return nil // read with its call
		}
		r := callResult{Text: text, HasText: has, IsError: n.key("is_error").bool(), Timestamp: ts, Meta: head}
		_, err := a.q.result(cid, r)
		return err
	}
	own := rest(m, "source", "message", "reasoning_content", "tool_calls", "observation", "metrics")
	if parts != nil {
		own = setIf(own, "message", parts)
	}
	head = setIf(head, "atif_step", own)
	switch source {
	case "user":
		if !has {
			text = ""
		}
		return a.q.prompt("user", text, head)
	case "agent":
		return a.agent(n, m, id, head, text, ts)
	case "system", "tool", "environment":
		// A tool's or the environment's step (the variant) is read as a
		// system step: an event and its observations.
		s := stepRec{Type: "event", Tool: source, Timestamp: ts, Meta: head}
		if has {
			s.Output = &text
		}
		if _, err := a.q.add(s); err != nil {
			return err
		}
		return a.observations(n, id, nil, ts)
	}
	return n.key("source").errorf("must be system, user or agent (or a tool's result, naming tool_call_id), not %q", source)
}

func (a *atifReader) agent(n node, m map[string]any, id any, head map[string]any, text, ts string) error {
	model, err := n.key("model_name").optStr()
	if err != nil {
		return err
	}
	if model == "" {
		model = a.w.model
	}
	if rc, err := n.key("reasoning_content").optStr(); err != nil {
		return err
	} else if _, ok := m["reasoning_content"].(string); ok {
		meta := map[string]any{"atif_step_id": id}
		if _, err := a.q.add(thinking(model, &rc, ts, meta)); err != nil {
			return err
		}
	}
	if mt := n.key("metrics"); !mt.null() {
		mm, err := mt.needObj()
		if err != nil {
			return err
		}
		head = setIf(head, "usage", usageOf(rest(mm, "prompt_token_ids", "completion_token_ids", "logprobs", "extra"), map[string]string{
			"input_tokens": "prompt_tokens", "output_tokens": "completion_tokens", "cached_input_tokens": "cached_tokens",
		}))
		// Token ids, log probabilities and the metrics' extra stay as
		// they are, for the way back.
		head = setIf(head, "atif_metrics", rest(mm, "prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd"))
	}
	out := text
	if _, err := a.q.add(stepRec{Type: "model_call", Tool: model, Output: &out, Timestamp: ts, Meta: head}); err != nil {
		return err
	}
	calls := n.key("tool_calls")
	clist, _ := calls.arr()
	if !calls.null() {
		if _, err := calls.needArr(); err != nil {
			return err
		}
	}
	ids := make([]string, 0, len(clist))
	for i := range clist {
		c := calls.idx(i)
		cm, err := c.needObj()
		if err != nil {
			return err
		}
		cid, name := atifCallID(cm)
		if cid == "" {
			if _, err := c.key("tool_call_id").needStr(); err != nil {
				return err
			}
		}
		if name == "" {
			if _, err := c.key("function_name").needStr(); err != nil {
				return err
			}
		}
		args := c.key("arguments")
		if _, ok := cm["arguments"]; !ok && a.variant {
			// {function: {name, arguments}}, as OpenAI writes a call.
			args = c.key("function").key("arguments")
		}
		var params map[string]any
		meta := map[string]any{"atif_step_id": id}
		if args.null() && a.variant {
			params = map[string]any{}
		} else if s, ok := args.str(); ok && a.variant {
			// The variant writes arguments as JSON text.
			var bad bool
			params, bad = parseArguments(s)
			meta = setIf(meta, "arguments_not_json", bad)
		} else if params, err = args.needObj(); err != nil {
			return err
		}
		meta = setIf(meta, "atif_call_extra", cm["extra"])
		// The call waits for its result under an id of this step alone:
		// ids repeat across steps (call_fake_1).
		if _, err := a.q.call(atifKey(id, cid), stepRec{Type: "tool_call", Tool: name, Params: params, Timestamp: ts, Meta: meta}); err != nil {
			return err
		}
		if e := a.q.pending(atifKey(id, cid)); e != nil {
			e.step.Meta["tool_call_id"] = cid
		}
		ids = append(ids, cid)
	}
	if err := a.observations(n, id, ids, ts); err != nil {
		return err
	}
	for _, cid := range ids {
		if err := a.takeLate(atifKey(id, cid), cid); err != nil {
			return err
		}
	}
	// A call no result answers has none in the trajectory: said so, no
	// warning (ATIF records results only where there are some).
	for _, cid := range ids {
		if e := a.q.pending(atifKey(id, cid)); e != nil {
			if _, err := a.q.result(atifKey(id, cid), callResult{Meta: map[string]any{"atif_no_result": true}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// atifKey is the pairing id of a call: its step and its own id.
func atifKey(step any, id string) string {
	return strings.TrimSpace(stringOf(step)) + "/" + id
}

func stringOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	}
	s, _ := jsonText(v)
	return s
}

// observations maps a step's results: a result naming a call of the step
// is that call's output; a step's one unnamed result answers its one call
// (terminus-2 writes the terminal after the keystrokes so); any other
// result is an event step named observation.
func (a *atifReader) observations(n node, id any, ids []string, ts string) error {
	obs := n.key("observation")
	if obs.null() {
		return nil
	}
	if _, err := obs.needObj(); err != nil {
		return err
	}
	res := obs.key("results")
	list, err := res.needArr()
	if err != nil {
		return err
	}
	named := 0
	for i := range list {
		if s, _ := res.idx(i).key("source_call_id").v.(string); s != "" {
			named++
		}
	}
	lone := len(ids) == 1 && len(list) == 1 && named == 0
	for i := range list {
		rn := res.idx(i)
		rm, err := rn.needObj()
		if err != nil {
			return err
		}
		src, err := rn.key("source_call_id").optStr()
		if err != nil {
			return err
		}
		text, has, parts, err := atifText(rn.key("content"))
		if err != nil {
			return err
		}
		info := map[string]any{"index": i}
		info = setIf(info, "extra", rm["extra"])
		info = setIf(info, "subagent_trajectory_ref", rm["subagent_trajectory_ref"])
		info = setIf(info, "content_parts", parts)
		if _, present := rm["content"]; !present {
			info["content_absent"] = true
		} else {
			info = setIf(info, "content_null", !has)
		}
		if src != "" && !contains(ids, src) && a.callIDs[src] {
			continue // read with its call, in another step
		}
		key := ""
		switch {
		case src != "" && contains(ids, src):
			key = atifKey(id, src)
		case src == "" && lone:
			key = atifKey(id, ids[0])
			info["unnamed"] = true
		}
		if key != "" && a.q.pending(key) != nil {
			r := callResult{Text: text, HasText: has, Meta: map[string]any{"atif_result": info}}
			if _, err := a.q.result(key, r); err != nil {
				return err
			}
			continue
		}
		info = setIf(info, "source_call_id", src)
		s := stepRec{Type: "event", Tool: "observation", Timestamp: ts, Meta: map[string]any{"atif_step_id": id, "atif_result": info}}
		if has {
			s.Output = &text
		}
		if _, err := a.q.add(s); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}
