package cli

import "strings"

// Strings is a repeatable string flag (--tag a --tag b).
type Strings []string

// String returns the values joined by commas.
func (s *Strings) String() string { return strings.Join(*s, ",") }

// Set adds a value.
func (s *Strings) Set(v string) error {
	*s = append(*s, v)
	return nil
}
