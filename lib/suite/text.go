package suite

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/text"
)

// WriteShowHuman prints a suite as a table, a run a line, and its totals.
func WriteShowHuman(w io.Writer, r ShowReport) error {
	fmt.Fprintf(w, "suite %s  %s\n", r.Name, r.Suite)
	fmt.Fprintf(w, "%s, %s, %d passed\n\n", text.Plural(r.Totals.Tasks, "task"), text.Plural(r.Runs, "run"), r.Passed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tEPOCH\tPASSED\tSCORE\tSTEPS\tTOOLS\tTOKENS\tCOST\tTIME\tEND\tPACK")
	for _, t := range r.Tasks {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", text.Clip(t.Task, 48), t.Epoch, dash(pack.Verdict(t.Passed)),
			scoreText(t.Score), t.Steps, t.ToolCalls, intText(t.Tokens), costText(t.CostUSD), secondsText(t.Duration), dash(t.End), shortPack(t.Pack))
	}
	tt := r.Totals
	fmt.Fprintf(tw, "total\t\t%d/%d\t\t%d\t%d\t%s\t%s\t%s\t\t\n", r.Passed, r.Runs, tt.Steps, tt.ToolCalls, intText(tt.Tokens), costText(tt.CostUSD), secondsText(tt.Duration))
	return tw.Flush()
}

// changeOrder puts regressions first, then improvements, tasks of one side
// only, and the unchanged.
func changeOrder(c string) int {
	switch c {
	case Regressed:
		return 0
	case Improved:
		return 1
	case OnlyA:
		return 2
	case OnlyB:
		return 3
	}
	return 4
}

// ByChange returns the tasks of r, regressions first (then
// improvements, one side's only, the unchanged), each group in task order.
func (r *DiffReport) ByChange() []TaskDiff {
	out := make([]TaskDiff, 0, len(r.Tasks))
	for _, i := range r.byChange() {
		out = append(out, r.Tasks[i])
	}
	return out
}

// byChange is the order of ByChange, as indices of r.Tasks.
func (r *DiffReport) byChange() []int {
	out := make([]int, 0, len(r.Tasks))
	for g := 0; g <= 4; g++ {
		for i, t := range r.Tasks {
			if changeOrder(t.Change) == g {
				out = append(out, i)
			}
		}
	}
	return out
}

