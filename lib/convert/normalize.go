package convert

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/contextsubstrate/ctx/lib/pack/agenttool"
)

// A step's normalised output is what one of replay's built-in executors
// prints for the same call, where the agent showed its result in another
// form: Claude Code numbers the lines it read and answers an edit with a
// sentence, SWE-agent shows a window with a header. Replay compares its
// executor's result with the normalised output, so a call whose input is
// unchanged matches. A converter records one only when it can rebuild the
// executor's result exactly from the transcript; otherwise none, and the
// verbatim output is all there is. docs/CONVERT.md gives the rule for each
// format.

// ccReadMaxLine is the longest line Claude Code's Read shows whole; a
// longer one is cut, so a read holding one is not the file's text.
const ccReadMaxLine = 2000

// intParam reads an integer parameter; ok is false when it is absent, and
// bad when it is there but no whole number.
func intParam(params map[string]any, k string) (n int64, ok, bad bool) {
	v, has := params[k]
	if !has || v == nil {
		return 0, false, false
	}
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		return i, err == nil, err != nil
	case float64:
		if x != float64(int64(x)) {
			return 0, false, true
		}
		return int64(x), true, false
	case int:
		return int64(x), true, false
	}
	return 0, false, true
}

// ccReadNormalized is the text the built-in Read gives for a Claude Code
// Read: the lines from offset (1 when absent) to offset+limit-1 (to the
// end without a limit), as the file has them. Claude Code shows those
// lines numbered ("%6d→line") and followed by a system reminder;
// toolUseResult.file holds them unnumbered, joined by newlines. The
// result is recorded only when the numbered text is exactly those lines
// and they are the lines the executor reads: the read started where the
// parameters say and ran to their limit or to the end of the file (a read
// Claude Code cut at its own default limit does not), and no line was
// long enough to be cut.
func ccReadNormalized(params map[string]any, text string, f map[string]any) (string, bool) {
	body, ok := f["content"].(string)
	if !ok {
		return "", false
	}
	start, ok1, _ := intParam(f, "startLine")
	num, ok2, _ := intParam(f, "numLines")
	total, ok3, _ := intParam(f, "totalLines")
	if !ok1 || !ok2 || !ok3 || num < 1 {
		return "", false
	}
	from := int64(1)
	if off, ok, bad := intParam(params, "offset"); bad || (ok && off < 0) {
		return "", false
	} else if ok {
		from = max(off, 1)
	}
	var want int64 // lines the executor reads; 0 for all to the end
	if lim, ok, bad := intParam(params, "limit"); bad || (ok && lim < 0) {
		return "", false
	} else if ok {
		want = lim
	}
	if start != from {
		return "", false
	}
	if int64(strings.Count(body, "\n"))+1 != num {
		return "", false
	}
	atEnd := start+num-1 >= total
	if !atEnd && (want == 0 || num != want) {
		return "", false
	}
	rest, ok := ccNumbered(text, body, start)
	if !ok || (rest != "" && !strings.HasPrefix(rest, "\n\n<system-reminder>")) {
		return "", false
	}
	if atEnd {
		return body, true
	}
	// The lines stop before the end of the file: the last one had its
	// newline, which the joined text lacks.
	return body + "\n", true
}

// ccNumbered checks that text begins with the lines of body numbered as
// Claude Code's Read shows them, "%6d→line" from start, joined by
// newlines, and returns what follows. It compares as it goes, so a result
// in another form is told at its first line.
func ccNumbered(text, body string, start int64) (string, bool) {
	var num [24]byte
	for n := start; ; n++ {
		line, more, cut := strings.Cut(body, "\n")
		if utf8.RuneCountInString(line) >= ccReadMaxLine {
			return "", false
		}
		digits := strconv.AppendInt(num[:0], n, 10)
		for pad := 6 - len(digits); pad > 0; pad-- {
			if text == "" || text[0] != ' ' {
				return "", false
			}
			text = text[1:]
		}
		var ok bool
		if text, ok = strings.CutPrefix(text, string(digits)); !ok {
			return "", false
		}
		if text, ok = strings.CutPrefix(text, "\u2192"); !ok {
			return "", false
		}
		if text, ok = strings.CutPrefix(text, line); !ok {
			return "", false
		}
		if !cut {
			return text, true
		}
		if text, ok = strings.CutPrefix(text, "\n"); !ok {
			return "", false
		}
		body = more
	}
}

