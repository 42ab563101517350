package suite

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/contextsubstrate/ctx/lib/diff"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/text"
)

// WriteShowHuman prints a suite as a table, a run a line, its totals and
// pass@k.
func WriteShowHuman(w io.Writer, r ShowReport) error {
	fmt.Fprintf(w, "suite %s  %s\n", r.Name, r.Suite)
	fmt.Fprintf(w, "%s, %s: %s\n", text.Plural(r.Totals.Tasks, "task"), text.Plural(r.Runs, "run"), r.Counts.Sentence())
	if len(r.PassAtK) > 0 {
		fmt.Fprintln(w, passAtKText(r))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tEPOCH\tVERDICT\tSCORE\tSTEPS\tTOOLS\tTOKENS\tCOST\tTIME\tEND\tPACK")
	for _, t := range r.Tasks {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\t%s\t%s\t%s\t%s\t%s\n", text.Clip(t.Task, 48), t.Epoch, verdictText(t.judged, t.Errored),
			scoreText(t.Score), t.Steps, t.ToolCalls, intText(t.Tokens), costText(t.CostUSD), secondsText(t.Duration), dash(t.End), shortPack(t.Pack))
	}
	tt := r.Totals
	fmt.Fprintf(tw, "total\t\t%d/%d\t\t%d\t%d\t%s\t%s\t%s\t\t\n", r.Passed, r.Runs, tt.Steps, tt.ToolCalls, intText(tt.Tokens), costText(tt.CostUSD), secondsText(tt.Duration))
	return tw.Flush()
}

// passAtKText is pass@k as a line of the table's head: "pass@1 0.7,
// pass@2 0.8167", and, when k stops short of the runs a task has, the
// task that stops it ("k up to 1: t6 has 1 run with a verdict").
func passAtKText(r ShowReport) string {
	parts := make([]string, len(r.PassAtK))
	for i, p := range r.PassAtK {
		parts[i] = fmt.Sprintf("pass@%d %s", i+1, strconv.FormatFloat(rounded(p), 'f', -1, 64))
	}
	line := strings.Join(parts, ", ")
	runs, judged := map[string]int{}, map[string]int{}
	most := 0
	for _, t := range r.Tasks {
		runs[t.Task]++
		most = max(most, runs[t.Task])
		if t.judged == judgedPassed || t.judged == judgedFailed {
			judged[t.Task]++
		}
	}
	if len(r.PassAtK) >= most {
		return line
	}
	for _, t := range r.Tasks { // the first task with the fewest
		if n := judged[t.Task]; n == len(r.PassAtK) {
			return fmt.Sprintf("%s (k up to %d: %s has %s with a verdict)", line, n, text.Clip(t.Task, 48), text.Plural(n, "run"))
		}
	}
	return line
}

// verdictText is a run's verdict in a table: passed, failed, errored
// (with what its end says), or "-" for no verdict.
func verdictText(v judgement, errored string) string {
	switch {
	case v == judgedNone:
		return "-"
	case errored != "" && errored != "error":
		return v.word() + " (" + text.Clip(errored, 32) + ")"
	}
	return v.word()
}

// changeOrder puts regressions first, then improvements, errored and
// unjudged tasks, tasks of one side only, and the unchanged.
func changeOrder(c string) int {
	switch c {
	case Regressed:
		return 0
	case Improved:
		return 1
	case Errored:
		return 2
	case NoVerdict:
		return 3
	case OnlyA:
		return 4
	case OnlyB:
		return 5
	}
	return 6
}

// ByChange returns the tasks of r, regressions first (then
// improvements, errored and unjudged tasks, one side's only, the
// unchanged), each group in task order.
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
	for g := 0; g <= 6; g++ {
		for i, t := range r.Tasks {
			if changeOrder(t.Change) == g {
				out = append(out, i)
			}
		}
	}
	return out
}

// Trials reports whether the diff compared tasks by pass rate.
func (r *DiffReport) Trials() bool { return r.Summary.Compared == ComparedTrials }

