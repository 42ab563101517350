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
	side := func(x SideSummary, rate *float64) htmlview.SuiteSide {
		return htmlview.SuiteSide{Name: x.Name, Suite: x.Suite, Passed: SideText(x, rate)}
	}
	page := htmlview.SuiteDiff{A: side(rep.A, s.PassRateA), B: side(rep.B, s.PassRateB), Align: align, Store: st, Summary: SummaryText(s)}
	for _, i := range rep.byChange() {
		t := &rep.Tasks[i]
		pt := htmlview.SuiteTask{Change: t.Change, Task: t.Task, Where: fmt.Sprintf("epoch %d", t.Epoch), A: BriefText(t.A), B: BriefText(t.B),
			Drift: DriftText(t.Drift), First: FirstText(t.Drift)}
		a, b := t.A, t.B
		if rep.Trials() {
			pt.A, pt.B, pt.Where = RateText(t.RateA), RateText(t.RateB), "pass rate"
			if t.Pair != nil {
				a, b = t.Pair.A, t.Pair.B
				pt.Where = fmt.Sprintf("pass rate; steps of epochs %d and %d (%s)", a.Epoch, b.Epoch, t.Pair.Chosen)
			}
		}
		switch {
		case t.Change == OnlyB:
			pt.Note = "only in suite B"
			if b != nil {
				pt.Note += ": " + b.Pack
			}
		case t.Change == OnlyA:
			pt.Note = "only in suite A"
			if a != nil {
				pt.Note += ": " + a.Pack
			}
		case t.Drift != nil && t.Drift.Counts.Total == 0:
			pt.Note = "the two runs' steps are the same: " + a.Pack + " and " + b.Pack
		case t.report == nil:
			pt.Note = fmt.Sprintf("not drawn on this page (it draws the first %d): ctx diff --html %s %s", PageLanes, a.Pack, b.Pack)
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
