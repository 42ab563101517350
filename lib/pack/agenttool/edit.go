package agenttool

import (
	"fmt"
	"strings"
)

// What a write or an edit does to a file. A converter works out the file
// a recorded run left from the calls it made (the file before, then each
// edit), and replay re-executes the same calls on the workspace: both go
// through these functions, so the file a converted run records and the
// file its replay writes are the same bytes (FuzzConvertedEditsReplayAlike
// in the repository's root holds them so).

// Written is the file a whole-file write leaves: the content, or with
// appended the file as it was (prev) followed by the content.
func Written(prev, content string, appended bool) string {
	if appended {
		return prev + content
	}
	return content
}

// Replacement is what an edit tool does (Edit, str_replace, one edit of
// a MultiEdit): Old replaced by New, exactly once, or everywhere with All
// (replace_all).
type Replacement struct {
	Old, New string
	All      bool
}

// EditError says why an edit was not made: the string to replace is
// empty, absent, or found more than once without replace-all. The
// frameworks' edit tools refuse all three rather than guess which
// occurrence was meant.
type EditError struct {
	Empty bool
	Count int // the occurrences of the string to replace
}

// Error says what the edit found, in the words of replay's messages.
func (e *EditError) Error() string {
	switch {
	case e.Empty:
		return "the string to replace is empty"
	case e.Count == 0:
		return "the string to replace is not found"
	}
	return fmt.Sprintf("the string to replace occurs %d times; give more context or replace_all", e.Count)
}

// Apply makes the replacement in s.
func (e Replacement) Apply(s string) (string, error) {
	if e.Old == "" {
		return "", &EditError{Empty: true}
	}
	n := strings.Count(s, e.Old)
	switch {
	case n == 0, n > 1 && !e.All:
		return "", &EditError{Count: n}
	case e.All:
		return strings.ReplaceAll(s, e.Old, e.New), nil
	}
	return strings.Replace(s, e.Old, e.New, 1), nil
}

// Replace makes the replacements in s in order, each on what the one
// before left (a multi-edit): all or nothing. failed is the index of the
// replacement that could not be made, with its error.
func Replace(s string, edits []Replacement) (out string, failed int, err error) {
	for i, e := range edits {
		if s, err = e.Apply(s); err != nil {
			return "", i, err
		}
	}
	return s, -1, nil
}

// InsertError is an insert at a line the file does not have.
type InsertError struct {
	Line, Lines int
}

// Error names the line and the range there is.
func (e *InsertError) Error() string {
	return fmt.Sprintf("line %d is not between 0 and the file's %d lines", e.Line, e.Lines)
}

// Insert is the text editor's insert (str_replace_editor's insert
// command): text after line line of s, 0 for before the first. The rule
// is OpenHands' editor's (openhands-aci, OHEditor.insert), the one real
// transcripts show whole: the lines up to line are kept as they are (a
// last line without its newline stays without it), then each line of
// text (text split at its newlines) with a newline, then the rest. So
// "a\nb\n" with "X" at 1 is "a\nX\nb\n", with "X\n" at 1 "a\nX\n\nb\n",
// and "a" with "X" at 1 is "aX\n". line runs from 0 to the file's count of
// lines, a last line without its newline counted.
func Insert(s string, line int, text string) (string, error) {
	if line < 0 {
		return "", &InsertError{Line: line, Lines: lineCount(s)}
	}
	pos := 0
	for i := 0; i < line; i++ {
		if pos >= len(s) {
			return "", &InsertError{Line: line, Lines: lineCount(s)}
		}
		if j := strings.IndexByte(s[pos:], '\n'); j >= 0 {
			pos += j + 1
		} else {
			pos = len(s)
		}
	}
	var b strings.Builder
	b.Grow(len(s) + len(text) + 1 + strings.Count(text, "\n"))
	b.WriteString(s[:pos])
	for l := range strings.SplitSeq(text, "\n") {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(s[pos:])
	return b.String(), nil
}

// lineCount is the lines Python iterates over in s: its newlines, and a
// last line without one.
func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}
