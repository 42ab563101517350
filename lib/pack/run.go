package pack

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"
)

// A run's fields as every reader takes them: which task it was (RunTask),
// the word for its verdict (Verdict), and what its steps record of tokens,
// cost and time (StepUsage, Totals). ctx log, ctx show, ctx suite, the
// Parquet tables and the HTML pages read them here, and the recorders
// write the keys read here, so one run reads the same everywhere.

// taskKeys are the metadata keys that name a run's task when it has no
// task object, in the order they are tried (SWE-bench's instance_id among
// them).
func taskKeys() []string { return []string{"task_id", "task", "instance_id"} }

// RunTask is the task the run was: its task, else one whose id is the
// first of metadata's task_id, task or instance_id that is a string
// holding more than blanks; nil when there is neither.
func (m *Manifest) RunTask() *Task {
	if m.Task != nil && strings.TrimSpace(m.Task.ID) != "" {
		return m.Task
	}
	if len(m.Metadata) == 0 {
		return nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(m.Metadata, &fields) != nil {
		return nil
	}
	for _, k := range taskKeys() {
		var s string
		if json.Unmarshal(fields[k], &s) == nil && strings.TrimSpace(s) != "" {
			return &Task{ID: s}
		}
	}
	return nil
}

// The words for a run's verdict, the same in ctx show, ctx suite and
// their pages.
const (
	VerdictPassed = "passed"
	VerdictFailed = "failed"
	// VerdictJudged is an outcome with a score or a value but no pass or
	// fail.
	VerdictJudged = "judged"
	// VerdictErrored is a run without a verdict that ended in an error:
	// the harness (a test run that timed out, a verifier's exception) or
	// the agent failed before anything judged it. A suite counts it apart
	// from the runs that failed.
	VerdictErrored = "errored"
	// VerdictNone is a run nothing judged: neither passed nor failed,
	// never "0 passed".
	VerdictNone = "no verdict"
)

// Verdict is the word for passed: VerdictPassed, VerdictFailed, or ""
// when there is no verdict.
func Verdict(passed *bool) string {
	switch {
	case passed == nil:
		return ""
	case *passed:
		return VerdictPassed
	}
	return VerdictFailed
}

// Verdict is the word for the outcome: Verdict of Passed, else
// VerdictJudged; "" for no outcome.
func (o *Outcome) Verdict() string {
	if o == nil {
		return ""
	}
	if v := Verdict(o.Passed); v != "" {
		return v
	}
	return VerdictJudged
}

// The metadata keys of a step that StepUsage reads, for the writers of
// logs: the call's duration in milliseconds, and its usage ({input_tokens,
// output_tokens, total_tokens, cost_usd}).
const (
	MetaDurationMS = "duration_ms"
	MetaUsage      = "usage"
)

// Usage is what a step's metadata records of its tokens, its cost and how
// long it took; a nil field was not recorded.
type Usage struct {
	InputTokens, OutputTokens, TotalTokens *int64
	CostUSD                                *float64
	Duration                               *time.Duration
}

// Tokens is the step's total: total_tokens, else input plus output.
func (u Usage) Tokens() *int64 {
	if u.TotalTokens != nil {
		return u.TotalTokens
	}
	if u.InputTokens == nil && u.OutputTokens == nil {
		return nil
	}
	var n int64
	for _, p := range []*int64{u.InputTokens, u.OutputTokens} {
		if p != nil {
			n += *p
		}
	}
	return &n
}

// Seconds is the duration in seconds, nil when none was recorded.
func (u Usage) Seconds() *float64 {
	if u.Duration == nil {
		return nil
	}
	s := u.Duration.Seconds()
	return &s
}

// StepUsage reads the shapes converters keep in a step's metadata. Time:
// an end time (OpenTelemetry's end_time, Claude Code's result_timestamp)
// after the step's timestamp, else duration_s, duration_ms, latency_ms or
// SWE-agent's execution_time (seconds). Tokens: usage as Anthropic
// (input_tokens, output_tokens), OpenAI (prompt_tokens,
// completion_tokens), or either with total_tokens, else the GenAI semantic
// conventions' attributes (gen_ai.usage.input_tokens, ...); cost: usage's
// cost_usd. A field of another type is left out; the others still count.
func StepUsage(s *Step) Usage {
	var u Usage
	md := s.Metadata
	if len(md) == 0 || !(bytes.Contains(md, []byte("token")) || bytes.Contains(md, []byte("time")) ||
		bytes.Contains(md, []byte("duration")) || bytes.Contains(md, []byte("_ms")) || bytes.Contains(md, []byte("cost"))) {
		return u
	}
	var v struct {
		EndTime         json.RawMessage            `json:"end_time"`
		ResultTimestamp json.RawMessage            `json:"result_timestamp"`
		DurationS       json.RawMessage            `json:"duration_s"`
		DurationMS      json.RawMessage            `json:"duration_ms"`
		LatencyMS       json.RawMessage            `json:"latency_ms"`
		ExecutionTime   json.RawMessage            `json:"execution_time"`
		Usage           map[string]json.RawMessage `json:"usage"`
		Attributes      map[string]json.RawMessage `json:"attributes"`
	}
	// A field of another type is skipped; the others still decode.
	_ = json.Unmarshal(md, &v)
	if start, ok := parseStamp(s.Timestamp); ok {
		for _, raw := range []json.RawMessage{v.EndTime, v.ResultTimestamp} {
			var end string
			if u.Duration == nil && json.Unmarshal(raw, &end) == nil {
				if t, ok := parseStamp(&end); ok {
					d := t.Sub(start)
					u.Duration = &d
				}
			}
		}
	}
	for _, f := range []struct {
		raw  json.RawMessage
		unit time.Duration
	}{{v.DurationS, time.Second}, {v.DurationMS, time.Millisecond}, {v.LatencyMS, time.Millisecond}, {v.ExecutionTime, time.Second}} {
		if x, ok := number(f.raw); ok && u.Duration == nil {
			d := time.Duration(x * float64(f.unit))
			u.Duration = &d
		}
	}
	count := func(fields map[string]json.RawMessage, keys ...string) *int64 {
		for _, k := range keys {
			if x, ok := number(fields[k]); ok {
				n := int64(x)
				return &n
			}
		}
		return nil
	}
	u.InputTokens = count(v.Usage, "input_tokens", "prompt_tokens")
	u.OutputTokens = count(v.Usage, "output_tokens", "completion_tokens")
	u.TotalTokens = count(v.Usage, "total_tokens")
	if u.InputTokens == nil && u.OutputTokens == nil && u.TotalTokens == nil {
		u.InputTokens = count(v.Attributes, "gen_ai.usage.input_tokens")
		u.OutputTokens = count(v.Attributes, "gen_ai.usage.output_tokens")
	}
	if c, ok := number(v.Usage["cost_usd"]); ok {
		u.CostUSD = &c
	}
	return u
}

// number reads a JSON number.
func number(raw json.RawMessage) (float64, bool) {
	var x float64
	if len(raw) == 0 || json.Unmarshal(raw, &x) != nil {
		return 0, false
	}
	return x, true
}

// parseStamp reads an RFC 3339 time.
func parseStamp(s *string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	return t, err == nil
}

// Totals adds up a run's steps, one at a time (Add): its tool calls, the
// tokens and cost its steps record, and its duration, from the first
// step's time to the last one's.
type Totals struct {
	Steps, ToolCalls int
	tokens           int64
	cost             float64
	hasTokens        bool
	hasCost          bool
	first, last      time.Time
}

// Add counts step s.
func (t *Totals) Add(s *Step) {
	t.Steps++
	if s.Type == "tool_call" {
		t.ToolCalls++
	}
	u := StepUsage(s)
	if n := u.Tokens(); n != nil {
		t.tokens += *n
		t.hasTokens = true
	}
	if u.CostUSD != nil {
		t.cost += *u.CostUSD
		t.hasCost = true
	}
	if at, ok := parseStamp(s.Timestamp); ok {
		if t.first.IsZero() || at.Before(t.first) {
			t.first = at
		}
		if at.After(t.last) {
			t.last = at
		}
	}
}

// Tokens is the tokens of the steps that record them, nil when none does.
func (t *Totals) Tokens() *int64 {
	if !t.hasTokens {
		return nil
	}
	n := t.tokens
	return &n
}

// CostUSD is the cost of the steps that record it, nil when none does.
func (t *Totals) CostUSD() *float64 {
	if !t.hasCost {
		return nil
	}
	c := t.cost
	return &c
}

// Duration is the seconds from the first step's time to the last one's,
// nil when fewer than two distinct times are recorded.
func (t *Totals) Duration() *float64 {
	if t.first.IsZero() || !t.last.After(t.first) {
		return nil
	}
	d := t.last.Sub(t.first).Seconds()
	return &d
}
