package replay

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Printer writes a replay as it runs: the stream's records as NDJSON, or
// the same as text; and, when asked, a progress line on stderr.
type Printer struct {
	w     *bufio.Writer
	enc   *json.Encoder
	human bool
	paint func(code, s string) string

	stderr   io.Writer
	showProg bool
	shown    bool
	last     time.Time
}

// NewPrinter returns a Printer of the stream on stdout: NDJSON, or text
// when human is set, in colours through paint (an SGR code and the text;
// nil: no colour). progress shows "replaying step N of M" on stderr.
func NewPrinter(stdout, stderr io.Writer, human bool, paint func(code, s string) string, progress bool) *Printer {
	if paint == nil {
		paint = func(_, s string) string { return s }
	}
	// Buffered, and flushed after every record: each step line leaves as
	// soon as its step is done, in one write.
	w := bufio.NewWriterSize(stdout, 64<<10)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &Printer{w: w, enc: enc, human: human, paint: paint, stderr: stderr, showProg: progress}
}

// Step writes one step as soon as it is done. As text, a step whose
// output differs is followed by the first line where it does (as ctx diff
// --human shows a changed text), and a step the sandbox may have hindered
// by its note.
func (p *Printer) Step(r *Step) error {
	p.ClearProgress()
	if !p.human {
		return p.record(r)
	}
	status := string(r.Status)
	switch r.Status {
	case replaystream.Matched:
		status = p.paint("32", fmt.Sprintf("%-17s", status))
	case replaystream.Diverged, replaystream.Failed:
		status = p.paint("31", fmt.Sprintf("%-17s", status))
	case replaystream.DivergedExpected, replaystream.Recorded, replaystream.SkippedRejected, replaystream.NotAllowed:
		status = p.paint("33", fmt.Sprintf("%-17s", status))
	}
	detail := ""
	switch r.Status {
	case replaystream.Failed, replaystream.NotAllowed:
		detail = r.Reason
	case replaystream.SkippedRejected:
		detail = "refused in the recorded run; never run"
	case replaystream.Diverged, replaystream.DivergedExpected:
		detail = fmt.Sprintf("expected %s, got %s", short(r.Expected), short(r.Actual))
	}
	line := fmt.Sprintf("%4d  %-20s  %s  %s", r.Index, text.Clip(r.Tool, 20), status, detail)
	fmt.Fprintln(p.w, strings.TrimRight(line, " "))
	if r.Differs != nil {
		r.Differs.Write(p.w, "      ", p.paint)
	}
	if r.Note != "" {
		fmt.Fprintf(p.w, "      %s\n", p.paint("33", "note: "+r.Note))
	}
	return p.w.Flush()
}

// Report writes the final record.
func (p *Printer) Report(r *replaystream.Report) error {
	p.ClearProgress()
	if !p.human {
		return p.record(r)
	}
	status := string(r.Status)
	switch r.Status {
	case replaystream.Exact:
		status = p.paint("32", status)
	case replaystream.Degraded, replaystream.Unverified:
		status = p.paint("33", status)
	default:
		status = p.paint("31", status)
	}
	fmt.Fprintf(p.w, "\n%s\n", ranSentence(r.Counts))
	fmt.Fprintf(p.w, "replay of %s: %s", r.Pack, p.paint("1", status))
	switch {
	case r.Status != replaystream.Unverified:
	case r.Counts.Matched == 0:
		fmt.Fprint(p.w, " (nothing was reproduced)")
	default:
		fmt.Fprint(p.w, " (not every step was allowed to run)")
	}
	fmt.Fprintln(p.w)
	if len(r.Diverged) > 0 {
		fmt.Fprintf(p.w, "  diverged: %s\n", steps(r.Diverged))
	}
	if len(r.Failed) > 0 {
		fmt.Fprintf(p.w, "  failed: %s\n", steps(r.Failed))
	}
	if len(r.Drift) == 0 {
		fmt.Fprintf(p.w, "no dependency drift\n")
	} else {
		fmt.Fprintf(p.w, "dependency drift:\n")
		for _, d := range r.Drift {
			fmt.Fprintf(p.w, "  %s\n", d)
		}
	}
	if r.Sandbox != "" {
		fmt.Fprintf(p.w, "sandbox: %s\n", r.Sandbox)
	}
	if r.Repository != "" {
		fmt.Fprintf(p.w, "repository: %s\n", r.Repository)
	}
	if r.Saved != "" {
		fmt.Fprintf(p.w, "saved as %s\n", r.Saved)
	}
	return p.w.Flush()
}

// ranSentence is the first line of a human report: how many steps re-ran
// and how each ended, then what became of the others.
func ranSentence(c replaystream.Counts) string {
	type count struct {
		n    int
		what string
	}
	list := func(ps ...count) string {
		var parts []string
		for _, p := range ps {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
			}
		}
		return strings.Join(parts, ", ")
	}
	word := "steps"
	if c.Steps == 1 {
		word = "step"
	}
	s := fmt.Sprintf("%d of %d %s re-ran", c.Reexecuted, c.Steps, word)
	if ran := list(count{c.Matched, "matched"}, count{c.Diverged, "diverged"}, count{c.DivergedExpected, "diverged as expected"}); ran != "" {
		s += ": " + ran
	}
	if rest := list(count{c.Recorded, "served from the recording"}, count{c.SkippedRejected, "skipped (refused in the recorded run)"},
		count{c.NotAllowed, "not allowed to run"}, count{c.Failed, "failed"}); rest != "" {
		s += "; " + rest
	}
	return s
}

// record writes one NDJSON record and sends it on its way.
func (p *Printer) record(v any) error {
	if err := p.enc.Encode(v); err != nil {
		return err
	}
	return p.w.Flush()
}

// Progress shows "replaying step N of M" on a terminal, at most ten times a
// second.
func (p *Printer) Progress(done, total int) {
	if !p.showProg || done == total || time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.stderr, "\rreplaying step %d of %d\x1b[K", done+1, total)
	p.shown = true
}

// ClearProgress removes the progress line, before anything else is
// written to the terminal.
func (p *Printer) ClearProgress() {
	if p.shown {
		fmt.Fprint(p.stderr, "\r\x1b[K")
		p.shown = false
	}
}

func steps(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
	}
	word := "steps"
	if len(ns) == 1 {
		word = "step"
	}
	return word + " " + strings.Join(s, ", ")
}

func short(h *store.Hash) string {
	if h == nil {
		return "nothing"
	}
	return h.Short()
}
