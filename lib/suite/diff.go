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

// The changes of a task from suite A to suite B.
const (
	Regressed = "regressed"
	Improved  = "improved"
	Same      = "same"
	// Errored is a task whose change involves a run that errored (no
	// verdict because the harness failed): not compared, never a
	// regression.
	Errored = "errored"
	// NoVerdict is a task whose change involves a run nothing judged.
	NoVerdict = "no_verdict"
	OnlyA     = "only_a"
	OnlyB     = "only_b"
)

// How a diff compares: Runs, one run of each task on each side, pair by
// pair (McNemar's test); Trials, tasks run more than once, by pass rate
// (the sign test).
const (
	ComparedRuns   = "runs"
	ComparedTrials = "trials"
)

// The tests a summary names.
const (
	TestMcNemar = "mcnemar"
	TestSign    = "sign_test"
)

// DiffReport is what ctx suite diff prints.
type DiffReport struct {
	A       SideSummary `json:"a"`
	B       SideSummary `json:"b"`
	Summary DiffSummary `json:"summary"`
	Tasks   []TaskDiff  `json:"tasks"`
}

// SideSummary names one suite of a diff and counts its runs.
type SideSummary struct {
	Name  string `json:"name"`
	Suite string `json:"suite"`
	Counts
}

// DiffSummary counts the tasks by change and compares the two sides:
// pass rates (over the runs that have a verdict; null when none has), the
// mean score delta, the mean difference of the tasks' pass rates with its
// 95% confidence interval, and the test of Compared (McNemar's exact test
// over one run per task, the sign test over pass rates) with its p-value.
// Errored and unjudged tasks are counted apart and left out of every
// figure.
type DiffSummary struct {
	Compared        string      `json:"compared"`
	Paired          int         `json:"paired"`
	Regressed       int         `json:"regressed"`
	Improved        int         `json:"improved"`
	Unchanged       int         `json:"unchanged"`
	Errored         int         `json:"errored"`
	NoVerdict       int         `json:"no_verdict"`
	OnlyA           int         `json:"only_a"`
	OnlyB           int         `json:"only_b"`
	PassRateA       *float64    `json:"pass_rate_a"`
	PassRateB       *float64    `json:"pass_rate_b"`
	MeanScoreDelta  *float64    `json:"mean_score_delta"`
	MeanRateDelta   *float64    `json:"mean_rate_delta"`
	MeanRateDeltaCI *[2]float64 `json:"mean_rate_delta_ci95"`
	Test            string      `json:"test"`
	McNemarP        *float64    `json:"mcnemar_p,omitempty"`
	SignTestP       *float64    `json:"sign_test_p,omitempty"`
}

// MarshalJSON gives the summary's rates and deltas rounded to
// RateDecimals (the p-values are exact, and left whole).
func (s DiffSummary) MarshalJSON() ([]byte, error) {
	type plain DiffSummary
	p := plain(s)
	p.PassRateA, p.PassRateB = roundedp(p.PassRateA), roundedp(p.PassRateB)
	p.MeanScoreDelta, p.MeanRateDelta = roundedp(p.MeanScoreDelta), roundedp(p.MeanRateDelta)
	if ci := p.MeanRateDeltaCI; ci != nil {
		p.MeanRateDeltaCI = &[2]float64{rounded(ci[0]), rounded(ci[1])}
	}
	return json.Marshal(p)
}

// P is the p-value of the summary's test.
func (s DiffSummary) P() float64 {
	if s.SignTestP != nil {
		return *s.SignTestP
	}
	if s.McNemarP != nil {
		return *s.McNemarP
	}
	return 1
}

// TaskDiff is one task: its change and its step drift. Compared by runs
// (one run a side), A and B are the two runs and Epoch is A's (B's for a
// task only in B); compared by trials, RateA and RateB count each side's
// runs and Pair is the representative pair whose drift is given.
type TaskDiff struct {
	Task   string
	Epoch  int
	Change string
	A, B   *RunBrief
	RateA  *TaskRate
	RateB  *TaskRate
	Pair   *Pair
	Drift  *Drift

	// report is the engine's whole report of the pair (its entries and
	// alignment), kept for the pairs a page draws (DiffOptions.Keep).
	report *diff.Report
	ha, hb store.Hash
	// scoreA and scoreB are each side's mean numeric score of a task
	// compared by trials, nil when a run has none.
	scoreA, scoreB *float64
}

