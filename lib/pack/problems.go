package pack

import (
	"fmt"
	"strings"
)

// Problem is one thing wrong with a log, at a JSON path such as
// "steps[3].tool", and for NDJSON the line it came from.
type Problem struct {
	Path string
	Msg  string
	Line int
}

func (p Problem) String() string {
	s := p.Msg
	if p.Path != "" {
		s = p.Path + ": " + p.Msg
	}
	if p.Line > 0 {
		s += fmt.Sprintf(" (line %d)", p.Line)
	}
	return s
}

// maxProblems bounds how many problems are kept; a log that is wrong
// everywhere is reported by its first ones and a count.
const maxProblems = 100

// ValidationError lists every problem found in a log. Nothing was stored.
type ValidationError struct {
	Problems []Problem
	More     int // problems found beyond those kept
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	if e.More > 0 {
		fmt.Fprintf(&b, "\n... and %d more problems", e.More)
	}
	return b.String()
}

// SyntaxError is a log that is not valid JSON, with where it broke.
type SyntaxError struct {
	Line, Column int
	Offset       int64
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at line %d, column %d (byte %d): %s", e.Line, e.Column, e.Offset, e.Msg)
}

// ConverterError is an "error" event: the program that wrote the log (ctx
// convert) stopped, and said why, before the log was whole. Nothing of the
// log it ends is stored.
type ConverterError struct {
	Line int
	Msg  string // the converter's words ("ctx-convert: ..."); "" when it gave none
}

func (e *ConverterError) Error() string {
	msg := e.Msg
	if msg == "" {
		msg = "the program that wrote the log stopped without saying why"
	}
	return fmt.Sprintf("line %d: the log ends with its writer's error: %s", e.Line, msg)
}
