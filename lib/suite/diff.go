package suite

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/contextsubstrate/ctx/lib/diff"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// The outcome changes of a task from suite A to suite B.
const (
	Regressed = "regressed"
	Improved  = "improved"
	Same      = "same"
	OnlyA     = "only_a"
	OnlyB     = "only_b"
)

// DiffReport is what ctx suite diff prints.
type DiffReport struct {
	A       SideSummary `json:"a"`
	B       SideSummary `json:"b"`
	Summary DiffSummary `json:"summary"`
	Tasks   []TaskDiff  `json:"tasks"`
}

// SideSummary names one suite of a diff.
type SideSummary struct {
	Name   string `json:"name"`
	Suite  string `json:"suite"`
	Runs   int    `json:"runs"`
	Passed int    `json:"passed"`
}

// DiffSummary counts the pairs by change, and compares the two sides'
// pass rates (over the runs that have a verdict; null when none has),
// scores, and (McNemar's exact test over the pairs whose
// verdict changed) how likely a split that uneven is by chance.
type DiffSummary struct {
	Paired         int        `json:"paired"`
	Regressed      int        `json:"regressed"`
	Improved       int        `json:"improved"`
	Unchanged      int        `json:"unchanged"`
	OnlyA          int        `json:"only_a"`
	OnlyB          int        `json:"only_b"`
	PassRateA      *float64   `json:"pass_rate_a"`
	PassRateB      *float64   `json:"pass_rate_b"`
	MeanScoreDelta *float64   `json:"mean_score_delta"`
	McNemarP       float64    `json:"mcnemar_p"`
	Repeated       []TaskRate `json:"repeated"`
}

// TaskRate is a task run more than once on either side: its pass rate on
// each.
type TaskRate struct {
	Task string `json:"task"`
	A    Rate   `json:"a"`
	B    Rate   `json:"b"`
}

// Rate is how many runs of a task passed.
type Rate struct {
	Runs     int      `json:"runs"`
	Passed   int      `json:"passed"`
	PassRate *float64 `json:"pass_rate"`
}

// TaskDiff is one task and epoch: its change, each side's run, and the
// step drift between the two runs.
type TaskDiff struct {
	Task   string    `json:"task"`
	Epoch  int       `json:"epoch"`
	Change string    `json:"change"`
	A      *RunBrief `json:"a"`
	B      *RunBrief `json:"b"`
	Drift  *Drift    `json:"drift"`

	// report is the engine's whole report of the pair (its entries and
	// alignment), kept for the pairs a page draws (DiffOptions.Keep).
	report *diff.Report
	ha, hb store.Hash
}

// DiffOptions control Diff: how steps align (diff.Options), and how many
// pairs, in ByChange order, keep the engine's whole report for a page
// (the first Keep that drift); the others keep their counts only.
type DiffOptions struct {
	diff.Options
	Keep int
}

// RunBrief is one side's run of a task.
type RunBrief struct {
	Pack   string          `json:"pack"`
	Passed *bool           `json:"passed"`
	Score  json.RawMessage `json:"score"`
}

// Drift is the step-level drift of a pair, from ctx diff's engine.
type Drift struct {
	FirstDivergence *int         `json:"first_divergence"`
	Counts          diff.Summary `json:"counts"`
}

// NoCommonTaskError is two suites without a task in common: nothing to
// pair.
type NoCommonTaskError struct{ A, B string }

func (e *NoCommonTaskError) Error() string {
	return fmt.Sprintf("suites %s and %s have no task in common: nothing to compare", e.A, e.B)
}

// ErrorHints says what to check.
func (e *NoCommonTaskError) ErrorHints() []string {
	return []string{"runs are paired by task id and epoch; 'ctx suite show NAME' lists each suite's"}
}

// Diff pairs the runs of a and b by task id and epoch, says how each
// task's outcome changed and how each pair's steps drifted. The pairs are
// compared in ByChange order, so the reports kept for a page are those of
// the first pairs it lists.
func Diff(st *store.Store, a, b *Named, opts DiffOptions) (*DiffReport, error) {
	rep := &DiffReport{A: side(a), B: side(b), Tasks: []TaskDiff{}}
	type key struct {
		task  string
		epoch int
	}
	inB := map[key]*Run{}
	for i := range b.Runs {
		inB[key{b.Runs[i].Task, b.Runs[i].Epoch}] = &b.Runs[i]
	}
	inA := map[key]bool{}
	common := false
	for i := range a.Runs {
		ra := &a.Runs[i]
		inA[key{ra.Task, ra.Epoch}] = true
		rb := inB[key{ra.Task, ra.Epoch}]
		td := TaskDiff{Task: ra.Task, Epoch: ra.Epoch, A: brief(ra), B: brief(rb)}
		if rb == nil {
			td.Change = OnlyA
			rep.Tasks = append(rep.Tasks, td)
			continue
		}
		common = true
		td.Change = change(ra, rb)
		td.ha, td.hb = ra.Pack, rb.Pack
		rep.Tasks = append(rep.Tasks, td)
	}
	for i := range b.Runs {
		rb := &b.Runs[i]
		if !inA[key{rb.Task, rb.Epoch}] {
			rep.Tasks = append(rep.Tasks, TaskDiff{Task: rb.Task, Epoch: rb.Epoch, Change: OnlyB, B: brief(rb)})
		}
	}
	if !common {
		return nil, &NoCommonTaskError{A: a.Name, B: b.Name}
	}
	sortTaskDiffs(rep.Tasks)
	kept := 0
	for _, i := range rep.byChange() {
		t := &rep.Tasks[i]
		if t.A == nil || t.B == nil {
			continue
		}
		r, err := drift(st, t.ha, t.hb, opts.Options)
		if err != nil {
			return nil, fmt.Errorf("task %s epoch %d: %w", t.Task, t.Epoch, err)
		}
		t.Drift = &Drift{FirstDivergence: r.FirstDivergence, Counts: r.Summary}
		if kept < opts.Keep && r.Summary.Total > 0 {
			t.report = r
			kept++
		}
	}
	rep.Summary = summarize(a, b, rep.Tasks)
	return rep, nil
}

