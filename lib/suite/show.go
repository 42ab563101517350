package suite

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// ShowReport is what ctx suite show prints: one entry per run (a task run
// five times is five entries, epochs 1 to 5), the runs counted by
// verdict, pass@k, and totals.
type ShowReport struct {
	Name  string `json:"name"`
	Suite string `json:"suite"` // ctx://<hex> of the suite object
	Counts
	PassAtK PassAtK    `json:"pass_at_k"`
	Tasks   []ShowTask `json:"tasks"`
	Totals  Totals     `json:"totals"`
}

// PassAtK is pass@k for k = 1 up to the fewest runs with a verdict any
// task has, the unbiased estimator averaged over the tasks with a
// verdict (index k-1 holds pass@k). Its JSON is an object keyed by k, as
// harnesses print it, each rounded to RateDecimals: {"1": 0.6, "2":
// 0.8}; null when no run has a verdict.
type PassAtK []float64

// MarshalJSON writes the object in the order of k.
func (p PassAtK) MarshalJSON() ([]byte, error) {
	if p == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		x, err := json.Marshal(rounded(v))
		if err != nil {
			return nil, err
		}
		b.WriteString(strconv.Quote(strconv.Itoa(i + 1)))
		b.WriteByte(':')
		b.Write(x)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// ShowTask is one run of a suite.
type ShowTask struct {
	Task      string          `json:"task"`
	Epoch     int             `json:"epoch"`
	Passed    *bool           `json:"passed"`
	Errored   string          `json:"errored,omitempty"`
	Score     json.RawMessage `json:"score"`
	ToolCalls int             `json:"tool_calls"`
	Steps     int             `json:"steps"`
	Pack      string          `json:"pack"`
	Model     string          `json:"model"`
	End       string          `json:"end,omitempty"`
	Tokens    *int64          `json:"tokens,omitempty"`
	CostUSD   *float64        `json:"cost_usd,omitempty"`
	Duration  *float64        `json:"duration_s,omitempty"`

	judged judgement
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

// Show lists a suite's runs, counted as j says.
func Show(s *Named, j Judging) ShowReport {
	rep := ShowReport{Name: s.Name, Suite: s.Hash.URI(), Counts: j.count(s.Runs), Tasks: []ShowTask{}}
	rep.Totals.Tasks = countTasks(s.Runs)
	rep.PassAtK = passAtK(s.Runs, j)
	for i := range s.Runs {
		r := &s.Runs[i]
		v := j.judge(r)
		t := ShowTask{Task: r.Task, Epoch: r.Epoch, Passed: v.passed(), Errored: errorWords(r), Score: orNull(r.Score()), ToolCalls: r.ToolCalls,
			Steps: r.Steps, Pack: r.Pack.String(), Model: r.Model, Tokens: r.Tokens, CostUSD: r.CostUSD, Duration: r.Duration, judged: v}
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

// passAtK is pass@k of the runs: for each task its n runs with a verdict
// and the c that passed; k from 1 to the smallest n; each pass@k the mean
// over the tasks of PassAt(n, c, k). Tasks without a verdict are left
// out; nil when every task is.
func passAtK(runs []Run, j Judging) PassAtK {
	g := byTask(runs)
	type nc struct{ n, c int }
	var tasks []nc
	fewest := 0
	for _, id := range g.order {
		var c Counts
		for _, r := range g.runs[id] {
			c.add(j.judge(r))
		}
		if c.judged() == 0 {
			continue
		}
		tasks = append(tasks, nc{c.judged(), c.Passed})
		if fewest == 0 || c.judged() < fewest {
			fewest = c.judged()
		}
	}
	if len(tasks) == 0 {
		return nil
	}
	out := make(PassAtK, fewest)
	for k := 1; k <= fewest; k++ {
		sum := 0.0
		for _, t := range tasks {
			sum += PassAt(t.n, t.c, k)
		}
		out[k-1] = sum / float64(len(tasks))
	}
	return out
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

// RateDecimals is how many decimals the JSON of a rate (a pass rate,
// pass@k, a mean difference of rates or scores) keeps: a hundredth of a
// percentage point, finer than one task of 5,000 moves a rate, and
// without the noise of binary fractions (0.7, not 0.7000000000000001).
// The figures are computed whole; only what is printed is rounded.
const RateDecimals = 4

// rounded is x to RateDecimals decimals.
func rounded(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	const scale = 1e4 // 10^RateDecimals
	r := math.Round(x*scale) / scale
	if r == 0 {
		return 0 // never -0
	}
	return r
}

// roundedp is rounded of *x, nil for nil.
func roundedp(x *float64) *float64 {
	if x == nil {
		return nil
	}
	r := rounded(*x)
	return &r
}