// MarshalJSON gives a task's JSON: {"task", "epoch", "change", "a", "b",
// "drift"} compared by runs, {"task", "change", "a", "b", "pair",
// "drift"} compared by trials, where a and b are each side's TaskRate.
func (t TaskDiff) MarshalJSON() ([]byte, error) {
	if t.RateA != nil || t.RateB != nil {
		return json.Marshal(struct {
			Task   string    `json:"task"`
			Change string    `json:"change"`
			A      *TaskRate `json:"a"`
			B      *TaskRate `json:"b"`
			Pair   *Pair     `json:"pair"`
			Drift  *Drift    `json:"drift"`
		}{t.Task, t.Change, t.RateA, t.RateB, t.Pair, t.Drift})
	}
	return json.Marshal(struct {
		Task   string    `json:"task"`
		Epoch  int       `json:"epoch"`
		Change string    `json:"change"`
		A      *RunBrief `json:"a"`
		B      *RunBrief `json:"b"`
		Drift  *Drift    `json:"drift"`
	}{t.Task, t.Epoch, t.Change, t.A, t.B, t.Drift})
}

// TaskRate is one side's runs of a task: how many passed, failed,
// errored or have no verdict, and the pass rate over those with a
// verdict (null when none has).
type TaskRate struct {
	Counts
	Rate *float64 `json:"rate"`
}

// MarshalJSON gives the rate rounded to RateDecimals.
func (r TaskRate) MarshalJSON() ([]byte, error) {
	type plain TaskRate
	p := plain(r)
	p.Rate = roundedp(p.Rate)
	return json.Marshal(p)
}

// Pair is the representative pair of a task compared by trials: the run
// of each side whose drift is given, and which rule chose them.
type Pair struct {
	A      *RunBrief `json:"a"`
	B      *RunBrief `json:"b"`
	Chosen string    `json:"chosen"`
}

// The rules that choose a representative pair.
const (
	pairPassedFailed = "a's first passed run, b's first failed run"
	pairFailedPassed = "a's first failed run, b's first passed run"
	pairSameEpoch    = "the first epoch both ran"
	pairFirst        = "the first run of each"
)

// DiffOptions control Diff: how steps align (diff.Options), how runs are
// counted (Judging), and how many pairs, in ByChange order, keep the
// engine's whole report for a page (the first Keep that drift); the
// others keep their counts only.
type DiffOptions struct {
	diff.Options
	Judging
	Keep int
}

// RunBrief is one side's run of a task: its epoch, pack and verdict (true
// or false; null when it errored or nothing judged it), its score, and
// for a run that errored what its end says.
type RunBrief struct {
	Epoch   int             `json:"epoch"`
	Pack    string          `json:"pack"`
	Passed  *bool           `json:"passed"`
	Score   json.RawMessage `json:"score"`
	Errored string          `json:"errored,omitempty"`

	judged judgement
}

// Drift is the step-level drift of a pair, from ctx diff's engine, and
// how many of its reasoning drifts are tool calls whose result changed (a
// test run that now fails), not a model's answer.
type Drift struct {
	FirstDivergence *int         `json:"first_divergence"`
	Counts          diff.Summary `json:"counts"`
	ToolResults     int          `json:"tool_results"`
}

// NoCommonTaskError is two suites without a task in common: nothing to
// pair.
type NoCommonTaskError struct{ A, B string }

func (e *NoCommonTaskError) Error() string {
	return fmt.Sprintf("suites %s and %s have no task in common: nothing to compare", e.A, e.B)
}

// ErrorHints says what to check.
func (e *NoCommonTaskError) ErrorHints() []string {
	return []string{"runs are paired by task id; 'ctx suite show NAME' lists each suite's"}
}

