// Package text is the wording every ctx package shares: a value clipped to
// fit one line, a count with its noun, the cause of a path error for a
// message that already names the path, and the first line where two texts
// differ as ctx diff and ctx replay show it. It keeps two packages from
// saying the same thing two ways.
//
// It must never print but to a writer it is given, and never depend on
// anything but the standard library: every other package may import it.
package text

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// Clip shortens s to at most n runes, the last of them an ellipsis when
// anything was cut, so a long value keeps to its line.
func Clip(s string, n int) string {
	// One pass over at most n+1 runes: a value of megabytes is not copied
	// to be cut.
	cut, count := 0, 0
	for i := range s {
		if count == n-1 {
			cut = i
		}
		if count++; count > n {
			return string([]rune(s[:cut])) + "…" // bytes that are not UTF-8 become U+FFFD, as before
		}
	}
	return s
}

// Time is a run's time as people read it: as written, or "time unknown"
// for a run that recorded none ("").
func Time(s string) string {
	if s == "" {
		return "time unknown"
	}
	return s
}

// Size is a byte count as people read it: "612 B", "1.5 KiB", "3.0 GiB";
// "" for a negative count (a size not known).
func Size(n int64) string {
	switch {
	case n < 0:
		return ""
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	}
	f, units := float64(n), []string{"KiB", "MiB", "GiB", "TiB"}
	for i := range units {
		f /= 1024
		if f < 1024 || i == len(units)-1 {
			return fmt.Sprintf("%.1f %s", f, units[i])
		}
	}
	return ""
}

// Paint wraps s in an ANSI colour when on is true. code is an SGR parameter
// such as "31" (red), "32" (green), "33" (yellow), "1" (bold), "2" (dim).
// Whether to colour at all is the verb's to decide (cli.UseColor).
func Paint(on bool, code, s string) string {
	if !on || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// Plural is n and its noun, in the plural unless n is 1: "1 object",
// "3 objects".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// UnwrapPath returns the cause of a path error ("no such file or
// directory") without the operation and path it is wrapped in, for a
// message that names the path already; any other error is returned as it
// is.
func UnwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// WithHints returns err with hints: what a user can do about it, printed
// after the message by the verbs (cli.Report). A library gives its errors
// hints this way without knowing how they are printed.
func WithHints(err error, hints ...string) error {
	if err == nil {
		return nil
	}
	return &hinted{err: err, hints: hints}
}

type hinted struct {
	err   error
	hints []string
}

func (h *hinted) Error() string { return h.err.Error() }

func (h *hinted) Unwrap() error { return h.err }

// ErrorHints returns the hints.
func (h *hinted) ErrorHints() []string { return h.hints }

// ShellWord quotes s for sh when it needs it, so that a command printed
// for the user can be pasted as it is.
func ShellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
