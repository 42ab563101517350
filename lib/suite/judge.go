package suite

import (
	"strconv"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// Judging says how runs are counted: ErrorsAsFailures counts an errored
// run (no verdict because the harness or the agent failed) as a failure,
// as a harness's own accuracy does; otherwise errored runs are counted
// apart and compared with nothing.
type Judging struct {
	ErrorsAsFailures bool
}

// judgement is how a run counts: passed, failed, errored (no verdict, and
// it ended in an error), or none (nothing judged it).
type judgement int

const (
	judgedNone judgement = iota
	judgedPassed
	judgedFailed
	judgedErrored
)

// judge is how run r counts under j.
func (j Judging) judge(r *Run) judgement {
	if p := r.Passed(); p != nil {
		if *p {
			return judgedPassed
		}
		return judgedFailed
	}
	if r.End != nil && r.End.State == "error" {
		if j.ErrorsAsFailures {
			return judgedFailed
		}
		return judgedErrored
	}
	return judgedNone
}

// word is the judgement's word (pack's verdict words).
func (v judgement) word() string {
	switch v {
	case judgedPassed:
		return pack.VerdictPassed
	case judgedFailed:
		return pack.VerdictFailed
	case judgedErrored:
		return pack.VerdictErrored
	}
	return pack.VerdictNone
}

// passed is the verdict as JSON reports it: true, false, or nil for an
// errored run or one without a verdict.
func (v judgement) passed() *bool {
	switch v {
	case judgedPassed, judgedFailed:
		p := v == judgedPassed
		return &p
	}
	return nil
}

// errorWords is what an errored run's end says of its error ("error"
// when it says nothing), "" for any other run; an errored run counted as
// a failure keeps its words.
func errorWords(r *Run) string {
	if r.Passed() != nil || r.End == nil || r.End.State != "error" {
		return ""
	}
	if r.End.Message != "" {
		return r.End.Message
	}
	return "error"
}

// Counts are the runs of a suite (or of one task) by judgement.
type Counts struct {
	Runs      int `json:"runs"`
	Passed    int `json:"passed"`
	Failed    int `json:"failed"`
	Errored   int `json:"errored"`
	NoVerdict int `json:"no_verdict"`
}

// add counts one run.
func (c *Counts) add(v judgement) {
	c.Runs++
	switch v {
	case judgedPassed:
		c.Passed++
	case judgedFailed:
		c.Failed++
	case judgedErrored:
		c.Errored++
	default:
		c.NoVerdict++
	}
}

// judged is how many runs have a verdict.
func (c Counts) judged() int { return c.Passed + c.Failed }

// rate is the pass rate over the runs with a verdict, nil when none has.
func (c Counts) rate() *float64 { return rate(c.Passed, c.judged()) }

func rate(passed, runs int) *float64 {
	if runs == 0 {
		return nil
	}
	r := float64(passed) / float64(runs)
	return &r
}

// count counts runs under j.
func (j Judging) count(runs []Run) Counts {
	var c Counts
	for i := range runs {
		c.add(j.judge(&runs[i]))
	}
	return c
}

// Sentence is the counts as people read them: "6 passed, 3 failed, 1
// errored, 2 without a verdict", leaving out the zero ones but passed;
// "no verdict" when no run has one, so runs nothing judged never read as
// "0 passed".
func (c Counts) Sentence() string {
	if c.judged() == 0 && c.Errored == 0 {
		return pack.VerdictNone
	}
	s := strconv.Itoa(c.Passed) + " passed"
	if c.Failed > 0 {
		s += ", " + strconv.Itoa(c.Failed) + " failed"
	}
	if c.Errored > 0 {
		s += ", " + strconv.Itoa(c.Errored) + " errored"
	}
	if c.NoVerdict > 0 {
		s += ", " + strconv.Itoa(c.NoVerdict) + " without a verdict"
	}
	return s
}