// Diff pairs the runs of a and b by task and says how each task changed
// and how its runs' steps drifted. When every task has at most one run
// on each side, runs are compared pair by pair, whatever their epochs
// (McNemar's test); when a task has more, every task is compared by its
// pass rate (the sign test) and the drift is that of a representative
// pair. The pairs are compared in ByChange order, so the reports kept for
// a page are those of the first pairs it lists.
func Diff(st *store.Store, a, b *Named, opts DiffOptions) (*DiffReport, error) {
	j := opts.Judging
	rep := &DiffReport{A: side(a, j), B: side(b, j), Tasks: []TaskDiff{}}
	ga, gb := byTask(a.Runs), byTask(b.Runs)
	trials := ga.most > 1 || gb.most > 1
	common := false
	for _, id := range ga.order {
		if gb.runs[id] != nil {
			common = true
			break
		}
	}
	if !common {
		return nil, &NoCommonTaskError{A: a.Name, B: b.Name}
	}
	ids := append(slices.Clone(ga.order), gb.order...)
	slices.SortFunc(ids, func(x, y string) int { return cmpTask(x, 0, y, 0) })
	ids = slices.Compact(ids)
	for _, id := range ids {
		ra, rb := ga.runs[id], gb.runs[id]
		var td TaskDiff
		if trials {
			td = compareTrials(id, ra, rb, j)
		} else {
			td = compareRuns(id, ra, rb, j)
		}
		rep.Tasks = append(rep.Tasks, td)
	}
	kept := 0
	for _, i := range rep.byChange() {
		t := &rep.Tasks[i]
		if t.ha.IsZero() || t.hb.IsZero() {
			continue
		}
		r, tools, err := drift(st, t.ha, t.hb, opts.Options)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.Task, err)
		}
		t.Drift = &Drift{FirstDivergence: r.FirstDivergence, Counts: r.Summary, ToolResults: tools}
		if kept < opts.Keep && r.Summary.Total > 0 {
			t.report = r
			kept++
		}
	}
	rep.Summary = summarize(rep, trials)
	return rep, nil
}

func side(s *Named, j Judging) SideSummary {
	return SideSummary{Name: s.Name, Suite: s.Hash.URI(), Counts: j.count(s.Runs)}
}

// tasks are a suite's runs by task, in epoch order, and the most runs
// any task has.
type tasks struct {
	runs  map[string][]*Run
	order []string
	most  int
}

func byTask(runs []Run) tasks {
	t := tasks{runs: map[string][]*Run{}}
	for i := range runs {
		r := &runs[i]
		if t.runs[r.Task] == nil {
			t.order = append(t.order, r.Task)
		}
		t.runs[r.Task] = append(t.runs[r.Task], r)
		t.most = max(t.most, len(t.runs[r.Task]))
	}
	for _, rs := range t.runs {
		slices.SortStableFunc(rs, func(x, y *Run) int { return x.Epoch - y.Epoch })
	}
	return t
}

func brief(r *Run, j Judging) *RunBrief {
	if r == nil {
		return nil
	}
	v := j.judge(r)
	return &RunBrief{Epoch: r.Epoch, Pack: r.Pack.String(), Passed: v.passed(), Score: orNull(r.Score()), Errored: errorWords(r), judged: v}
}

// compareRuns compares a task of one run a side.
func compareRuns(id string, ra, rb []*Run, j Judging) TaskDiff {
	td := TaskDiff{Task: id}
	switch {
	case len(rb) == 0:
		td.Change, td.A, td.Epoch = OnlyA, brief(ra[0], j), ra[0].Epoch
		return td
	case len(ra) == 0:
		td.Change, td.B, td.Epoch = OnlyB, brief(rb[0], j), rb[0].Epoch
		return td
	}
	td.A, td.B, td.Epoch = brief(ra[0], j), brief(rb[0], j), ra[0].Epoch
	td.Change = change(td.A, td.B)
	td.ha, td.hb = ra[0].Pack, rb[0].Pack
	return td
}

