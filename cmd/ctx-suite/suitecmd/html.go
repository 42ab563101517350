package suitecmd

import (
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/diff"
	"github.com/contextsubstrate/ctx/lib/htmlview"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/suite"
)

// maxLanes is how many pairs a suite page shows step by step, changes
// first: enough for a review, bounded so the page opens quickly; every
// other task is a row that names its two packs.
const maxLanes = 40

// storeBlobs reads contents from the store for the page.
type storeBlobs struct{ st *store.Store }

func (b storeBlobs) Open(h store.Hash) (io.ReadCloser, error) { return b.st.Open(h) }

// writeHTML writes the suite diff page: every task, changes first, the
// first maxLanes that changed or drifted opening onto their two runs'
// steps side by side (the look of ctx diff --html).
func writeHTML(st *store.Store, file string, stdout io.Writer, a, b *suite.Named, rep *suite.DiffReport, align string) error {
	s := rep.Summary
	page := htmlview.SuiteDiff{
		A:     htmlview.SuiteSide{Name: a.Name, Suite: a.Hash.URI(), Passed: fmt.Sprintf("%d of %d runs", rep.A.Passed, rep.A.Runs)},
		B:     htmlview.SuiteSide{Name: b.Name, Suite: b.Hash.URI(), Passed: fmt.Sprintf("%d of %d runs", rep.B.Passed, rep.B.Runs)},
		Align: align, Blobs: storeBlobs{st},
		Summary: fmt.Sprintf("%d paired: %d regressed, %d improved, %d unchanged; %d only in A, %d only in B; McNemar p = %.4g",
			s.Paired, s.Regressed, s.Improved, s.Unchanged, s.OnlyA, s.OnlyB, s.McNemarP),
	}
	lanes := 0
	for _, t := range rep.ByChange() {
		pt := htmlview.SuiteTask{Change: t.Change, Task: t.Task, Epoch: t.Epoch, A: suite.BriefText(t.A), B: suite.BriefText(t.B),
			Drift: suite.DriftText(t.Drift), First: suite.FirstText(t.Drift)}
		switch {
		case t.A == nil:
			pt.Note = "only in suite B: " + t.B.Pack
		case t.B == nil:
			pt.Note = "only in suite A: " + t.A.Pack
		case t.Drift != nil && t.Drift.Counts.Total == 0:
			pt.Note = "the two runs' steps are the same: " + t.A.Pack + " and " + t.B.Pack
		case lanes >= maxLanes:
			pt.Note = fmt.Sprintf("not drawn on this page (it draws the first %d): ctx diff --html %s %s", maxLanes, t.A.Pack, t.B.Pack)
		default:
			d, err := pairDiff(st, t.A.Pack, t.B.Pack, align)
			if err != nil {
				return cli.Wrap(cli.ExitTrouble, fmt.Errorf("task %s epoch %d: %w", t.Task, t.Epoch, err))
			}
			pt.Pair = d
			lanes++
		}
		page.Tasks = append(page.Tasks, pt)
	}
	return cli.WriteOutput(file, stdout, func(w io.Writer) error { return htmlview.WriteSuiteDiff(w, page) })
}

// pairDiff loads two packs whole and compares them, for the page's lanes.
func pairDiff(st *store.Store, a, b, align string) (*htmlview.Diff, error) {
	ma, err := pack.Resolve(st, a)
	if err != nil {
		return nil, err
	}
	mb, err := pack.Resolve(st, b)
	if err != nil {
		return nil, err
	}
	r, err := diff.Compare(ma, mb, diff.Options{Align: align})
	if err != nil {
		return nil, err
	}
	return &htmlview.Diff{A: htmlview.Side{Label: "A", Manifest: ma}, B: htmlview.Side{Label: "B", Manifest: mb}, Report: r, Align: align}, nil
}
