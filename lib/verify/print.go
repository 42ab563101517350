package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/text"
)

// Printer writes reports as they are made, so a walk over a large tree
// streams and memory does not grow with the number of artifacts.
type Printer interface {
	Add(r Report) error
	Close() error
}

// NewPrinter returns the Printer of ctx verify: one JSON array, on one
// line, or indented when indent is set; or with human, a short block of
// text per report and a count of statuses, coloured through paint (an SGR
// code and the text).
func NewPrinter(w io.Writer, human, indent bool, paint func(code, s string) string) Printer {
	if human {
		return &humanPrinter{w: w, paint: paint, counts: map[Status]int{}}
	}
	return &jsonPrinter{w: w, indent: indent}
}

// jsonPrinter writes one JSON array, element by element: on one line when
// piped, indented on a terminal.
type jsonPrinter struct {
	w      io.Writer
	indent bool
	n      int
}

func (p *jsonPrinter) Add(r Report) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if p.indent {
		enc.SetIndent("  ", "  ")
	}
	if err := enc.Encode(r); err != nil {
		return err
	}
	sep := ","
	if p.n == 0 {
		sep = "["
	}
	if p.indent {
		sep += "\n  "
	}
	p.n++
	if _, err := io.WriteString(p.w, sep); err != nil {
		return err
	}
	_, err := p.w.Write(bytes.TrimRight(buf.Bytes(), "\n"))
	return err
}

func (p *jsonPrinter) Close() error {
	end := "]\n"
	switch {
	case p.n == 0:
		end = "[]\n"
	case p.indent:
		end = "\n]\n"
	}
	_, err := io.WriteString(p.w, end)
	return err
}

// humanPrinter writes a short block per report, then a count of statuses
// when there was more than one.
type humanPrinter struct {
	w      io.Writer
	paint  func(code, s string) string
	n      int
	counts map[Status]int
}

func (p *humanPrinter) Add(r Report) error {
	var b strings.Builder
	if p.n > 0 {
		b.WriteByte('\n')
	}
	p.n++
	p.counts[r.Status]++
	writeBlock(&b, r, p.paint)
	_, err := io.WriteString(p.w, b.String())
	return err
}

func (p *humanPrinter) Close() error {
	if p.n < 2 {
		return nil
	}
	var parts []string
	for _, s := range []Status{Signed, Verified, Unsigned, BadSignature, Modified, NoProvenance, Broken, Corrupt} {
		if c := p.counts[s]; c > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c, s))
		}
	}
	_, err := fmt.Fprintf(p.w, "\n%d checked: %s\n", p.n, strings.Join(parts, ", "))
	return err
}

// writeBlock writes one report as text: a heading with the status, the
// provenance, what is wrong, and last the commands to go further.
func writeBlock(b *strings.Builder, r Report, paint func(code, s string) string) {
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(b, "  %-11s %s\n", k, printable(v))
		}
	}
	code := "31" // red: not to be trusted
	switch r.Status {
	case Verified, Signed:
		code = "32"
	case Modified:
		code = "33"
	}
	subject := r.Artifact
	if subject == "" {
		subject = "pack " + r.Pack
	}
	fmt.Fprintf(b, "%s: %s\n", printable(subject), paint(code, string(r.Status)))
	if r.Artifact != "" {
		line("pack", r.Pack)
	}
	if r.Loaded {
		line("created", text.Time(r.Created))
	}
	line("output", r.Output)
	if r.Tools != nil {
		line("tools", listOrNone(r.Tools))
	}
	switch {
	case r.InputNames != nil:
		line("inputs", listOrNone(r.InputNames))
	case r.Inputs != nil:
		line("inputs", listOrNone(r.Inputs))
	}
	line("confidence", r.Confidence)
	line("notes", r.Notes)
	if r.Expected != "" && r.Expected == r.Actual {
		line("content", r.Actual)
	} else {
		line("expected", r.Expected)
		line("actual", r.Actual)
	}
	line("key", r.KeyID)
	line("attestation", r.Envelope)
	line("reason", r.Reason)
	for _, p := range r.Problems {
		line(p.Kind, fmt.Sprintf("%s (%s): %s", p.Object, p.Where, p.Detail))
	}
	switch {
	case r.Status == Corrupt:
		line("check", "ctx fsck")
	case r.Loaded: // the pack is in the store and can be inspected
		if r.Status == Modified && r.Actual != "" {
			hx := strings.TrimPrefix(r.Pack, "sha256:")
			line("compare", fmt.Sprintf("ctx cat %s | diff - %s", shellQuote(hx+":outputs/"+r.Output), shellQuote(r.Artifact)))
		}
		line("inspect", "ctx show "+r.Pack)
		line("re-run", "ctx replay "+r.Pack)
	}
}

// printable returns s as it is, or Go-quoted when it holds a control
// character: a file name or a note with a newline or an escape sequence
// must not break the block's lines or take over the terminal.
func printable(s string) string {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return strconv.Quote(s)
		}
	}
	return s
}

// listOrNone joins a list for one line of text, clipped after a few items.
func listOrNone(l []string) string {
	const most = 6
	if len(l) == 0 {
		return "none"
	}
	if len(l) > most {
		return fmt.Sprintf("%s and %d more", strings.Join(l[:most], ", "), len(l)-most)
	}
	return strings.Join(l, ", ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters that are safe bare, so a printed command can be pasted.
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=@%+,", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