// change is how a pair's outcome moved: errored when either run errored;
// by verdict when both have one; else by numeric score when both have
// one; else no_verdict (one side, or both, unjudged: nothing compared).
func change(a, b *RunBrief) string {
	if a.judged == judgedErrored || b.judged == judgedErrored {
		return Errored
	}
	if a.Passed != nil && b.Passed != nil {
		switch {
		case *a.Passed && !*b.Passed:
			return Regressed
		case !*a.Passed && *b.Passed:
			return Improved
		}
		return Same
	}
	sa, okA := number(a.Score)
	sb, okB := number(b.Score)
	if okA && okB {
		switch {
		case sb < sa:
			return Regressed
		case sb > sa:
			return Improved
		}
		return Same
	}
	return NoVerdict
}

// compareTrials compares a task by pass rate: the rates over the runs
// with a verdict. With runs that errored or have no verdict on either
// side, the change is one only when it holds whatever those runs would
// have been (every one passed, every one failed); otherwise the task is
// errored (or no_verdict).
func compareTrials(id string, ra, rb []*Run, j Judging) TaskDiff {
	td := TaskDiff{Task: id}
	var ca, cb Counts
	for _, r := range ra {
		ca.add(j.judge(r))
	}
	for _, r := range rb {
		cb.add(j.judge(r))
	}
	if len(ra) > 0 {
		td.RateA = &TaskRate{Counts: ca, Rate: ca.rate()}
	}
	if len(rb) > 0 {
		td.RateB = &TaskRate{Counts: cb, Rate: cb.rate()}
	}
	switch {
	case len(rb) == 0:
		td.Change = OnlyA
		return td
	case len(ra) == 0:
		td.Change = OnlyB
		return td
	}
	switch {
	case below(cb, ca):
		td.Change = Regressed
	case below(ca, cb):
		td.Change = Improved
	case ca.Errored+cb.Errored > 0:
		td.Change = Errored
	case ca.NoVerdict+cb.NoVerdict > 0:
		td.Change = NoVerdict
	default:
		td.Change = Same // no unknown run, and neither rate above the other
	}
	td.scoreA, td.scoreB = meanScore(ra), meanScore(rb)
	pa, pb, chosen := represent(td.Change, ra, rb, j)
	td.Pair = &Pair{A: brief(pa, j), B: brief(pb, j), Chosen: chosen}
	td.ha, td.hb = pa.Pack, pb.Pack
	return td
}

// below reports whether x's pass rate is below y's whatever their
// unknown runs (errored, unjudged) would have been: x's highest rate
// (every unknown run passed) under y's lowest (every one failed),
// compared as fractions, exactly.
func below(x, y Counts) bool {
	unknown := x.Errored + x.NoVerdict
	return (x.Passed+unknown)*y.Runs < y.Passed*x.Runs
}

