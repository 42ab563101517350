package convert

import (
	"github.com/contextsubstrate/ctx/lib/pack"
)

// maxWaiting bounds how many steps may wait behind a tool call whose result
// has not come; past it the oldest call is written without a result, so a
// transcript that never answers a call cannot make memory grow without end.
const maxWaiting = 4096

// steps numbers steps and writes them in the order they happened while
// tool calls wait for their results. A result pairs with the oldest
// unanswered call of its id, so ids that a transcript reuses (SWE-agent
// demonstrations do) still pair in order.
type steps struct {
	w     *writer
	queue []*queued
	open  map[string][]*queued // unanswered tool calls by id
	next  int                  // index of the next step

	missing int // calls written without a result
	orphans int // results with no call

	// answered, when set, sees each call once its result is in (a format
	// derives the normalised output from it).
	answered func(s *stepRec)
}

type queued struct {
	step    stepRec
	index   int
	id      string
	waiting bool
	// interrupted: the user interrupted before the call had a result; if
	// none comes, it never ran.
	interrupted bool
	// started: the transcript shows the call running (progress ticks).
	started bool
}

// callResult is what a tool call returned.
type callResult struct {
	Text      string
	HasText   bool
	IsError   bool
	Outcome   string // pack.OutcomeRejected: the call was refused and never ran
	Tool      string // the tool the result names, if it does
	Timestamp string
	Meta      map[string]any
}

func newSteps(w *writer) *steps {
	return &steps{w: w, open: map[string][]*queued{}}
}

// add queues a step that needs nothing more and returns its index; a
// bookkeeping record (s.Bookkeeping) keeps its place in the queue but is
// no step and takes no index (-1).
func (q *steps) add(s stepRec) (int, error) {
	if s.Bookkeeping {
		q.queue = append(q.queue, &queued{step: s, index: -1})
		return -1, q.flush()
	}
	q.queue = append(q.queue, &queued{step: s, index: q.next})
	q.next++
	return q.next - 1, q.flush()
}

// call queues a tool call that waits for the result with id; a call with
// no id is written without a result.
func (q *steps) call(id string, s stepRec) (int, error) {
	if s.Meta == nil {
		s.Meta = map[string]any{}
	}
	if id != "" {
		s.Meta["tool_call_id"] = id
	}
	e := &queued{step: s, index: q.next, id: id, waiting: id != ""}
	q.next++
	q.queue = append(q.queue, e)
	if id != "" {
		q.open[id] = append(q.open[id], e)
	}
	return e.index, q.flush()
}

// oldestOpen returns the id of the oldest call still waiting for its
// result whose tool is tool ("": any tool), for formats whose results name
// the tool rather than the call.
func (q *steps) oldestOpen(tool string) (string, bool) {
	for _, e := range q.queue {
		if e.waiting && (tool == "" || e.step.Tool == tool) {
			return e.id, true
		}
	}
	return "", false
}

// pending returns the oldest unanswered call with id, if any.
func (q *steps) pending(id string) *queued {
	if l := q.open[id]; len(l) > 0 {
		return l[0]
	}
	return nil
}

// result answers the oldest unanswered call with id. A result with no call
// is never dropped and never counted as a call: it becomes an event step
// (tool "orphan_result") whose metadata keeps the id, the tool it names
// and whether it was an error. It returns the index of the step that holds
// the result.
func (q *steps) result(id string, r callResult) (int, error) {
	l := q.open[id]
	if len(l) == 0 {
		q.orphans++
		meta := r.Meta
		meta = setIf(meta, "orphan_result", true)
		meta = setIf(meta, "tool_call_id", id)
		meta = setIf(meta, "result_tool", r.Tool)
		meta = setIf(meta, "error", r.IsError)
		meta = setIf(meta, "result_outcome", r.Outcome)
		s := stepRec{Type: "event", Tool: "orphan_result", Timestamp: r.Timestamp, Meta: meta}
		if r.HasText {
			t := r.Text
			s.Output = &t
		}
		return q.add(s)
	}
	e := l[0]
	if len(l) == 1 {
		delete(q.open, id)
	} else {
		q.open[id] = l[1:]
	}
	e.waiting = false
	e.interrupted = false
	e.step.Outcome = r.Outcome
	if r.HasText {
		t := r.Text
		e.step.Output = &t
	}
	if r.IsError {
		e.step.Meta["error"] = true
	}
	if r.Timestamp != "" && r.Timestamp != e.step.Timestamp {
		e.step.Meta["result_timestamp"] = r.Timestamp
	}
	for _, k := range sortedKeys(r.Meta) {
		if _, taken := e.step.Meta[k]; !taken {
			e.step.Meta[k] = r.Meta[k]
		}
	}
	if q.answered != nil && r.Outcome == "" && !r.IsError {
		q.answered(&e.step)
	}
	if !r.IsError && r.Outcome == "" {
		q.w.wroteBy(e.step.Tool, e.step.Params, e.index)
	}
	return e.index, q.flush()
}

// flush writes the steps at the head of the queue that are complete.
func (q *steps) flush() error {
	for len(q.queue) > 0 && (!q.queue[0].waiting || len(q.queue) > maxWaiting) {
		e := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		if e.waiting {
			q.giveUp(e)
		}
		if e.step.Bookkeeping {
			q.w.bookkeep(e.step)
			continue
		}
		if err := q.w.step(e.step); err != nil {
			return err
		}
	}
	if len(q.queue) == 0 {
		q.queue = nil // let the backing array go
	}
	return nil
}

func (q *steps) giveUp(e *queued) {
	e.waiting = false
	if e.interrupted {
		// Interrupted before it answered, and it never did: it never ran.
		e.step.Outcome = pack.OutcomeRejected
		e.step.Meta["interrupted"] = true
	} else {
		e.step.Meta["no_result"] = true
		q.missing++
	}
	l := q.open[e.id]
	for i, o := range l {
		if o == e {
			l = append(l[:i:i], l[i+1:]...)
			break
		}
	}
	if len(l) == 0 {
		delete(q.open, e.id)
	} else {
		q.open[e.id] = l
	}
}

// interruptOpen marks every call still waiting for its result as
// interrupted: the user stopped the turn, and a call that gets no result
// afterwards never ran.
func (q *steps) interruptOpen() {
	for _, l := range q.open {
		for _, e := range l {
			if !e.started {
				e.interrupted = true
			}
		}
	}
}

// close writes what is left: calls that never got a result are written
// without one, marked no_result, with a warning.
func (q *steps) close() error {
	for _, e := range q.queue {
		if e.waiting {
			q.giveUp(e)
		}
	}
	if err := q.flush(); err != nil {
		return err
	}
	if err := q.w.endSteps(); err != nil {
		return err
	}
	if q.missing > 0 {
		q.w.warnf("%d tool call(s) have no result in the transcript; written without output, marked no_result in metadata", q.missing)
	}
	if q.orphans > 0 {
		q.w.warnf("%d tool result(s) answer no call in the transcript; kept as event steps (orphan_result), not counted as calls", q.orphans)
	}
	return nil
}

// prompt writes a user-side message; at_step says which step it came
// before, so the order of the conversation survives the split into prompts
// and steps.
func (q *steps) prompt(role, text string, meta map[string]any) error {
	if meta == nil {
		meta = map[string]any{}
	}
	meta["at_step"] = q.next
	return q.w.prompt(role, text, meta)
}
