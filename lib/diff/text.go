package diff

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Blobs opens the content of a blob, so --human can show the first line
// where two texts differ. Open returns an error when the content is not
// available; the line is then left out.
type Blobs interface {
	Open(h store.Hash) (io.ReadCloser, error)
}

// The colour of a section's title in the human report (an SGR parameter
// for text.Paint); text.LineDiff colours the lines of a changed text.
const colorHeader = "1"

// Painter colours a string with an SGR parameter, or returns it unchanged.
type Painter func(code, s string) string

// WriteHuman prints the report as plain sentences, one per drift point,
// grouped by section, each changed text followed by the first line where it
// differs when blobs can open both sides. Identical runs print "no
// differences found". paint may be nil (no colour).
func WriteHuman(w io.Writer, r *Report, blobs Blobs, paint Painter) error {
	if paint == nil {
		paint = func(_, s string) string { return s }
	}
	bw := bufio.NewWriter(w)
	if r.Verdict != nil {
		// How the runs were judged comes first: no drift of their steps
		// says nothing of it.
		fmt.Fprintln(bw, paint(colorHeader, "verdict"))
		fmt.Fprintf(bw, "  %s\n", text.Visible(r.Verdict.Detail))
		if r.Summary.Total == 0 {
			fmt.Fprintln(bw, "\nno drift found in the runs' contents")
			return bw.Flush()
		}
		fmt.Fprintln(bw)
	}
	if r.Summary.Total == 0 {
		fmt.Fprintln(bw, "no differences found")
		return bw.Flush()
	}
	groups := []struct {
		title    string
		sections []string
	}{
		{"model", []string{SectionModel}},
		{"prompts", []string{SectionSystemPrompt, SectionPrompts}},
		{"inputs", []string{SectionInputs}},
		{"steps", []string{SectionSteps}},
		{"outputs", []string{SectionOutputs}},
		{"environment", []string{SectionEnvironment}},
	}
	first := true
	for _, g := range groups {
		var entries []Entry
		for _, e := range r.Drift {
			for _, s := range g.sections {
				if e.Section == s {
					entries = append(entries, e)
				}
			}
		}
		if len(entries) == 0 {
			continue
		}
		if !first {
			fmt.Fprintln(bw)
		}
		first = false
		fmt.Fprintln(bw, paint(colorHeader, g.title))
		cols := stepColumns(r, entries)
		if cols != nil {
			fmt.Fprintln(bw, cols.line("A", "B", "(the step's index in each run)"))
		}
		for _, e := range entries {
			if cols != nil {
				a, b, sentence := humanStep(e)
				fmt.Fprintln(bw, cols.line(a, b, text.Visible(sentence)))
			} else {
				fmt.Fprintf(bw, "  %s\n", text.Visible(e.Detail))
			}
			if blobs != nil {
				writeFirstDiff(bw, e, blobs, paint)
			}
		}
	}
	var parts []string
	for _, c := range r.Summary.Counts() {
		parts = append(parts, fmt.Sprintf("%d %s", c.N, c.Type))
	}
	points := "drift points"
	if r.Summary.Total == 1 {
		points = "drift point"
	}
	fmt.Fprintf(bw, "\n%d %s: %s", r.Summary.Total, points, strings.Join(parts, ", "))
	if r.FirstDivergence != nil {
		fmt.Fprintf(bw, "; first divergence at step %d", *r.FirstDivergence)
	}
	fmt.Fprintln(bw)
	return bw.Flush()
}

// columns are the two columns of step indexes, A's and B's, of --human
// when the alignment pairs steps at different indexes: each index is
// then in its run's column, and no line holds a bare number that could be
// either run's.
type columns struct{ wa, wb int }

// stepColumns returns the columns of the steps entries, or nil when every
// step compared is at the same index on both sides (index alignment, or a
// sequence alignment that shifted nothing): "step 3" is then the same
// step in A and B.
func stepColumns(r *Report, entries []Entry) *columns {
	shifted := false
	for _, p := range r.Alignment {
		shifted = shifted || p.A >= 0 && p.B >= 0 && p.A != p.B
	}
	c := &columns{wa: 1, wb: 1}
	for _, e := range entries {
		if e.Section != SectionSteps || e.Step == nil {
			return nil
		}
		shifted = shifted || e.StepB != nil
		a, b, _ := humanStep(e)
		c.wa, c.wb = max(c.wa, len(a)), max(c.wb, len(b))
	}
	if !shifted {
		return nil
	}
	return c
}

// line is a line of the steps section in columns.
func (c *columns) line(a, b, sentence string) string {
	return fmt.Sprintf("  %-*s  %-*s  %s", c.wa, a, c.wb, b, sentence)
}

// humanStep splits a steps entry into A's index, B's ("-" where the step
// is on one side only) and its sentence without the indexes.
func humanStep(e Entry) (a, b, sentence string) {
	a, b = fmt.Sprint(*e.Step), fmt.Sprint(*e.Step)
	switch {
	case e.Change == Added:
		a = "-"
	case e.Change == Removed:
		b = "-"
	case e.StepB != nil:
		b = fmt.Sprint(*e.StepB)
	}
	sentence = strings.TrimPrefix(e.Detail, stepWhere(*e.Step, e.StepB))
	sentence = strings.TrimPrefix(strings.TrimPrefix(sentence, ":"), " ")
	return a, b, sentence
}

// writeFirstDiff prints where the two texts of a content change first
// differ. Nothing is printed when a side's content is unavailable.
func writeFirstDiff(w io.Writer, e Entry, blobs Blobs, paint Painter) {
	if e.Change != Modified || e.Field != "" && e.Field != "normalized_output" {
		return
	}
	switch e.Type {
	case PromptDrift, InputDrift, OutputDrift, ReasoningDrift:
	default:
		return
	}
	ha, okA := parseRef(e.A)
	hb, okB := parseRef(e.B)
	if !okA || !okB || ha == hb {
		return
	}
	ra, err := blobs.Open(ha)
	if err != nil {
		return
	}
	defer ra.Close()
	rb, err := blobs.Open(hb)
	if err != nil {
		return
	}
	defer rb.Close()
	d, found, err := text.FirstDiff(ra, rb)
	if err != nil || !found {
		return
	}
	d.Write(w, "      ", paint)
}

func parseRef(raw json.RawMessage) (store.Hash, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return store.Hash{}, false
	}
	h, err := store.ParseRef(s)
	return h, err == nil
}
