package convert

import (
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// SWE-agent writes a .traj file per task: history (the messages the model
// saw: system prompt, the issue, assistant turns with thought and action,
// observations), trajectory (one entry per action: action, observation,
// response, thought, state, execution_time), info (submission patch,
// exit status, model_stats) and, in newer versions, replay_config (the
// whole run configuration, with the model). With function calling, history
// holds OpenAI-style tool_calls answered by tool messages (tool_call_ids);
// without it, the action is a command line that SWE-agent runs in the
// task's shell, answered by the next observation.

func isSWEAgent(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, hasTraj := m["trajectory"].([]any)
	hist, hasHist := m["history"].([]any)
	_, hasInfo := m["info"].(map[string]any)
	_, hasEnv := m["environment"]
	return hasTraj || (hasHist && (hasInfo || hasEnv || sweMessages(hist)))
}

// sweMessages recognises a history alone (demonstrations are written so):
// chat messages, which SWE-agent marks with the agent that saw them or
// their message_type.
func sweMessages(hist []any) bool {
	marked := false
	for _, e := range hist {
		m, ok := e.(map[string]any)
		if !ok {
			return false
		}
		if _, ok := m["role"].(string); !ok {
			return false
		}
		_, agent := m["agent"].(string)
		_, mt := m["message_type"].(string)
		marked = marked || agent || mt
	}
	return marked
}

func convertSWEAgent(d *document, w *writer) error {
	n := d.first()
	top, err := n.needObj()
	if err != nil {
		return err
	}
	var r runFields
	r.Metadata = map[string]any{"source_format": "swe-agent"}

	// The replay configuration names the model and its parameters; older
	// trajectories do not.
	cfg := n.key("replay_config")
	if s, ok := cfg.str(); ok {
		// Some versions store it as a JSON string.
		if v, err := jcs.Decode([]byte(s)); err == nil {
			cfg = node{v: v, path: cfg.path}
		}
	}
	if model, ok := cfg.key("agent").key("model").obj(); ok {
		r.Model, _ = model["name"].(string)
		params := map[string]any{}
		for _, k := range []string{"temperature", "top_p", "per_instance_cost_limit", "completion_kwargs", "stop"} {
			if v, ok := model[k]; ok && v != nil {
				params = setIf(params, k, v)
			}
		}
		r.Parameters = params
	}
	traj := n.key("trajectory")
	tlist, _ := traj.arr()
	dir := sweWorkdir(traj, cfg)
	w.setWorkdir(dir)

	info := n.key("info")
	if im, ok := info.obj(); ok {
		r.Metadata = setIf(r.Metadata, "info", rest(im, "submission"))
	}
	if id := cfg.key("problem_statement").key("id").string(); id != "" {
		r.Task = &pack.Task{ID: id}
	}
	r.End = exitEnd(info.key("exit_status").string())
	r.Metadata = setIf(r.Metadata, "environment", top["environment"])
	if cm, ok := cfg.obj(); ok {
		r.Metadata = setIf(r.Metadata, "replay_config", rest(cm, "agent"))
		if am, ok := cfg.key("agent").obj(); ok {
			r.Metadata = setIf(r.Metadata, "agent_config", rest(am, "model"))
		}
	}
	r.Metadata = setIf(r.Metadata, "extra", rest(top, "history", "trajectory", "info", "environment", "replay_config"))

	hist := n.key("history")
	hlist, hasHist := hist.arr()
	if hasHist {
		sys, text, _ := findSystem(hist)
		r.SystemPrompt = text
		if err := w.run(r); err != nil {
			return err
		}
		if err := sweHistory(w, hist, hlist, sys, traj, tlist); err != nil {
			return err
		}
	} else {
		if _, err := traj.needArr(); err != nil {
			return err
		}
		if err := w.run(r); err != nil {
			return err
		}
		if err := sweTrajectory(w, traj, tlist); err != nil {
			return err
		}
	}
	if s, ok := info.key("submission").str(); ok && s != "" {
		// The patch SWE-agent submits is the run's result.
		w.files.set("submission.patch", s, w.steps-1)
	}
	return w.close(r)
}

// sweWorkdir is where the run worked: the working_dir of the first
// trajectory state (an object, or a JSON string in older files), else the
// repository SWE-agent cloned under /.
func sweWorkdir(traj, cfg node) string {
	if list, ok := traj.arr(); ok && len(list) > 0 {
		st := traj.idx(0).key("state")
		if s, ok := st.str(); ok {
			if v, err := jcs.Decode([]byte(s)); err == nil {
				st = node{v: v}
			}
		}
		if wd := st.key("working_dir").string(); wd != "" {
			return wd
		}
	}
	if name := cfg.key("env").key("repo").key("repo_name").string(); name != "" {
		return "/" + strings.Trim(name, "/")
	}
	return ""
}

// sweHistory maps the history; trajectory entries, one per action, add the
// execution time and state of the step they match.
func sweHistory(w *writer, hist node, hlist []any, sys int, traj node, tlist []any) error {
	q := newSteps(w)
	q.answered = sweNormalize
	c := &chat{w: w, q: q, system: sys, drop: []string{"thought", "action"}}
	action := 0 // trajectory entry of the next action
	var textCall *queued
	var lastObs any // the trajectory's observation of textCall
	for i := range hlist {
		m := hist.idx(i)
		mm, err := m.needObj()
		if err != nil {
			return err
		}
		role, _ := mm["role"].(string)
		if v, ok := mm["is_demo"].(bool); ok && v {
			// A demonstration shown to the model: a prompt, marked.
			text, _, _ := textOf(m.key("content"))
			if err := q.prompt(role, text, map[string]any{"is_demo": true}); err != nil {
				return err
			}
			continue
		}
		calls, _ := mm["tool_calls"].([]any)
		act, hasAction := mm["action"].(string)
		switch {
		case role == "assistant" && len(calls) == 0 && hasAction:
			// A text action: the thought, then the command it runs.
			text, _, _ := textOf(m.key("content"))
			if th, ok := mm["thought"].(string); ok {
				text = th
			}
			out := text
			if _, err := q.add(stepRec{Type: "model_call", Tool: w.model, Output: &out, Meta: sweMeta(mm, nil)}); err != nil {
				return err
			}
			meta := sweMeta(mm, trajEntry(traj, tlist, action))
			meta = setIf(meta, "action_format", "text")
			meta = setIf(meta, "action", act)
			action++
			// The pairing id is this converter's own, not the
			// transcript's, so it is not kept.
			id := "action:" + strconv.Itoa(i)
			tool, params := sweCommand(act)
			if _, err := q.call(id, stepRec{Type: "tool_call", Tool: tool, Params: params, Meta: meta}); err != nil {
				return err
			}
			textCall = q.pending(id)
			delete(textCall.step.Meta, "tool_call_id")
			lastObs = nil
			if action-1 < len(tlist) {
				lastObs = traj.idx(action - 1).key("observation").v
			}
		case textCall != nil && role == "user":
			// The observation of the last text action.
			text, has, _ := textOf(m.key("content"))
			id := textCall.id
			textCall = nil
			if _, err := q.result(id, callResult{Text: text, HasText: has, Meta: sweMeta(mm, nil)}); err != nil {
				return err
			}
		default:
			if role == "assistant" && len(calls) > 0 {
				c.meta = setIf(nil, "trajectory", trajEntry(traj, tlist, action))
				action++
			}
			err := c.message(m, i, "")
			c.meta = nil
			if err != nil {
				return err
			}
		}
	}
	if obs, ok := lastObs.(string); ok && textCall != nil {
		// The history can end before the last observation (submit); the
		// trajectory has it.
		if _, err := q.result(textCall.id, callResult{Text: obs, HasText: true}); err != nil {
			return err
		}
	}
	// The history can also end before the last action (a function-calling
	// run's submit): the trajectory has it, and the run is not over
	// without it.
	for ; action < len(tlist); action++ {
		if err := sweTrajectoryEntry(w, q, traj.idx(action), true); err != nil {
			return err
		}
	}
	return q.close()
}

// sweMeta keeps a history message's fields beyond content, role, thought
// and action, with the trajectory entry it matches.
func sweMeta(m map[string]any, traj map[string]any) map[string]any {
	meta := setIf(nil, "extra", rest(m, "role", "content", "thought", "action", "tool_calls"))
	return setIf(meta, "trajectory", traj)
}

// trajEntry returns what a trajectory entry adds to the history: its
// execution time and state (its action, observation, response and thought
// repeat the history).
func trajEntry(traj node, tlist []any, i int) map[string]any {
	if i >= len(tlist) {
		return nil
	}
	m, ok := traj.idx(i).obj()
	if !ok {
		return nil
	}
	out := rest(m, "action", "observation", "response", "thought", "messages")
	if s, ok := out["state"].(string); ok {
		// Older versions write the state as JSON text.
		if v, err := jcs.Decode([]byte(s)); err == nil {
			out["state"] = v
		}
	}
	return out
}

// sweTrajectory maps a trajectory without history: each entry is the
// model's response, then its action run in the shell with its observation.
func sweTrajectory(w *writer, traj node, tlist []any) error {
	q := newSteps(w)
	for i := range tlist {
		if err := sweTrajectoryEntry(w, q, traj.idx(i), false); err != nil {
			return err
		}
	}
	return q.close()
}

// sweTrajectoryEntry writes one trajectory entry: the model's response,
// then the command it ran, named and read as sweCommand reads a text
// action, with the observation as its output. tail marks an entry the
// history lacks (metadata.from_trajectory).
func sweTrajectoryEntry(w *writer, q *steps, e node, tail bool) error {
	m, err := e.needObj()
	if err != nil {
		return err
	}
	resp, err := e.key("response").optStr()
	if err != nil {
		return err
	}
	if resp == "" {
		resp, _ = m["thought"].(string)
	}
	if resp != "" {
		if _, err := q.add(stepRec{Type: "model_call", Tool: w.model, Output: &resp}); err != nil {
			return err
		}
	}
	act, err := e.key("action").optStr()
	if err != nil {
		return err
	}
	meta := rest(m, "action", "observation", "response", "thought")
	if s, ok := meta["state"].(string); ok {
		if v, err := jcs.Decode([]byte(s)); err == nil {
			meta["state"] = v
		}
	}
	meta = setIf(meta, "action", act)
	meta = setIf(meta, "from_trajectory", tail)
	tool, params := sweCommand(act)
	s := stepRec{Type: "tool_call", Tool: tool, Params: params, Meta: meta}
	if obs, ok := m["observation"].(string); ok {
		s.Output = &obs
	}
	sweNormalize(&s)
	_, err = q.add(s)
	return err
}