// ccGlobNormalized is the text the built-in glob gives for a Claude Code
// Glob: the matching files relative to the working directory, one per
// line, in the order of a walk that visits each directory's entries by
// name. Claude Code lists absolute paths (newest first); a list cut short
// ("Results are truncated") or naming a file outside the working
// directory has none.
func ccGlobNormalized(text string, tur map[string]any, wd workdir) (string, bool) {
	if t, _ := tur["truncated"].(bool); t {
		return "", false
	}
	if text == "No files found" {
		return "", true
	}
	if text == "" {
		return "", false
	}
	var names []string
	for _, p := range strings.Split(text, "\n") {
		if !strings.HasPrefix(p, "/") {
			return "", false
		}
		n, ok := wd.name(p)
		if !ok || n == "." {
			return "", false
		}
		names = append(names, n)
	}
	sort.SliceStable(names, func(i, j int) bool { return walkLess(names[i], names[j]) })
	return strings.Join(names, "\n") + "\n", true
}

// walkLess orders slash-separated paths as a depth-first walk that visits
// each directory's entries sorted by name does: element by element, so
// "a/b" comes before "a.txt" (the directory a sorts before the file
// a.txt), which a plain string order reverses.
func walkLess(a, b string) bool {
	for {
		ea, ra, moreA := strings.Cut(a, "/")
		eb, rb, moreB := strings.Cut(b, "/")
		if ea != eb {
			return ea < eb
		}
		if !moreA || !moreB {
			return !moreA && moreB
		}
		a, b = ra, rb
	}
}

// ccNormalized is the normalised output of a Claude Code tool call that
// succeeded, or nil: Read and Glob as above, and the sentence replay's
// built-in gives for Write, Edit and MultiEdit (fileSentence).
func ccNormalized(tool string, params map[string]any, text string, tur map[string]any, wd workdir) *string {
	var s string
	var ok bool
	switch tool {
	case "Read":
		f, _ := tur["file"].(map[string]any)
		if f != nil {
			s, ok = ccReadNormalized(params, text, f)
		}
	case "Glob":
		if tur != nil {
			s, ok = ccGlobNormalized(text, tur, wd)
		}
	default:
		return fileSentence(tool, params, wd)
	}
	if !ok {
		return nil
	}
	return &s
}

// fileSentence is what replay's built-in writer or editor says of a call
// of tool that succeeded (agenttool.Said): the file as the call names it,
// once the converter has made it relative to the working directory. A
// file outside the working directory has none: replay does not write
// there.
func fileSentence(tool string, params map[string]any, wd workdir) *string {
	key, p, ok := agenttool.Param(params, agenttool.FilePathKeys())
	if !ok {
		return nil
	}
	if _, in := wd.name(p); !in {
		return nil
	}
	named := maps.Clone(params)
	named[key] = wd.text(p)
	s, ok := agenttool.Said(tool, named)
	if !ok {
		return nil
	}
	return &s
}

// sweWindow reads the window SWE-agent's file viewer prints (open, goto,
// scroll_up, scroll_down, create, and after an edit):
//
//	[File: PATH (N lines total)]
//	(K more lines above)
//	FIRST:line
//	...
//	(M more lines below)
//
// It returns the lines shown, each with its newline (what the file holds
// from FIRST to LAST when it ends in a newline), and where they are.
// Warnings may come before the header, and a message (an edit's) or the
// shell's state after the window.
func sweWindow(text string) (body string, first, last, total int, ok bool) {
	// Observations come through a terminal, which ends lines with \r\n;
	// the window's lines are the file's without them (SWE-agent splits
	// the file with splitlines, which drops a \r of the file too).
	text = strings.ReplaceAll(text, "\r\n", "\n")
	i := strings.Index(text, "[File: ")
	if i < 0 {
		return "", 0, 0, 0, false
	}
	rest := text[i:]
	header, rest, found := strings.Cut(rest, "\n")
	if !found || !strings.HasSuffix(header, " lines total)]") {
		return "", 0, 0, 0, false
	}
	open := strings.LastIndex(header, " (")
	if open < 0 {
		return "", 0, 0, 0, false
	}
	total, err := strconv.Atoi(strings.TrimSuffix(header[open+2:], " lines total)]"))
	if err != nil || total < 0 {
		return "", 0, 0, 0, false
	}
	lines := strings.Split(rest, "\n")
	k := 0
	above := 0
	if k < len(lines) && strings.HasSuffix(lines[k], " more lines above)") && strings.HasPrefix(lines[k], "(") {
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(lines[k], "("), " more lines above)"))
		if err != nil {
			return "", 0, 0, 0, false
		}
		above = n
		k++
	}
	first = above + 1
	var b strings.Builder
	next := first
	for ; k < len(lines); k++ {
		num, line, found := strings.Cut(lines[k], ":")
		n, err := strconv.Atoi(num)
		if !found || err != nil || n != next {
			break
		}
		b.WriteString(line)
		b.WriteByte('\n')
		next++
	}
	last = next - 1
	if last < first || last > total {
		return "", 0, 0, 0, false
	}
	// Lines left below the window are counted on the next line.
	if below := total - last; below != 0 && (k >= len(lines) || lines[k] != fmt.Sprintf("(%d more lines below)", below)) {
		return "", 0, 0, 0, false
	}
	return b.String(), first, last, total, true
}
