package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// NVIDIA NeMo Gym collects rollouts (ng_collect_rollouts) as JSONL, one
// rollout per line: responses_create_params, the Responses API request
// (input items, tools, model parameters); response, the Responses API
// object the agent returned, whose output holds every item of the rollout
// in order (messages, reasoning, function_call and function_call_output,
// the simulated user's turns); reward, from the resources server's
// verifier, with whatever else the verifier returns (resolved, metrics);
// instance_id for the benchmarks that have one; agent_ref and the
// _ng_task_index / _ng_rollout_index of the run. Each line becomes a log of
// its own. A line without a response is a task of the input dataset, not
// a rollout.

func isNemoGym(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, rcp := m["responses_create_params"].(map[string]any)
	resp, _ := m["response"].(map[string]any)
	_, out := resp["output"].([]any)
	return rcp && out
}

func isNemoGymLine(line []byte) bool {
	var head struct {
		RCP  json.RawMessage `json:"responses_create_params"`
		Resp *struct {
			Output json.RawMessage `json:"output"`
		} `json:"response"`
	}
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' || json.Unmarshal(t, &head) != nil {
		return false
	}
	return len(head.RCP) > 0 && head.Resp != nil && len(head.Resp.Output) > 0 && head.Resp.Output[0] == '['
}

// isNemoGymTasks recognises a line of a NeMo Gym dataset's tasks: a
// request, with no rollout.
func isNemoGymTasks(m map[string]json.RawMessage) bool {
	_, req := m["responses_create_params"]
	_, resp := m["response"]
	return req && !resp
}

func convertNemoGymRollouts(r *bufio.Reader, w *writer) error {
	return eachRecord(r, w, nemoGymID, convertNemoGymRollout)
}

func convertNemoGymDoc(d *document, w *writer) error {
	return d.withLine(convertNemoGymRollout(d.first(), w))
}

// nemoGymID names a rollout for --record: its instance_id, else its task
// and rollout indexes ("3:0"), else nothing (its place names it).
func nemoGymID(n node) string {
	if id := eventID(n.key("instance_id").v); id != "" {
		return id
	}
	t, r := n.key("_ng_task_index").v, n.key("_ng_rollout_index").v
	if t == nil || r == nil {
		return ""
	}
	return fmt.Sprintf("%v:%v", t, r)
}

// nemoGymResult are the fields a verifier adds that say how the rollout
// did, kept in the run's metadata.
func nemoGymResult() []string {
	return []string{"reward", "resolved", "instance_id", "_ng_task_index", "_ng_rollout_index", "agent_ref", "metrics"}
}

func convertNemoGymRollout(n node, w *writer) error {
	m, err := n.needObj()
	if err != nil {
		return err
	}
	rcp := n.key("responses_create_params")
	pm, err := rcp.needObj()
	if err != nil {
		return err
	}
	resp := n.key("response")
	rm, err := resp.needObj()
	if err != nil {
		return err
	}
	// One request and its response, as the Responses reader reads them.
	req := map[string]any{}
	for k, v := range pm {
		req[k] = v
	}
	req["output"] = rm["output"]
	transitions := 0
	if outs, ok := rm["output"].([]any); ok && len(outs) > 0 {
		if last, ok := outs[len(outs)-1].([]any); ok {
			// contains_transitions: each element is the rollout's items so
			// far; the last holds them all.
			req["output"] = last
			transitions = len(outs)
		}
	}
	for _, k := range []string{"usage", "created_at"} {
		if v, ok := rm[k]; ok && v != nil {
			req[k] = v
		}
	}
	if model, _ := rm["model"].(string); model != "" {
		req["model"] = model
	}
	r := runFields{Metadata: map[string]any{"source_format": "nemo-gym"}}
	for _, k := range nemoGymResult() {
		r.Metadata = setIf(r.Metadata, k, m[k])
	}
	if _, ok := m["resolved"]; !ok {
		// Some verifiers say it inside the response.
		r.Metadata = setIf(r.Metadata, "resolved", rm["resolved"])
	}
	r.Task, r.Outcome = nemoGymTask(m, rm)
	if transitions > 0 {
		r.Metadata = setIf(r.Metadata, "transitions", transitions)
	}
	r.Metadata = setIf(r.Metadata, "verifier", rest(m, append(nemoGymResult(), "responses_create_params", "response")...))
	r.Metadata = setIf(r.Metadata, "response", rest(rm, "output", "usage", "created_at", "model", "object", "resolved", "contains_transitions"))
	return responsesRun(node{v: req, path: n.path, line: n.line}, w, r)
}

// nemoGymTask says which task the rollout was (instance_id, else the task
// index with the rollout as its epoch) and how the verifier judged it
// (reward the score, resolved whether it passed).
func nemoGymTask(m, resp map[string]any) (*pack.Task, *pack.Outcome) {
	var t *pack.Task
	if id := eventID(m["instance_id"]); id != "" {
		t = &pack.Task{ID: id}
	} else if ti, ok := m["_ng_task_index"].(json.Number); ok {
		t = &pack.Task{ID: ti.String()}
		if rn, ok := m["_ng_rollout_index"].(json.Number); ok {
			if ri, err := rn.Int64(); err == nil && ri >= 0 && ri < 1<<30 {
				t.Epoch = int(ri) + 1
			}
		}
	}
	var o pack.Outcome
	if r, ok := m["reward"].(json.Number); ok {
		o.Score = json.RawMessage(r.String())
	}
	resolved, ok := m["resolved"].(bool)
	if !ok {
		resolved, ok = resp["resolved"].(bool)
	}
	if ok {
		o.Passed = &resolved
	}
	if o.Score == nil && o.Passed == nil {
		return t, nil
	}
	o.Source = "nemo-gym verifier"
	return t, &o
}