// WriteDiffHuman prints a suite diff: the summary, then a table of the
// tasks, regressions first.
func WriteDiffHuman(w io.Writer, r *DiffReport, paint func(code, s string) string) error {
	s := r.Summary
	fmt.Fprintf(w, "a: %s  %s  %d/%d passed (%s)\n", r.A.Name, r.A.Suite, r.A.Passed, r.A.Runs, percent(s.PassRateA))
	fmt.Fprintf(w, "b: %s  %s  %d/%d passed (%s)\n", r.B.Name, r.B.Suite, r.B.Passed, r.B.Runs, percent(s.PassRateB))
	fmt.Fprintf(w, "%d paired: %d regressed, %d improved, %d unchanged; %d only in a, %d only in b; McNemar p = %s",
		s.Paired, s.Regressed, s.Improved, s.Unchanged, s.OnlyA, s.OnlyB, pText(s.McNemarP))
	if s.MeanScoreDelta != nil {
		fmt.Fprintf(w, "; mean score delta %+.4g", *s.MeanScoreDelta)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CHANGE\tTASK\tEPOCH\tA\tB\tDRIFT\tFIRST")
	for _, t := range r.ByChange() {
		change := t.Change
		switch change {
		case Regressed:
			change = paint("31", change)
		case Improved:
			change = paint("32", change)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", change, text.Clip(t.Task, 48), t.Epoch, BriefText(t.A), BriefText(t.B), DriftText(t.Drift), FirstText(t.Drift))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Repeated) > 0 {
		fmt.Fprintln(w)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "TASK\tA PASSED\tB PASSED")
		for _, t := range s.Repeated {
			fmt.Fprintf(tw, "%s\t%d/%d\t%d/%d\n", text.Clip(t.Task, 48), t.A.Passed, t.A.Runs, t.B.Passed, t.B.Runs)
		}
		return tw.Flush()
	}
	return nil
}

// WriteDiffMarkdown prints a suite diff for a CI job summary or a pull
// request comment: a summary table, then the tasks that changed.
func WriteDiffMarkdown(w io.Writer, r *DiffReport) error {
	s := r.Summary
	fmt.Fprintf(w, "### ctx suite diff: %s → %s\n\n", mdCell(r.A.Name), mdCell(r.B.Name))
	fmt.Fprintln(w, "| | a | b |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| suite | %s | %s |\n", mdCell(r.A.Name), mdCell(r.B.Name))
	fmt.Fprintf(w, "| passed | %d/%d (%s) | %d/%d (%s) |\n\n", r.A.Passed, r.A.Runs, percent(s.PassRateA), r.B.Passed, r.B.Runs, percent(s.PassRateB))
	fmt.Fprintln(w, "| paired | regressed | improved | unchanged | only a | only b | McNemar p | mean score Δ |")
	fmt.Fprintln(w, "|---:|---:|---:|---:|---:|---:|---:|---:|")
	delta := "–"
	if s.MeanScoreDelta != nil {
		delta = fmt.Sprintf("%+.4g", *s.MeanScoreDelta)
	}
	fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %d | %s | %s |\n", s.Paired, s.Regressed, s.Improved, s.Unchanged, s.OnlyA, s.OnlyB, pText(s.McNemarP), delta)
	var changed []TaskDiff
	for _, t := range r.ByChange() {
		if t.Change != Same {
			changed = append(changed, t)
		}
	}
	if len(changed) == 0 {
		_, err := fmt.Fprintln(w, "\nNo task changed.")
		return err
	}
	fmt.Fprintln(w, "\n| change | task | epoch | a | b | drift | first divergence |")
	fmt.Fprintln(w, "|---|---|---:|---|---|---|---:|")
	for _, t := range changed {
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s |\n", t.Change, mdCell(t.Task), t.Epoch, mdCell(BriefText(t.A)), mdCell(BriefText(t.B)), DriftText(t.Drift), FirstText(t.Drift))
	}
	return nil
}

// mdCell makes a value safe in a Markdown table cell.
func mdCell(s string) string {
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
	return text.Clip(s, 80)
}

// BriefText is one side of a task, as the tables show it: its verdict
// (pack.Verdict) and score, "–" when the task has no run there.
func BriefText(b *RunBrief) string {
	if b == nil {
		return "–"
	}
	v, sc := pack.Verdict(b.Passed), scoreText(b.Score)
	switch {
	case sc == "-":
		return dash(v)
	case v == "" || v == sc:
		return sc
	}
	return v + " " + sc
}

func scoreText(raw []byte) string {
	if len(raw) == 0 || string(raw) == "null" {
		return "-"
	}
	if raw[0] == '"' {
		if s, err := strconv.Unquote(string(raw)); err == nil {
			return text.Clip(s, 16)
		}
	}
	return string(raw)
}

// DriftText counts a pair's drift by type, in report order (diff.Types),
// "none" when there is none.
func DriftText(d *Drift) string {
	if d == nil {
		return "–"
	}
	if d.Counts.Total == 0 {
		return "none"
	}
	var parts []string
	for _, c := range d.Counts.Counts() {
		parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Short))
	}
	return strings.Join(parts, ", ")
}

// FirstText is the first step where a pair drifts, "–" when none does.
func FirstText(d *Drift) string {
	if d == nil || d.FirstDivergence == nil {
		return "–"
	}
	return fmt.Sprintf("step %d", *d.FirstDivergence)
}

func percent(r *float64) string {
	if r == nil {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100**r)
}

func pText(p float64) string { return strconv.FormatFloat(p, 'g', 4, 64) }

func intText(n *int64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatInt(*n, 10)
}

func costText(c *float64) string {
	if c == nil {
		return "-"
	}
	return fmt.Sprintf("$%.4f", *c)
}

func secondsText(d *float64) string {
	if d == nil {
		return "-"
	}
	return fmt.Sprintf("%.0fs", *d)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func shortPack(p string) string {
	p = strings.TrimPrefix(p, "sha256:")
	return p[:min(12, len(p))]
}
