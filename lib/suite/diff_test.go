package suite

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/diff"
)

// TestDiffKeepsThePairsAPageDraws adds two suites of five tasks and
// diffs them keeping two reports: the kept ones are the first pairs in
// ByChange order whose steps drift, and the page draws exactly those,
// from the reports Diff made (its counts are theirs), naming the others.
func TestDiffKeepsThePairsAPageDraws(t *testing.T) {
	st := storetest.New(t)
	logs := func(passed [5]bool, out [5]string) string {
		var b strings.Builder
		for i := range 5 {
			fmt.Fprintf(&b, `{"event":"run","model":{"identifier":"m"},"task":{"id":"t%d"},"outcome":{"passed":%v}}`+"\n", i+1, passed[i])
			fmt.Fprintf(&b, `{"event":"step","tool":"bash","parameters":{"command":"make"},"output":%q}`+"\n", out[i])
		}
		return b.String()
	}
	add := func(name, log string) *Named {
		s, _, err := Add(st, name, AddOptions{Sources: []string{"-"}, Stdin: strings.NewReader(log)})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// t1 same, t2 regressed with drift, t3 regressed without, t4 and t5
	// unchanged with drift.
	a := add("base", logs([5]bool{true, true, true, true, false}, [5]string{"1", "2", "3", "4", "5"}))
	b := add("cand", logs([5]bool{true, false, false, true, false}, [5]string{"1", "x", "3", "y", "z"}))
	rep, err := Diff(st, a, b, DiffOptions{Options: diff.Options{Align: diff.AlignIndex}, Keep: 2})
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, td := range rep.ByChange() {
		if td.report != nil {
			kept = append(kept, td.Task)
			if td.report.Summary != td.Drift.Counts || td.report.Alignment == nil {
				t.Errorf("%s: kept report %+v, counts %+v", td.Task, td.report.Summary, td.Drift.Counts)
			}
		}
	}
	if strings.Join(kept, " ") != "t2 t4" {
		t.Errorf("kept the reports of %v, want t2 t4", kept)
	}
	var page bytes.Buffer
	if err := WriteDiffPage(&page, st, rep, diff.AlignIndex); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{`id="task-0-step-0"`, `id="task-3-step-0"`, "not drawn on this page (it draws the first 40): ctx diff --html"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if strings.Contains(html, `id="task-4-step-0"`) {
		t.Error("the page draws a pair whose report was not kept")
	}
	// Without Keep, nothing is kept: JSON and tables need counts only.
	rep, err = Diff(st, a, b, DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, td := range rep.Tasks {
		if td.report != nil {
			t.Errorf("%s: a report kept without Keep", td.Task)
		}
	}
}
