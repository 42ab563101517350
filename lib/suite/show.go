package suite

import (
	"encoding/json"
)

// ShowReport is what ctx suite show prints: one entry per run (a task run
// five times is five entries, epochs 1 to 5), and totals.
type ShowReport struct {
	Name   string     `json:"name"`
	Suite  string     `json:"suite"` // ctx://<hex> of the suite object
	Runs   int        `json:"runs"`
	Passed int        `json:"passed"` // runs that passed
	Tasks  []ShowTask `json:"tasks"`
	Totals Totals     `json:"totals"`
}

// ShowTask is one run of a suite.
type ShowTask struct {
	Task      string          `json:"task"`
	Epoch     int             `json:"epoch"`
	Passed    *bool           `json:"passed"`
	Score     json.RawMessage `json:"score"`
	ToolCalls int             `json:"tool_calls"`
	Steps     int             `json:"steps"`
	Pack      string          `json:"pack"`
	Model     string          `json:"model"`
	End       string          `json:"end,omitempty"`
	Tokens    *int64          `json:"tokens,omitempty"`
	CostUSD   *float64        `json:"cost_usd,omitempty"`
	Duration  *float64        `json:"duration_s,omitempty"`
}

// Totals add up the runs: tokens, cost and duration over the runs that
// give them (null when none does).
type Totals struct {
	Tasks     int      `json:"tasks"`
	Steps     int      `json:"steps"`
	ToolCalls int      `json:"tool_calls"`
	Tokens    *int64   `json:"tokens"`
	CostUSD   *float64 `json:"cost_usd"`
	Duration  *float64 `json:"duration_s"`
}

// Show lists a suite's runs.
func Show(s *Named) ShowReport {
	rep := ShowReport{Name: s.Name, Suite: s.Hash.URI(), Runs: len(s.Runs), Passed: countPassed(s.Runs), Tasks: []ShowTask{}}
	rep.Totals.Tasks = countTasks(s.Runs)
	for i := range s.Runs {
		r := &s.Runs[i]
		t := ShowTask{Task: r.Task, Epoch: r.Epoch, Passed: r.Passed(), Score: orNull(r.Score()), ToolCalls: r.ToolCalls,
			Steps: r.Steps, Pack: r.Pack.String(), Model: r.Model, Tokens: r.Tokens, CostUSD: r.CostUSD, Duration: r.Duration}
		if r.End != nil {
			t.End = r.End.State
		}
		rep.Tasks = append(rep.Tasks, t)
		rep.Totals.Steps += r.Steps
		rep.Totals.ToolCalls += r.ToolCalls
		rep.Totals.Tokens = add(rep.Totals.Tokens, r.Tokens)
		rep.Totals.CostUSD = add(rep.Totals.CostUSD, r.CostUSD)
		rep.Totals.Duration = add(rep.Totals.Duration, r.Duration)
	}
	return rep
}

func orNull(r json.RawMessage) json.RawMessage {
	if len(r) == 0 {
		return json.RawMessage("null")
	}
	return r
}

// add adds v to the sum of the values given so far (nil: none yet).
func add[T int64 | float64](sum, v *T) *T {
	if v == nil {
		return sum
	}
	n := *v
	if sum != nil {
		n += *sum
	}
	return &n
}
