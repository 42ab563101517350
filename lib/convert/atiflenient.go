package convert

import (
	"fmt"
	"strings"
)

// What the ATIF reader takes from trajectories that do not keep to the
// format, and says it took: each kind of oddity once, with how many
// times and where it was first seen.

// atifOdd collects what was odd, in the order first seen.
type atifOdd struct {
	order []string
	where map[string][]string
	count map[string]int
}

func newATIFOdd() *atifOdd {
	return &atifOdd{where: map[string][]string{}, count: map[string]int{}}
}

// odd notes something a trajectory does that the format does not allow.
func (a *atifReader) odd(what, path string) {
	o := a.odds
	if o.count[what] == 0 {
		o.order = append(o.order, what)
	}
	o.count[what]++
	if path != "" && len(o.where[what]) < 3 {
		o.where[what] = append(o.where[what], path)
	}
}

// say warns of each oddity: read as it was, and where.
func (o *atifOdd) say(w *writer) {
	for _, what := range o.order {
		at := ""
		if len(o.where[what]) > 0 {
			at = " (" + strings.Join(o.where[what], ", ")
			if o.count[what] > len(o.where[what]) {
				at += ", …"
			}
			at += ")"
		}
		w.warnf("not as ATIF has it, read anyway: %d× %s%s", o.count[what], what, at)
	}
	o.order = nil
	o.where, o.count = map[string][]string{}, map[string]int{}
}

// lenientText reads a message or a result's content: text or content
// parts as the format has them; anything else (an object, a number) as
// its JSON text, said.
func (a *atifReader) lenientText(n node) (string, bool) {
	text, has, _, err := atifText(n)
	if err == nil {
		return text, has
	}
	if _, isList := n.v.([]any); isList {
		if texts, ok := chatTexts(n.v, ""); ok {
			a.odd("content that is a list of chat messages (their text read)", n.path)
			return strings.Join(texts, "\n"), true
		}
	}
	a.odd(fmt.Sprintf("a message or content that is %s, not text (its JSON text read)", kindOf(n.v)), n.path)
	s, _ := jsonText(n.v)
	return s, true
}

// chatTexts is the text of each chat message ({role, content}) of a list
// whose role is role ("" for any); ok is false when the list holds
// anything but chat messages.
func chatTexts(v any, role string) ([]string, bool) {
	list, _ := v.([]any)
	var out []string
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		r, ok := m["role"].(string)
		if !ok {
			return nil, false
		}
		if role != "" && r != role {
			continue
		}
		if t, has, _ := textOf(root(m["content"], 0)); has && t != "" {
			out = append(out, t)
		}
	}
	return out, len(list) > 0
}

// chatUser reads a user message that is a chat request ({messages, ...})
// or the conversation so far (a list of chat messages): the user's words
// not written yet.
func (a *atifReader) chatUser(msg node) ([]string, bool) {
	v := msg.v
	if m, ok := v.(map[string]any); ok {
		v = m["messages"]
	}
	texts, ok := chatTexts(v, "user")
	if !ok {
		return nil, false
	}
	if a.seenUser == nil {
		a.seenUser = map[string]bool{}
	}
	var out []string
	for _, t := range texts {
		if !a.seenUser[t] {
			a.seenUser[t] = true
			out = append(out, t)
		}
	}
	return out, true
}

// callSig is a call's name and arguments, for calls a later step repeats.
func callSig(cm map[string]any) string {
	_, name := atifCallID(cm)
	args := cm["arguments"]
	if fn, ok := cm["function"].(map[string]any); ok && args == nil {
		args = fn["arguments"]
	}
	if s, ok := args.(string); ok {
		args, _ = parseArguments(s)
	}
	text, _ := jsonText(args)
	return name + "\x00" + text
}

// findRepeats finds, before the steps are read, the steps that only say
// which calls ran (no message, no reasoning, calls that repeat earlier
// calls' names and arguments), as NeMo Relay writes them: those calls
// wait for results that name no call.
func (a *atifReader) findRepeats(steps node, list []any) {
	a.repeatOf = map[string][]string{}
	a.willRun = map[string]bool{}
	type earlier struct{ key, sig string }
	var open []earlier
	for i := range list {
		m, _ := list[i].(map[string]any)
		calls := atifStepCalls(m)
		msg, hasMsg := m["message"]
		_, hasRC := m["reasoning_content"]
		if len(calls) > 0 && (!hasMsg || msg == nil) && !hasRC && m["source"] == "agent" {
			var keys []string
			used := map[int]bool{}
			for _, c := range calls {
				cm, _ := c.(map[string]any)
				sig := callSig(cm)
				for k, e := range open {
					if !used[k] && e.sig == sig {
						used[k] = true
						keys = append(keys, e.key)
						break
					}
				}
			}
			if len(keys) == len(calls) {
				a.repeatOf[steps.idx(i).path] = keys
				for _, k := range keys {
					a.willRun[k] = true
				}
				var left []earlier
				for k, e := range open {
					if !used[k] {
						left = append(left, e)
					}
				}
				open = left
				continue
			}
		}
		for _, c := range calls {
			cm, _ := c.(map[string]any)
			id, _ := atifCallID(cm)
			open = append(open, earlier{atifKey(m["step_id"], id), callSig(cm)})
		}
	}
}

