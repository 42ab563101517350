package diff

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Blobs opens the content of a blob, so --human can show the first line
// where two texts differ. Open returns an error when the content is not
// available; the line is then left out.
type Blobs interface {
	Open(h store.Hash) (io.ReadCloser, error)
}

// Colours of the human report (SGR parameters for text.Paint).
const (
	colorHeader  = "1"
	colorRemoved = "31"
	colorAdded   = "32"
	colorDim     = "2"
)

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
	d, found, err := firstDiff(ra, rb)
	if err != nil || !found {
		return
	}
	if d.binary {
		fmt.Fprintf(w, "      %s\n", paint(colorDim, fmt.Sprintf("binary content differs at line %d", d.line)))
		return
	}
	a, b, col := lineWindow(d)
	where := fmt.Sprintf("line %d:", d.line)
	if strings.HasPrefix(a, "…") {
		// The window does not start at the line's start: say where it is.
		where = fmt.Sprintf("line %d, column %d:", d.line, col)
	}
	fmt.Fprintf(w, "      %s\n", paint(colorDim, where))
	side := func(mark, color, shown string, end bool) {
		switch {
		case end:
			shown = paint(colorDim, "(no such line)")
		case shown == "":
			shown = paint(colorDim, "(empty line)")
		}
		fmt.Fprintf(w, "      %s\n", paint(color, mark+" "+shown))
	}
	side("-", colorRemoved, a, d.aEnd)
	side("+", colorAdded, b, d.bEnd)
}

// lineWindow gives the two lines of d as shown: the part of each around
// their first difference (a long line changed in its middle shows the
// change, not the same beginning twice), with what a terminal would hide
// made visible (\r, a control character, spaces and tabs that end the
// line), and the column (in characters, 1-based) where they differ.
func lineWindow(d lineDiff) (a, b string, col int) {
	wa, wb, col := window(d.a, d.b, windowSize)
	show := func(w cut, whole bool) string {
		if whole && !w.clippedEnd {
			w.text = text.MarkTrailing(w.text)
		}
		w.text = text.Visible(w.text)
		return w.String()
	}
	return show(wa, d.aWhole), show(wb, d.bWhole), col
}

// cut is one side of a window.
type cut struct {
	text                     string
	clippedStart, clippedEnd bool
}

// String is the cut with "…" where it was cut.
func (c cut) String() string {
	s := c.text
	if c.clippedStart {
		s = "…" + s
	}
	if c.clippedEnd {
		s += "…"
	}
	return s
}

// window cuts a and b to at most n characters each around their first
// difference, starting a third of n before it; col is the 1-based
// character column of the difference.
func window(a, b string, n int) (wa, wb cut, col int) {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && (i < len(a) && !utf8.RuneStart(a[i]) || i < len(b) && !utf8.RuneStart(b[i])) {
		i--
	}
	col = utf8.RuneCountInString(a[:i]) + 1
	start := i
	for k := 0; k < n/3 && start > 0; k++ {
		_, size := utf8.DecodeLastRuneInString(a[:start])
		start -= size
	}
	side := func(s string) cut {
		c := cut{text: s[start:], clippedStart: start > 0}
		if utf8.RuneCountInString(c.text) > n {
			r := []rune(c.text)
			c.text, c.clippedEnd = string(r[:n-1]), true // n with the "…", as text.Clip
		}
		return c
	}
	return side(a), side(b), col
}

func parseRef(raw json.RawMessage) (store.Hash, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return store.Hash{}, false
	}
	h, err := store.ParseRef(s)
	return h, err == nil
}

// lineDiff is the first line where two texts differ.
type lineDiff struct {
	line           int    // 1-based
	a, b           string // the two lines' first maxKept bytes, as read (with any \r)
	aWhole, bWhole bool   // a, b is the whole line
	aEnd, bEnd     bool   // that side has no such line
	binary         bool   // a side holds a NUL byte: not text to show
}

// maxKept is how much of a line is kept to find and show where two lines
// differ; longer lines are still compared whole, by hash, and a
// difference beyond it is shown at its end.
const maxKept = 64 << 10

// windowSize is how many characters of a changed line or value are shown
// around its first difference.
const windowSize = 160

// firstDiff reads two texts line by line, in a stream, and returns the
// first line that differs; found is false when every line is the same.
func firstDiff(ra, rb io.Reader) (d lineDiff, found bool, err error) {
	la, lb := newLineReader(ra), newLineReader(rb)
	for n := 1; ; n++ {
		a, errA := la.next()
		b, errB := lb.next()
		if errA != nil {
			return d, false, errA
		}
		if errB != nil {
			return d, false, errB
		}
		if a.end && b.end {
			return d, false, nil
		}
		if a.end != b.end || a.sum != b.sum {
			return lineDiff{line: n, a: a.shown, b: b.shown, aWhole: a.whole, bWhole: b.whole, aEnd: a.end, bEnd: b.end, binary: a.binary || b.binary}, true, nil
		}
	}
}

type line struct {
	shown  string // the line's first maxKept bytes
	whole  bool   // shown is the whole line
	sum    [sha256.Size]byte
	end    bool // no line: the text ended
	binary bool
}

type lineReader struct{ br *bufio.Reader }

func newLineReader(r io.Reader) *lineReader { return &lineReader{bufio.NewReaderSize(r, 64<<10)} }

// next reads one line, hashing it whole and keeping its start for display,
// so a text of one huge line costs no more memory than the buffer.
func (l *lineReader) next() (line, error) {
	h := sha256.New()
	var shown []byte
	var out line
	total := 0
	read := false
	for {
		chunk, err := l.br.ReadSlice('\n')
		if len(chunk) > 0 {
			read = true
			body := bytes.TrimSuffix(chunk, []byte("\n"))
			h.Write(body)
			if bytes.IndexByte(body, 0) >= 0 {
				out.binary = true
			}
			if len(shown) < maxKept {
				shown = append(shown, body[:min(len(body), maxKept-len(shown))]...)
			}
			total += len(body)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			if !read {
				out.end, out.whole = true, true
				return out, nil
			}
			break
		}
		if err != nil {
			return out, err
		}
		break
	}
	h.Sum(out.sum[:0])
	out.shown, out.whole = string(shown), total == len(shown)
	return out, nil
}