// SideText is one suite's line: how many of its runs passed and its pass
// rate, over the same runs, those with a verdict ("16/30 passed
// (53.3%)"); when some have none, "16/25 judged passed (64.0%); 30 runs,
// 5 errored", the runs that errored or have no verdict said apart; "no
// verdict" when no run has one.
func SideText(x SideSummary, rate *float64) string {
	if x.judged() == 0 && x.Errored == 0 {
		return fmt.Sprintf("%s, %s", text.Plural(x.Runs, "run"), pack.VerdictNone)
	}
	if x.judged() == x.Runs {
		return fmt.Sprintf("%d/%d passed (%s)", x.Passed, x.Runs, percent(rate))
	}
	s := fmt.Sprintf("%d/%d judged passed (%s); %s", x.Passed, x.judged(), percent(rate), text.Plural(x.Runs, "run"))
	if x.Errored > 0 {
		s += fmt.Sprintf(", %d errored", x.Errored)
	}
	if x.NoVerdict > 0 {
		s += fmt.Sprintf(", %d without a verdict", x.NoVerdict)
	}
	return s
}

// SummaryText is the summary as one sentence: the tasks by change, the
// test and its p-value, the mean score delta and, compared by trials,
// the mean rate delta with its confidence interval.
func SummaryText(s DiffSummary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d paired", s.Paired)
	if s.Compared == ComparedTrials {
		b.WriteString(" by pass rate")
	}
	fmt.Fprintf(&b, ": %d regressed, %d improved, %d unchanged", s.Regressed, s.Improved, s.Unchanged)
	if s.Errored > 0 {
		fmt.Fprintf(&b, ", %d errored", s.Errored)
	}
	if s.NoVerdict > 0 {
		fmt.Fprintf(&b, ", %d without a verdict", s.NoVerdict)
	}
	fmt.Fprintf(&b, "; %d only in a, %d only in b; %s p = %s", s.OnlyA, s.OnlyB, testName(s.Test), pText(s.P()))
	if s.MeanScoreDelta != nil {
		fmt.Fprintf(&b, "; mean score delta %+.4g", *s.MeanScoreDelta)
	}
	if s.Compared == ComparedTrials {
		b.WriteString("; mean rate delta " + rateDeltaText(s))
	}
	return b.String()
}

func testName(t string) string {
	if t == TestSign {
		return "sign test"
	}
	return "McNemar"
}

// rateDeltaText is the mean rate delta and its 95% interval.
func rateDeltaText(s DiffSummary) string {
	if s.MeanRateDelta == nil {
		return "–"
	}
	t := fmt.Sprintf("%+.3g", *s.MeanRateDelta)
	if ci := s.MeanRateDeltaCI; ci != nil {
		t += fmt.Sprintf(" (95%% CI %+.3g to %+.3g)", ci[0], ci[1])
	}
	return t
}

