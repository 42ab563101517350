// Package transcript tells ctx pack, which reads execution logs, that
// what it was given is an agent's transcript instead, and which one: the
// format ctx convert detects in it, so the error can point to ctx convert.
// It looks only at the head of the input it is given; it never reads a
// file or a stream itself.
package transcript

import (
	"bytes"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/convert"
)

// HeadSize is how much of an input Format looks at: enough for the first
// line of any line-based transcript and for a whole document of most.
const HeadSize = 1 << 20

// Format is the transcript format ctx convert detects in head, the start
// of an input, or "" when it detects none (an execution log among them).
// A document longer than head is not recognised: its JSON ends past it.
func Format(head []byte) string {
	var format string
	quiet := func(string) {}
	// The detection of ctx convert itself, on what the head holds: the
	// conversion goes on into io.Discard and its end is never looked at.
	_, _ = convert.Convert(bytes.NewReader(head), nil, io.Discard, convert.Options{
		Detected: func(f string) { format = f }, Warn: quiet, Note: quiet, MaxExpanded: 4 * HeadSize})
	return format
}

// Look is the head of an input ctx pack reads, looked at once, when its
// reading as a log first warns or fails.
type Look struct {
	head   []byte
	looked bool
	format string
}

// NewLook keeps head, the start of the input.
func NewLook(head []byte) *Look { return &Look{head: head} }

// Format is the transcript format of the input, or "" (Format).
func (l *Look) Format() string {
	if !l.looked {
		l.format, l.looked = Format(l.head), true
		l.head = nil
	}
	return l.format
}

// Warn passes the warnings of reading the input as a log on to warn,
// unless the input is a transcript: what a log would not have ("traj:
// unknown field") says nothing of a transcript, and NotALog says what does.
func (l *Look) Warn(warn func(string)) func(string) {
	return func(s string) {
		if l.Format() == "" {
			warn(s)
		}
	}
}

// NotALog turns the error of ctx pack on an input that is a transcript
// into one that names its format and how to convert it; any other error
// is returned as it is. arg is the input as the command line gave it
// ("-" for standard input), name as errors name it.
func (l *Look) NotALog(err error, arg, name string) error {
	if err == nil || l.Format() == "" {
		return err
	}
	how := fmt.Sprintf("convert it first: ctx convert %s | ctx pack -", arg)
	if arg == "-" {
		how = "pipe it through ctx convert first: ... | ctx convert - | ctx pack -"
	}
	return &Error{Name: name, Format: l.format, Err: err, hints: []string{how, "nothing was stored"}}
}

// Error is an input ctx pack could not read as a log because it is a
// transcript of format Format.
type Error struct {
	Name, Format string
	// Err is what reading it as a log found.
	Err   error
	hints []string
}

// Error names the input and the format ctx convert detects in it.
func (e *Error) Error() string {
	return fmt.Sprintf("%s is a transcript, not an execution log (ctx convert reads it as %s)", e.Name, e.Format)
}

// Unwrap gives what reading it as a log found.
func (e *Error) Unwrap() error { return e.Err }

// ErrorHints says how to pack it.
func (e *Error) ErrorHints() []string { return e.hints }
