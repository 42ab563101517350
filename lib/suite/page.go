package suite

import (
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/htmlview"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// PageLanes is how many pairs a suite page shows step by step, changes
// first: enough for a review, bounded so the page opens quickly; every
// other task is a row that names its two packs. Diff keeps the reports
// of these pairs (DiffOptions.Keep), so the page compares nothing again.
const PageLanes = 40

// WriteDiffPage writes the HTML page of a suite diff (ctx suite diff
// --html): every task, changes first, the pairs whose reports rep kept
// opening onto their two runs' steps side by side (the look of ctx diff
// --html).
func WriteDiffPage(w io.Writer, st *store.Store, rep *DiffReport, align string) error {
	s := rep.Summary
	side := func(x SideSummary) htmlview.SuiteSide {
		return htmlview.SuiteSide{Name: x.Name, Suite: x.Suite, Passed: fmt.Sprintf("%d of %d runs", x.Passed, x.Runs)}
	}
	page := htmlview.SuiteDiff{A: side(rep.A), B: side(rep.B), Align: align, Store: st,
		Summary: fmt.Sprintf("%d paired: %d regressed, %d improved, %d unchanged; %d only in A, %d only in B; McNemar p = %.4g",
			s.Paired, s.Regressed, s.Improved, s.Unchanged, s.OnlyA, s.OnlyB, s.McNemarP),
	}
	for _, i := range rep.byChange() {
		t := &rep.Tasks[i]
		pt := htmlview.SuiteTask{Change: t.Change, Task: t.Task, Epoch: t.Epoch, A: BriefText(t.A), B: BriefText(t.B),
			Drift: DriftText(t.Drift), First: FirstText(t.Drift)}
		switch {
		case t.A == nil:
			pt.Note = "only in suite B: " + t.B.Pack
		case t.B == nil:
			pt.Note = "only in suite A: " + t.A.Pack
		case t.Drift != nil && t.Drift.Counts.Total == 0:
			pt.Note = "the two runs' steps are the same: " + t.A.Pack + " and " + t.B.Pack
		case t.report == nil:
			pt.Note = fmt.Sprintf("not drawn on this page (it draws the first %d): ctx diff --html %s %s", PageLanes, t.A.Pack, t.B.Pack)
		default:
			d, err := pagePair(st, t, align)
			if err != nil {
				return fmt.Errorf("task %s epoch %d: %w", t.Task, t.Epoch, err)
			}
			pt.Pair = d
		}
		page.Tasks = append(page.Tasks, pt)
	}
	return htmlview.WriteSuiteDiff(w, page)
}

// pagePair is a kept pair as the page draws it: its report, and its two
// manifests read whole for the lanes.
func pagePair(st *store.Store, t *TaskDiff, align string) (*htmlview.Diff, error) {
	ma, err := pack.Load(st, t.ha)
	if err != nil {
		return nil, err
	}
	mb, err := pack.Load(st, t.hb)
	if err != nil {
		return nil, err
	}
	return &htmlview.Diff{A: htmlview.Side{Label: "A", Manifest: ma}, B: htmlview.Side{Label: "B", Manifest: mb}, Report: t.report, Align: align}, nil
}