// WriteDiffHuman prints a suite diff: the summary, then a table of the
// tasks, regressions first.
func WriteDiffHuman(w io.Writer, r *DiffReport, paint func(code, s string) string) error {
	s := r.Summary
	fmt.Fprintf(w, "a: %s  %s  %s\n", r.A.Name, r.A.Suite, SideText(r.A, s.PassRateA))
	fmt.Fprintf(w, "b: %s  %s  %s\n", r.B.Name, r.B.Suite, SideText(r.B, s.PassRateB))
	fmt.Fprintln(w, SummaryText(s))
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	if r.Trials() {
		fmt.Fprintln(tw, "CHANGE\tTASK\tA\tB\tPAIR\tDRIFT\tFIRST")
	} else {
		fmt.Fprintln(tw, "CHANGE\tTASK\tEPOCH\tA\tB\tDRIFT\tFIRST")
	}
	for _, t := range r.ByChange() {
		change := t.Change
		switch change {
		case Regressed:
			change = paint("31", change)
		case Improved:
			change = paint("32", change)
		case Errored:
			change = paint("33", change)
		}
		if r.Trials() {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", change, text.Clip(t.Task, 48), RateText(t.RateA), RateText(t.RateB), PairText(t.Pair), DriftText(t.Drift), FirstText(t.Drift))
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", change, text.Clip(t.Task, 48), t.Epoch, BriefText(t.A), BriefText(t.B), DriftText(t.Drift), FirstText(t.Drift))
	}
	return tw.Flush()
}

// WriteDiffMarkdown prints a suite diff for a CI job summary or a pull
// request comment: a summary table, then the tasks that changed.
func WriteDiffMarkdown(w io.Writer, r *DiffReport) error {
	s := r.Summary
	fmt.Fprintf(w, "### ctx suite diff: %s → %s\n\n", mdCell(r.A.Name), mdCell(r.B.Name))
	fmt.Fprintln(w, "| | a | b |")
	fmt.Fprintln(w, "|---|---|---|")
	fmt.Fprintf(w, "| suite | %s | %s |\n", mdCell(r.A.Name), mdCell(r.B.Name))
	fmt.Fprintf(w, "| runs | %s | %s |\n\n", SideText(r.A, s.PassRateA), SideText(r.B, s.PassRateB))
	cols := []string{"paired", "regressed", "improved", "unchanged"}
	vals := []string{strconv.Itoa(s.Paired), strconv.Itoa(s.Regressed), strconv.Itoa(s.Improved), strconv.Itoa(s.Unchanged)}
	if s.Errored > 0 {
		cols, vals = append(cols, "errored"), append(vals, strconv.Itoa(s.Errored))
	}
	if s.NoVerdict > 0 {
		cols, vals = append(cols, "no verdict"), append(vals, strconv.Itoa(s.NoVerdict))
	}
	delta := "–"
	if s.MeanScoreDelta != nil {
		delta = fmt.Sprintf("%+.4g", *s.MeanScoreDelta)
	}
	cols = append(cols, "only a", "only b", testName(s.Test)+" p", "mean score Δ")
	vals = append(vals, strconv.Itoa(s.OnlyA), strconv.Itoa(s.OnlyB), pText(s.P()), delta)
	if r.Trials() {
		cols, vals = append(cols, "mean rate Δ"), append(vals, rateDeltaText(s))
	}
	fmt.Fprintf(w, "| %s |\n|%s\n| %s |\n", strings.Join(cols, " | "), strings.Repeat("---:|", len(cols)), strings.Join(vals, " | "))
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
	if r.Trials() {
		fmt.Fprintln(w, "\n| change | task | a | b | pair | drift | first divergence |")
		fmt.Fprintln(w, "|---|---|---|---|---|---|---:|")
		for _, t := range changed {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n", t.Change, mdCell(t.Task), RateText(t.RateA), RateText(t.RateB), PairText(t.Pair), DriftText(t.Drift), FirstText(t.Drift))
		}
		return nil
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
// (errored, or "no verdict") and score, "–" when the task has no run
// there.
func BriefText(b *RunBrief) string {
	if b == nil {
		return "–"
	}
	v, sc := b.judged.word(), scoreText(b.Score)
	switch {
	case sc == "-":
		return v
	case b.judged == judgedNone || v == sc:
		return sc
	}
	return v + " " + sc
}

// RateText is one side of a task compared by trials: passed over the
// runs with a verdict, and the runs that errored or have none; "–" when
// the task has no run there.
func RateText(r *TaskRate) string {
	if r == nil {
		return "–"
	}
	s := fmt.Sprintf("%d/%d", r.Passed, r.judged())
	if r.Errored > 0 {
		s += fmt.Sprintf(" +%d errored", r.Errored)
	}
	if r.NoVerdict > 0 {
		s += fmt.Sprintf(" +%d no verdict", r.NoVerdict)
	}
	return s
}

// PairText names the epochs of a representative pair, "–" for none.
func PairText(p *Pair) string {
	if p == nil {
		return "–"
	}
	return fmt.Sprintf("e%d vs e%d", p.A.Epoch, p.B.Epoch)
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
		n := c.N
		if c.Type == diff.ReasoningDrift {
			// A tool's result that changed (a test run) is not a model's
			// reasoning: said apart.
			n -= d.ToolResults
			if d.ToolResults > 0 {
				parts = append(parts, text.Plural(d.ToolResults, "tool result"))
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, c.Short))
		}
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