func side(s *Named) SideSummary {
	return SideSummary{Name: s.Name, Suite: s.Hash.URI(), Runs: len(s.Runs), Passed: countPassed(s.Runs)}
}

func brief(r *Run) *RunBrief {
	if r == nil {
		return nil
	}
	return &RunBrief{Pack: r.Pack.String(), Passed: r.Passed(), Score: orNull(r.Score())}
}

// change is how a pair's outcome moved: by verdict when both sides have
// one, else by numeric score, else the same.
func change(a, b *Run) string {
	pa, pb := a.Passed(), b.Passed()
	if pa != nil && pb != nil {
		switch {
		case *pa && !*pb:
			return Regressed
		case !*pa && *pb:
			return Improved
		}
		return Same
	}
	sa, okA := number(a.Score())
	sb, okB := number(b.Score())
	if okA && okB {
		switch {
		case sb < sa:
			return Regressed
		case sb > sa:
			return Improved
		}
	}
	return Same
}

// number reads a score that is a JSON number.
func number(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 || raw[0] == '"' || string(raw) == "null" {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	return f, err == nil
}

// drift compares two packs with ctx diff's engine, a step of each at a
// time.
func drift(st *store.Store, ha, hb store.Hash, opts diff.Options) (*diff.Report, error) {
	if ha == hb {
		return &diff.Report{}, nil
	}
	ma, na, err := pack.Head(st, ha, nil)
	if err != nil {
		return nil, err
	}
	mb, nb, err := pack.Head(st, hb, nil)
	if err != nil {
		return nil, err
	}
	return diff.CompareSteps(ma, mb, pack.StoredSteps(st, ha, na), pack.StoredSteps(st, hb, nb), opts)
}

func sortTaskDiffs(t []TaskDiff) {
	slices.SortStableFunc(t, func(x, y TaskDiff) int { return cmpTask(x.Task, x.Epoch, y.Task, y.Epoch) })
}

func summarize(a, b *Named, tasks []TaskDiff) DiffSummary {
	var s DiffSummary
	s.PassRateA = rate(countPassed(a.Runs), countJudged(a.Runs))
	s.PassRateB = rate(countPassed(b.Runs), countJudged(b.Runs))
	var deltas float64
	nd := 0
	discA, discB := 0, 0
	for _, t := range tasks {
		switch t.Change {
		case OnlyA:
			s.OnlyA++
			continue
		case OnlyB:
			s.OnlyB++
			continue
		case Regressed:
			s.Regressed++
		case Improved:
			s.Improved++
		default:
			s.Unchanged++
		}
		s.Paired++
		if t.A.Passed != nil && t.B.Passed != nil && *t.A.Passed != *t.B.Passed {
			if *t.A.Passed {
				discA++
			} else {
				discB++
			}
		}
		if x, ok := number(t.A.Score); ok {
			if y, ok := number(t.B.Score); ok {
				deltas += y - x
				nd++
			}
		}
	}
	if nd > 0 {
		m := deltas / float64(nd)
		s.MeanScoreDelta = &m
	}
	s.McNemarP = McNemarExact(discA, discB)
	s.Repeated = repeated(a, b)
	return s
}

func rate(passed, runs int) *float64 {
	if runs == 0 {
		return nil
	}
	r := float64(passed) / float64(runs)
	return &r
}

// repeated lists the tasks run more than once on either side, with each
// side's pass rate.
func repeated(a, b *Named) []TaskRate {
	count := func(s *Named) map[string]*Rate {
		out := map[string]*Rate{}
		for i := range s.Runs {
			r := &s.Runs[i]
			x := out[r.Task]
			if x == nil {
				x = &Rate{}
				out[r.Task] = x
			}
			x.Runs++
			if p := r.Passed(); p != nil && *p {
				x.Passed++
			}
		}
		return out
	}
	ca, cb := count(a), count(b)
	var ids []string
	seen := map[string]bool{}
	for _, c := range []map[string]*Rate{ca, cb} {
		for id, r := range c {
			if r.Runs > 1 && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	slices.SortFunc(ids, func(x, y string) int { return cmpTask(x, 0, y, 0) })
	out := []TaskRate{}
	for _, id := range ids {
		tr := TaskRate{Task: id}
		if r := ca[id]; r != nil {
			tr.A = *r
		}
		if r := cb[id]; r != nil {
			tr.B = *r
		}
		tr.A.PassRate = rate(tr.A.Passed, tr.A.Runs)
		tr.B.PassRate = rate(tr.B.Passed, tr.B.Runs)
		out = append(out, tr)
	}
	return out
}

// Fails reports whether the diff is a finding under --fail-on: regressed
// (any task regressed), changed (any task not the same, one side's only
// included) or never.
func (r *DiffReport) Fails(failOn string) bool {
	switch failOn {
	case "never":
		return false
	case "changed":
		return r.Summary.Regressed+r.Summary.Improved+r.Summary.OnlyA+r.Summary.OnlyB > 0
	}
	return r.Summary.Regressed > 0
}
