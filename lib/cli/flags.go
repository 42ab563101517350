package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/contextsubstrate/ctx/lib/store"
)

// Strings is a repeatable string flag (--tag a --tag b).
type Strings []string

// String returns the values joined by commas.
func (s *Strings) String() string { return strings.Join(*s, ",") }

// Set adds a value.
func (s *Strings) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// CheckTags refuses, as a usage error, a --tag value that cannot name a
// ref (store.CheckTagName).
func CheckTags(tags []string) error {
	for _, t := range tags {
		if err := store.CheckTagName(t); err != nil {
			return Usagef("--tag: %v", err)
		}
	}
	return nil
}

// FirstBool is a boolean flag that keeps the first value it is given. Two
// flags that share one (-r and --recursive) stay as the command line set
// them: it is parsed before the environment, so -r is not undone by
// CTX_RECURSIVE=false. Flags win.
type FirstBool struct {
	Value, set bool
}

// String returns the value.
func (b *FirstBool) String() string {
	if b == nil {
		return "false"
	}
	return strconv.FormatBool(b.Value)
}

// Set takes the value, unless one was given before.
func (b *FirstBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	if !b.set {
		b.Value, b.set = v, true
	}
	return nil
}

// IsBoolFlag lets the flag stand without a value.
func (b *FirstBool) IsBoolFlag() bool { return true }

// Shared is a string flag whose CTX_ variable another verb reads too,
// for values of another kind: CTX_FROM and CTX_TO are ctx convert's
// formats and ctx capture's and ctx restore's agents. On the command
// line every value is the verb's (its Check judges it); from the
// environment, a value Accept refuses is left to the other verb: the
// flag keeps its default, and Ignored holds the value, for the verb's
// note (IgnoredNote).
type Shared struct {
	Value   string
	Accept  func(string) bool
	Ignored string
}

// String returns the value.
func (s *Shared) String() string {
	if s == nil {
		return ""
	}
	return s.Value
}

// Set takes a value of the command line.
func (s *Shared) Set(v string) error {
	s.Value = v
	return nil
}

// setEnv takes the variable's value, when it is one for this verb.
func (s *Shared) setEnv(v string) error {
	if s.Accept != nil && !s.Accept(v) {
		s.Ignored = v
		return nil
	}
	s.Value = v
	return nil
}

// IgnoredNote is the note of a variable left to another verb, "" when
// none was: `CTX_TO="atif" is not an agent: left out (ctx convert's ...)`.
func (s *Shared) IgnoredNote(flagName, what, whose string) string {
	if s.Ignored == "" {
		return ""
	}
	return fmt.Sprintf("%s=%q is not %s: left out (%s)", EnvName(flagName), s.Ignored, what, whose)
}