// repeats reads a step that only says which calls ran: each is the call
// it repeats, which keeps the step's id for it (metadata.atif_ran_as);
// the census counts it as that call.
func (a *atifReader) repeats(step string, clist []any, head map[string]any) bool {
	keys, ok := a.repeatOf[step]
	if !ok {
		return false
	}
	a.odd("steps that repeat calls of an earlier step under new ids (the calls as they ran): read as those calls", step)
	for i, k := range keys {
		cm, _ := clist[i].(map[string]any)
		id, _ := atifCallID(cm)
		if e := a.q.pending(k); e != nil {
			ran, _ := e.step.Meta["atif_ran_as"].([]any)
			e.step.Meta["atif_ran_as"] = append(ran, map[string]any{"step_id": head["atif_step_id"], "tool_call_id": id, "step": head["atif_step"]})
		}
		a.ran = append(a.ran, k)
		a.w.tally.repeats++
	}
	return true
}

// laterRun reports a call a later step says ran: it waits for a result.
func (a *atifReader) laterRun(key string) bool { return a.willRun[key] }

// nextRan is the first call said to have run that still waits.
func (a *atifReader) nextRan() (string, bool) {
	for len(a.ran) > 0 {
		k := a.ran[0]
		a.ran = a.ran[1:]
		if a.q.pending(k) != nil {
			return k, true
		}
	}
	return "", false
}

// The sub-agents' trajectories of ATIF v1.7: embedded in
// subagent_trajectories, each named by its trajectory_id; a result's
// subagent_trajectory_ref names the one its call started. Their steps are
// read after that call, as Claude Code's sub-agents are, each entry
// marked metadata.subagent and metadata.atif_subagent (the way back
// writes them from the trajectory kept in the run's metadata, not from
// the steps).

// embedded indexes a trajectory's embedded sub-agents.
func (a *atifReader) embedded(n node) {
	subs := n.key("subagent_trajectories")
	list, _ := subs.arr()
	for i := range list {
		s := subs.idx(i)
		if a.subs == nil {
			a.subs, a.subRead = map[string]node{}, map[string]bool{}
		}
		for _, k := range []string{"trajectory_id", "session_id"} {
			if id, _ := s.key(k).v.(string); id != "" {
				if _, taken := a.subs[id]; !taken {
					a.subs[id] = s
				}
			}
		}
	}
}

// subagentRefs notes the embedded trajectories a result names, to read
// after the step.
func (a *atifReader) subagentRefs(refs []any, callID string) {
	for _, r := range refs {
		rm, _ := r.(map[string]any)
		for _, k := range []string{"trajectory_id", "session_id"} {
			if id, _ := rm[k].(string); id != "" {
				if s, ok := a.subs[id]; ok {
					a.toRead = append(a.toRead, [2]string{subKey(s), callID})
					break
				}
			}
		}
	}
}

// subKey names an embedded trajectory once, whichever id named it.
func subKey(s node) string { return s.path }

// readSubagents reads the trajectories the last step's results named.
func (a *atifReader) readSubagents() error {
	list := a.toRead
	a.toRead = nil
	for _, r := range list {
		if err := a.readSub(r[0], r[1]); err != nil {
			return err
		}
	}
	return nil
}

// unreadSubagents reads, after the run's own steps, the embedded
// trajectories no result named.
func (a *atifReader) unreadSubagents() error {
	var left []string
	seen := map[string]bool{}
	for _, k := range sortedKeys(a.subs) {
		p := subKey(a.subs[k])
		if !a.subRead[p] && !seen[p] {
			seen[p] = true
			left = append(left, p)
		}
	}
	if len(left) > 0 {
		a.odd("embedded sub-agent trajectories no result names: read after the run's own steps", strings.Join(left, ", "))
	}
	for _, p := range left {
		if err := a.readSub(p, ""); err != nil {
			return err
		}
	}
	return nil
}

// readSub reads an embedded trajectory's steps into the run, marked.
func (a *atifReader) readSub(path, callID string) error {
	if a.subRead[path] {
		return nil
	}
	a.subRead[path] = true
	var s node
	for _, n := range a.subs {
		if n.path == path {
			s = n
		}
	}
	if a.depth >= maxAgentDepth {
		a.odd("sub-agents nested deeper than this reader reads", path)
		return nil
	}
	steps := s.key("steps")
	list, ok := steps.arr()
	if !ok {
		a.odd("an embedded trajectory with no steps", path)
		return nil
	}
	mark := map[string]any{}
	mark = setIf(mark, "trajectory_id", s.key("trajectory_id").v)
	mark = setIf(mark, "session_id", s.key("session_id").v)
	mark = setIf(mark, "tool_call_id", callID)
	mark = setIf(mark, "agent", s.key("agent").key("name").v)
	mark = setIf(mark, "model", s.key("agent").key("model_name").v)
	sub := &atifReader{w: a.w, q: a.q, odds: a.odds, variant: a.variant, mark: mark, depth: a.depth + 1}
	sub.embedded(s)
	sub.prepare(steps, list)
	for i := range list {
		if err := sub.step(steps.idx(i)); err != nil {
			return err
		}
		if err := sub.readSubagents(); err != nil {
			return err
		}
	}
	return sub.unreadSubagents()
}

// subID names the embedded trajectory a sub-agent's reader reads.
func (a *atifReader) subID() any {
	if a.mark == nil {
		return nil
	}
	if id, ok := a.mark["trajectory_id"]; ok {
		return id
	}
	if id, ok := a.mark["session_id"]; ok {
		return id
	}
	return true
}