// represent chooses the pair whose drift stands for a task compared by
// trials: for a regression a's first passed run and b's first failed
// run, for an improvement the other way round; otherwise the first epoch
// both ran, else the first run of each.
func represent(change string, ra, rb []*Run, j Judging) (*Run, *Run, string) {
	first := func(rs []*Run, v judgement) *Run {
		for _, r := range rs {
			if j.judge(r) == v {
				return r
			}
		}
		return nil
	}
	switch change {
	case Regressed:
		if a, b := first(ra, judgedPassed), first(rb, judgedFailed); a != nil && b != nil {
			return a, b, pairPassedFailed
		}
	case Improved:
		if a, b := first(ra, judgedFailed), first(rb, judgedPassed); a != nil && b != nil {
			return a, b, pairFailedPassed
		}
	}
	for _, a := range ra {
		for _, b := range rb {
			if a.Epoch == b.Epoch {
				return a, b, pairSameEpoch
			}
		}
	}
	return ra[0], rb[0], pairFirst
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
// time, and counts the reasoning drifts at A's tool calls (a tool's
// result changed, not a model's answer).
func drift(st *store.Store, ha, hb store.Hash, opts diff.Options) (*diff.Report, int, error) {
	if ha == hb {
		return &diff.Report{}, 0, nil
	}
	ma, na, err := pack.Head(st, ha, nil)
	if err != nil {
		return nil, 0, err
	}
	mb, nb, err := pack.Head(st, hb, nil)
	if err != nil {
		return nil, 0, err
	}
	calls := make([]bool, na) // which of A's steps are tool calls
	sa := pack.StoredSteps(st, ha, na)
	open := sa.Open
	sa.Open = func() pack.StepIter { return &typeIter{StepIter: open(), calls: calls} }
	r, err := diff.CompareSteps(ma, mb, sa, pack.StoredSteps(st, hb, nb), opts)
	if err != nil {
		return nil, 0, err
	}
	tools := 0
	for _, e := range r.Drift {
		if e.Type == diff.ReasoningDrift && e.Step != nil && *e.Step < len(calls) && calls[*e.Step] {
			tools++
		}
	}
	return r, tools, nil
}

// typeIter notes, as the engine reads A's steps, which are tool calls.
type typeIter struct {
	pack.StepIter
	calls []bool
	i     int
}

func (it *typeIter) Next() (*pack.Step, error) {
	s, err := it.StepIter.Next()
	if s != nil {
		if it.i < len(it.calls) {
			it.calls[it.i] = s.Type != "model_call"
		}
		it.i++
	}
	return s, err
}

// summarize counts the tasks by change and computes the figures and the
// test of the way they were compared.
func summarize(rep *DiffReport, trials bool) DiffSummary {
	s := DiffSummary{Compared: ComparedRuns, Test: TestMcNemar}
	if trials {
		s.Compared, s.Test = ComparedTrials, TestSign
	}
	s.PassRateA, s.PassRateB = rep.A.rate(), rep.B.rate()
	var scoreDeltas, rateDeltas []float64
	discA, discB := 0, 0
	for _, t := range rep.Tasks {
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
		case Errored:
			s.Errored++
		case NoVerdict:
			s.NoVerdict++
		default:
			s.Unchanged++
		}
		s.Paired++
		if t.Change == Errored || t.Change == NoVerdict {
			continue
		}
		if trials {
			if t.scoreA != nil && t.scoreB != nil {
				scoreDeltas = append(scoreDeltas, *t.scoreB-*t.scoreA)
			}
			rateDeltas = append(rateDeltas, *t.RateB.Rate-*t.RateA.Rate)
			continue
		}
		if x, ok := number(t.A.Score); ok {
			if y, ok := number(t.B.Score); ok {
				scoreDeltas = append(scoreDeltas, y-x)
			}
		}
		if t.A.Passed != nil && t.B.Passed != nil {
			rateDeltas = append(rateDeltas, rateOf(*t.B.Passed)-rateOf(*t.A.Passed))
			if *t.A.Passed != *t.B.Passed {
				if *t.A.Passed {
					discA++
				} else {
					discB++
				}
			}
		}
	}
	if len(scoreDeltas) > 0 {
		m, _, _, _ := MeanCI(scoreDeltas, 0.95)
		s.MeanScoreDelta = &m
	}
	if m, lo, hi, ok := MeanCI(rateDeltas, 0.95); len(rateDeltas) > 0 {
		s.MeanRateDelta = &m
		if ok {
			s.MeanRateDeltaCI = &[2]float64{lo, hi}
		}
	}
	if trials {
		p := SignTest(s.Regressed, s.Improved)
		s.SignTestP = &p
	} else {
		p := McNemarExact(discA, discB)
		s.McNemarP = &p
	}
	return s
}

func rateOf(passed bool) float64 {
	if passed {
		return 1
	}
	return 0
}

// meanScore is the mean of the runs' numeric scores, nil when a run has
// none.
func meanScore(rs []*Run) *float64 {
	sum := 0.0
	for _, r := range rs {
		x, ok := number(r.Score())
		if !ok {
			return nil
		}
		sum += x
	}
	m := sum / float64(len(rs))
	return &m
}

// Fails reports whether the diff is a finding under --fail-on: regressed
// (any task regressed), changed (any task regressed, improved, or is on
// one side only) or never. Errored and unjudged tasks are never a
// finding.
func (r *DiffReport) Fails(failOn string) bool {
	switch failOn {
	case "never":
		return false
	case "changed":
		return r.Summary.Regressed+r.Summary.Improved+r.Summary.OnlyA+r.Summary.OnlyB > 0
	}
	return r.Summary.Regressed > 0
}
