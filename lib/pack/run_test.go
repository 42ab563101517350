package pack

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestRunTask holds the one reading of a run's task: its task object,
// else the first of metadata's task_id, task and instance_id that is a
// string with more than blanks.
func TestRunTask(t *testing.T) {
	for _, c := range []struct {
		task *Task
		meta string
		want string
	}{
		{&Task{ID: "t", Epoch: 2}, `{"instance_id":"x"}`, "t"},
		{&Task{ID: " "}, `{"instance_id":"x"}`, "x"},
		{nil, `{"instance_id":"django-1"}`, "django-1"},
		{nil, `{"task_id":"t1","instance_id":"x"}`, "t1"},
		{nil, `{"task":{"id":"not a string"},"instance_id":"y"}`, "y"},
		{nil, `{"task_id":"  "}`, ""},
		{nil, `[1,2]`, ""},
		{nil, ``, ""},
	} {
		m := &Manifest{Task: c.task, Metadata: json.RawMessage(c.meta)}
		got := ""
		if rt := m.RunTask(); rt != nil {
			got = rt.ID
		}
		if got != c.want {
			t.Errorf("RunTask of task %+v, metadata %s = %q, want %q", c.task, c.meta, got, c.want)
		}
	}
}

// TestVerdict holds the verdict words of every reader.
func TestVerdict(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		o    *Outcome
		want string
	}{
		{nil, ""},
		{&Outcome{Passed: &yes}, "passed"},
		{&Outcome{Passed: &no, Score: json.RawMessage("0")}, "failed"},
		{&Outcome{Score: json.RawMessage(`"C"`)}, "judged"},
	} {
		if got := c.o.Verdict(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.o, got, c.want)
		}
	}
	if Verdict(nil) != "" || Verdict(&yes) != VerdictPassed || Verdict(&no) != VerdictFailed {
		t.Error("Verdict of a bare verdict")
	}
}

// TestStepUsage is the table of the shapes converters keep, read by the
// one reader of tokens, cost and time.
func TestStepUsage(t *testing.T) {
	const at = "2026-02-10T12:00:00Z"
	for _, c := range []struct {
		name, meta, stamp string
		want              string // in out total tokens cost duration
	}{
		{"none", ``, at, "- - - - - -"},
		{"anthropic", `{"usage":{"input_tokens":10,"output_tokens":5,"cache_creation":{"x":1},"service_tier":"standard"}}`, at, "10 5 - 15 - -"},
		{"openai", `{"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":11}}`, at, "7 3 11 11 - -"},
		{"total and cost", `{"usage":{"total_tokens":15,"cost_usd":0.01}}`, at, "- - 15 15 0.01 -"},
		{"genai attributes", `{"attributes":{"gen_ai.usage.input_tokens":4,"gen_ai.usage.output_tokens":2}}`, at, "4 2 - 6 - -"},
		{"otel end", `{"end_time":"2026-02-10T12:00:01.5Z"}`, at, "- - - - - 1.5s"},
		{"claude code result", `{"result_timestamp":"2026-02-10T12:00:00.25Z","duration_ms":9}`, at, "- - - - - 250ms"},
		{"end without a start", `{"end_time":"2026-02-10T12:00:01Z","duration_ms":40}`, "", "- - - - - 40ms"},
		{"duration_s", `{"duration_s":2}`, at, "- - - - - 2s"},
		{"duration_ms", `{"duration_ms":310.5}`, at, "- - - - - 310.5ms"},
		{"latency_ms", `{"latency_ms":12}`, at, "- - - - - 12ms"},
		{"swe-agent", `{"execution_time":1.5}`, at, "- - - - - 1.5s"},
		{"wrong types", `{"duration_ms":"x","usage":{"input_tokens":"many","output_tokens":2}}`, at, "- 2 - 2 - -"},
		{"mcp nests its own", `{"mcp":{"id":1},"duration_ms":3}`, at, "- - - - - 3ms"},
	} {
		s := &Step{Metadata: json.RawMessage(c.meta)}
		if c.stamp != "" {
			s.Timestamp = &c.stamp
		}
		u := StepUsage(s)
		i := func(p *int64) string {
			if p == nil {
				return "-"
			}
			return fmt.Sprint(*p)
		}
		got := fmt.Sprintf("%s %s %s %s", i(u.InputTokens), i(u.OutputTokens), i(u.TotalTokens), i(u.Tokens()))
		if u.CostUSD == nil {
			got += " -"
		} else {
			got += fmt.Sprintf(" %g", *u.CostUSD)
		}
		if u.Duration == nil {
			got += " -"
		} else {
			got += " " + u.Duration.String()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestTotals adds a run up: tool calls, tokens and cost where recorded,
// and the time from the first step to the last.
func TestTotals(t *testing.T) {
	stamp := func(s string) *string { return &s }
	var tt Totals
	if tt.Tokens() != nil || tt.CostUSD() != nil || tt.Duration() != nil {
		t.Fatal("an empty run has totals")
	}
	for _, s := range []Step{
		{Type: "tool_call", Timestamp: stamp("2026-02-10T12:00:05Z"), Metadata: json.RawMessage(`{"execution_time":1}`)},
		{Type: "model_call", Timestamp: stamp("2026-02-10T12:00:00Z"), Metadata: json.RawMessage(`{"usage":{"input_tokens":10,"output_tokens":5,"cost_usd":0.5}}`)},
		{Type: "tool_call", Timestamp: stamp("not a time")},
		{Type: "model_call", Timestamp: stamp("2026-02-10T12:00:41Z"), Metadata: json.RawMessage(`{"usage":{"total_tokens":100}}`)},
	} {
		tt.Add(&s)
	}
	if tt.Steps != 4 || tt.ToolCalls != 2 || *tt.Tokens() != 115 || *tt.CostUSD() != 0.5 || time.Duration(*tt.Duration()*float64(time.Second)) != 41*time.Second {
		t.Errorf("totals %+v: tokens %d cost %g duration %g", tt, *tt.Tokens(), *tt.CostUSD(), *tt.Duration())
	}
}
