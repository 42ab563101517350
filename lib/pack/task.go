package pack

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/pack/jcs"
)

// The run's task, outcome and end state: optional objects at the top of
// the log (or on its run event), each validated here with problems named
// by their JSON path.

// task reads the log's "task": an object with a non-empty string id, an
// epoch that is an integer from 1 and a string name.
func (b *builder) task(top map[string]json.RawMessage) *Task {
	obj := b.optionalObject(top, "task")
	if obj == nil {
		return nil
	}
	var t Task
	ok := true
	if raw, given := obj["id"]; given && !isNull(raw) && jcs.Kind(raw) == "a number" {
		b.problem("task.id", "must be a string, not a number (write it as \"%s\")", strings.TrimSpace(string(raw)))
		ok = false
	} else if id, got := b.str(obj, "id", "task", true); got {
		if id == "" {
			b.problem("task.id", "empty")
			ok = false
		}
		t.ID = id
	} else {
		ok = false
	}
	if raw, given := obj["epoch"]; given && !isNull(raw) {
		n, err := strconv.ParseInt(strings.TrimSpace(string(raw)), 10, 32)
		if err != nil || n < 1 {
			b.problem("task.epoch", "must be an integer from 1, not %s", strings.TrimSpace(string(raw)))
			ok = false
		}
		t.Epoch = int(n)
	}
	if name, got := b.str(obj, "name", "task", false); got {
		t.Name = name
	}
	if !ok {
		return nil
	}
	return &t
}

// outcome reads the log's "outcome": passed a boolean, score a number or a
// string, value any JSON value, source a string; at least one of passed,
// score and value.
func (b *builder) outcome(top map[string]json.RawMessage) *Outcome {
	obj := b.optionalObject(top, "outcome")
	if obj == nil {
		return nil
	}
	var o Outcome
	ok := true
	if raw, given := obj["passed"]; given && !isNull(raw) {
		switch strings.TrimSpace(string(raw)) {
		case "true", "false":
			p := strings.TrimSpace(string(raw)) == "true"
			o.Passed = &p
		default:
			b.problem("outcome.passed", "must be true or false, not %s", jcs.Kind(raw))
			ok = false
		}
	}
	if raw, given := obj["score"]; given && !isNull(raw) {
		if k := jcs.Kind(raw); k != "a number" && k != "a string" {
			b.problem("outcome.score", "must be a number or a string, not %s", k)
			ok = false
		} else {
			o.Score = b.canonical(raw, "outcome.score")
		}
	}
	if raw, given := obj["value"]; given && !isNull(raw) {
		o.Value = b.canonical(raw, "outcome.value")
	}
	if src, got := b.str(obj, "source", "outcome", false); got {
		o.Source = src
	}
	if ok && o.Passed == nil && o.Score == nil && o.Value == nil {
		b.problem("outcome", "gives none of passed, score and value")
		ok = false
	}
	if !ok {
		return nil
	}
	return &o
}

// end reads the log's "end": a state of EndStates and a string message.
func (b *builder) end(top map[string]json.RawMessage) *End {
	obj := b.optionalObject(top, "end")
	if obj == nil {
		return nil
	}
	var e End
	state, ok := b.str(obj, "state", "end", true)
	if ok && !slices.Contains(EndStates(), state) {
		b.problem("end.state", "%q is not a state (one of %s)", state, strings.Join(EndStates(), ", "))
		ok = false
	}
	e.State = state
	if msg, got := b.str(obj, "message", "end", false); got {
		e.Message = msg
	}
	if !ok {
		return nil
	}
	return &e
}

// optionalObject returns the fields of the top-level object k, nil when
// it is absent or null (or not an object, a problem), after reporting its
// unknown fields.
func (b *builder) optionalObject(top map[string]json.RawMessage, k string) map[string]json.RawMessage {
	raw, ok := top[k]
	if !ok || isNull(raw) {
		return nil
	}
	if jcs.Kind(raw) != "an object" {
		b.problem(k, "must be an object, not %s", jcs.Kind(raw))
		return nil
	}
	obj := b.object(raw, k)
	if obj != nil {
		b.fields(obj, k, b.knownFields(k))
	}
	return obj
}
