package htmlview

import (
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/store"
)

// SuiteDiff is what a suite diff page shows: the two suites, the summary
// sentence, and the tasks in the order given (changes first), each with
// the two runs' steps side by side when Pair is set; contents are read
// from Store.
type SuiteDiff struct {
	A, B    SuiteSide
	Summary string
	Tasks   []SuiteTask
	Align   string
	Store   *store.Store
}

// SuiteSide is one suite of the page.
type SuiteSide struct {
	Name, Suite, Passed string
}

// SuiteTask is one task of the page. Pair, when set, is the
// diff of its two runs; Note says why a task has none.
type SuiteTask struct {
	Change, Task       string
	Where              string // "epoch 2", or how a task compared by pass rate was drawn
	A, B, Drift, First string
	Pair               *Diff
	Note               string
}

type suiteView struct {
	pageHead
	Sides   [2]suiteSideView
	Summary string
	Align   string
	Tasks   []suiteTaskView
	Counts  []suiteCount
}

type suiteSideView struct {
	Letter string
	SuiteSide
}

type suiteCount struct {
	Change string
	N      int
}

type suiteTaskView struct {
	SuiteTask
	ID    string
	Steps *stepsView
}

// WriteSuiteDiff writes the HTML page of a suite diff to w.
func WriteSuiteDiff(w io.Writer, d SuiteDiff) error {
	v := &suiteView{Summary: d.Summary, Align: d.Align}
	v.Sides[0] = suiteSideView{"A", d.A}
	v.Sides[1] = suiteSideView{"B", d.B}
	counts := map[string]int{}
	var order []string
	for i, t := range d.Tasks {
		tv := suiteTaskView{SuiteTask: t, ID: fmt.Sprintf("task-%d", i)}
		if counts[t.Change] == 0 {
			order = append(order, t.Change)
		}
		counts[t.Change]++
		if t.Pair != nil {
			p := *t.Pair
			if p.Blobs == nil && d.Store != nil {
				p.Blobs = storeBlobs{d.Store}
			}
			dv, err := buildDiff(p)
			if err != nil {
				return err
			}
			// The rows' anchors are the task's own on this page.
			for bi := range dv.Steps.Blocks {
				for ri := range dv.Steps.Blocks[bi].Rows {
					if r := &dv.Steps.Blocks[bi].Rows[ri]; r.ID != "" {
						r.ID = tv.ID + "-" + r.ID
					}
				}
			}
			tv.Steps = &dv.Steps
		}
		v.Tasks = append(v.Tasks, tv)
	}
	for _, c := range order {
		v.Counts = append(v.Counts, suiteCount{c, counts[c]})
	}
	title := fmt.Sprintf("ctx suite diff %s %s", d.A.Name, d.B.Name)
	return render(w, "suite", title, v, &v.pageHead)
}
