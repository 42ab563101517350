package suite

import (
	"encoding/xml"
	"fmt"
	"io"
)

// The JUnit XML of ctx suite diff --junit, in the shape CI systems read
// (Jenkins, GitLab, GitHub's test reporters): one testsuite, one
// testcase per task, a failure per regression, an error per errored
// task, skipped for tasks not compared (one side only, no verdict).

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure"`
	Error     *junitProblem `xml:"error"`
	Skipped   *junitProblem `xml:"skipped"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitProblem struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteDiffJUnit writes the diff as JUnit XML: a testcase per task, named
// by its task (classname: suite B's name), in ByChange order; a
// regression is a failure, an errored task an error, a task of one side
// only or without a verdict is skipped; each says its two sides, its
// drift and the ctx diff that shows it. The properties carry both suites
// and the summary's figures.
func WriteDiffJUnit(w io.Writer, r *DiffReport) error {
	s := r.Summary
	ts := junitSuite{Name: fmt.Sprintf("ctx suite diff %s %s", r.A.Name, r.B.Name)}
	ts.Properties = []junitProperty{
		{"a", r.A.Name + " " + r.A.Suite}, {"b", r.B.Name + " " + r.B.Suite},
		{"a_runs", SideText(r.A, s.PassRateA)}, {"b_runs", SideText(r.B, s.PassRateB)},
		{"compared", s.Compared}, {"summary", SummaryText(s)}, {s.Test + "_p", pText(s.P())},
	}
	for _, t := range r.ByChange() {
		c := junitCase{Name: t.Task, Classname: r.B.Name}
		a, b := sidesText(r, t)
		msg := fmt.Sprintf("%s: %s in %s, %s in %s", t.Change, a, r.A.Name, b, r.B.Name)
		detail := "drift: " + DriftText(t.Drift)
		if f := FirstText(t.Drift); f != "–" {
			detail += "; first divergence " + f
		}
		if pa, pb := pairOf(r, t); pa != nil && pb != nil {
			detail += "\nctx diff " + pa.Pack + " " + pb.Pack
			if t.Pair != nil {
				detail += fmt.Sprintf("\nthe pair: epoch %d of %s, epoch %d of %s (%s)", pa.Epoch, r.A.Name, pb.Epoch, r.B.Name, t.Pair.Chosen)
			}
		}
		switch t.Change {
		case Regressed:
			c.Failure = &junitProblem{Type: t.Change, Message: msg, Text: detail}
			ts.Failures++
		case Errored:
			c.Error = &junitProblem{Type: t.Change, Message: msg, Text: detail}
			ts.Errors++
		case OnlyA, OnlyB, NoVerdict:
			c.Skipped = &junitProblem{Message: msg}
			ts.Skipped++
		default:
			c.SystemOut = msg + "\n" + detail
		}
		ts.Cases = append(ts.Cases, c)
	}
	ts.Tests = len(ts.Cases)
	doc := junitSuites{Name: ts.Name, Tests: ts.Tests, Failures: ts.Failures, Errors: ts.Errors, Skipped: ts.Skipped, Suites: []junitSuite{ts}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// sidesText is each side of a task as a message says it.
func sidesText(r *DiffReport, t TaskDiff) (string, string) {
	if r.Trials() {
		return rateWords(t.RateA), rateWords(t.RateB)
	}
	word := func(b *RunBrief) string {
		if b == nil {
			return "no run"
		}
		return BriefText(b)
	}
	return word(t.A), word(t.B)
}

func rateWords(x *TaskRate) string {
	if x == nil {
		return "no run"
	}
	s := fmt.Sprintf("%d of %d passed", x.Passed, x.judged())
	if x.Rate != nil {
		s += fmt.Sprintf(" (%s)", percent(x.Rate))
	}
	if x.Errored > 0 {
		s += fmt.Sprintf(", %d errored", x.Errored)
	}
	if x.NoVerdict > 0 {
		s += fmt.Sprintf(", %d without a verdict", x.NoVerdict)
	}
	return s
}

// pairOf is the two runs whose drift a task gives.
func pairOf(r *DiffReport, t TaskDiff) (*RunBrief, *RunBrief) {
	if t.Pair != nil {
		return t.Pair.A, t.Pair.B
	}
	return t.A, t.B
}
