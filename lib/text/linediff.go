package text

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// LineDiff is the first line where two texts, A and B, differ: what ctx
// diff --human and ctx replay --human show of a changed text.
type LineDiff struct {
	Line           int    // 1-based
	A, B           string // the two lines' first maxKept bytes, as read (with any \r)
	AWhole, BWhole bool   // A, B is the whole line
	AEnd, BEnd     bool   // that side has no such line
	Binary         bool   // a side holds a NUL byte: not text to show
}

// maxKept is how much of a line is kept to find and show where two lines
// differ; longer lines are still compared whole, by hash, and a
// difference beyond it is shown at its end.
const maxKept = 64 << 10

// windowSize is how many characters of a changed line are shown around
// its first difference.
const windowSize = 160

// FirstDiff reads two texts line by line, in a stream, and returns the
// first line that differs; found is false when every line is the same.
// A read error of either side is returned as it is.
func FirstDiff(a, b io.Reader) (d LineDiff, found bool, err error) {
	la, lb := newLineReader(a), newLineReader(b)
	for n := 1; ; n++ {
		x, errA := la.next()
		y, errB := lb.next()
		if errA != nil {
			return d, false, errA
		}
		if errB != nil {
			return d, false, errB
		}
		if x.end && y.end {
			return d, false, nil
		}
		if x.end != y.end || x.sum != y.sum {
			return LineDiff{Line: n, A: x.shown, B: y.shown, AWhole: x.whole, BWhole: y.whole, AEnd: x.end, BEnd: y.end, Binary: x.binary || y.binary}, true, nil
		}
	}
}

// Write prints where the texts differ, each line led by indent: "line
// N:" (with the column where the window does not start at the line's
// start), then "- " and A's line, "+ " and B's, or that the content is
// binary. paint colours (an SGR parameter and the text; nil: none).
func (d LineDiff) Write(w io.Writer, indent string, paint func(code, s string) string) {
	const dim, removed, added = "2", "31", "32"
	if paint == nil {
		paint = func(_, s string) string { return s }
	}
	if d.Binary {
		fmt.Fprintf(w, "%s%s\n", indent, paint(dim, fmt.Sprintf("binary content differs at line %d", d.Line)))
		return
	}
	a, b, col := d.Window()
	where := fmt.Sprintf("line %d:", d.Line)
	if strings.HasPrefix(a, "…") {
		// The window does not start at the line's start: say where it is.
		where = fmt.Sprintf("line %d, column %d:", d.Line, col)
	}
	fmt.Fprintf(w, "%s%s\n", indent, paint(dim, where))
	side := func(mark, color, shown string, end bool) {
		switch {
		case end:
			shown = paint(dim, "(no such line)")
		case shown == "":
			shown = paint(dim, "(empty line)")
		}
		fmt.Fprintf(w, "%s%s\n", indent, paint(color, mark+" "+shown))
	}
	side("-", removed, a, d.AEnd)
	side("+", added, b, d.BEnd)
}

// Window gives the two lines of d as shown: the part of each around
// their first difference (a long line changed in its middle shows the
// change, not the same beginning twice), with what a terminal would hide
// made visible (\r, a control character, spaces and tabs that end the
// line), and the column (in characters, 1-based) where they differ.
func (d LineDiff) Window() (a, b string, col int) {
	wa, wb, col := window(d.A, d.B, windowSize)
	show := func(w cut, whole bool) string {
		if whole && !w.clippedEnd {
			w.text = MarkTrailing(w.text)
		}
		w.text = Visible(w.text)
		return w.String()
	}
	return show(wa, d.AWhole), show(wb, d.BWhole), col
}

// Around cuts a and b to at most n characters each around their first
// difference, "…" where cut: two long values that share their beginning
// show the change, not the same beginning twice.
func Around(a, b string, n int) (string, string) {
	wa, wb, _ := window(a, b, n)
	return wa.String(), wb.String()
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
			c.text, c.clippedEnd = string(r[:n-1]), true // n with the "…", as Clip
		}
		return c
	}
	return side(a), side(b), col
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
