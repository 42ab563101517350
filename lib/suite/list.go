package suite

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Entry is a suite as ctx suite list and ctx suite rm print it: its runs
// counted by verdict, as ctx suite show counts them.
type Entry struct {
	Name  string `json:"name"`
	Suite string `json:"suite"` // ctx://<hex> of the suite object
	Counts
	Tasks int `json:"tasks"`
}

func entryOf(s *Named) Entry {
	return Entry{Name: s.Name, Suite: s.Hash.URI(), Counts: Judging{}.count(s.Runs), Tasks: countTasks(s.Runs)}
}

// List returns every suite of refs/suites/, sorted by name, and the
// suites that cannot be read (a damaged ref or object: ctx fsck says
// more), which are left out.
func List(st *store.Store) ([]Entry, []error, error) {
	names, err := st.SuiteRefs()
	if err != nil {
		return nil, nil, err
	}
	out := []Entry{}
	var bad []error
	for _, n := range names {
		s, err := Load(st, n)
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // removed meanwhile
		case err != nil:
			bad = append(bad, err)
			continue
		}
		out = append(out, entryOf(s))
	}
	return out, bad, nil
}

// NoSuiteError says suites to remove do not exist; nothing was removed.
type NoSuiteError struct{ Names []string }

func (e *NoSuiteError) Error() string {
	q := make([]string, len(e.Names))
	for i, n := range e.Names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return "no suite named " + q[0]
	}
	return "no suites named " + strings.Join(q, ", ")
}

// Is makes errors.Is(err, store.ErrNotFound) true.
func (e *NoSuiteError) Is(target error) bool { return target == store.ErrNotFound }

// ErrorHints say where the names are.
func (e *NoSuiteError) ErrorHints() []string {
	return []string{"'ctx suite list' lists the suites; nothing was removed"}
}

// Remove deletes the refs of the suites names, as ctx tag -d deletes
// tags: each must exist, else nothing is removed. It returns each with
// what it named at the moment it went. The suite objects and their packs
// stay: a pack stays while the index keeps it (ctx rm takes it out), and
// what nothing keeps any more goes at the next ctx gc.
func Remove(st *store.Store, names []string) ([]Entry, error) {
	var missing []string
	for _, n := range names {
		if err := store.CheckSuiteName(n); err != nil {
			if n != strings.TrimPrefix(strings.TrimPrefix(n, "ctx://"), "sha256:") {
				return nil, text.WithHints(fmt.Errorf("%s names a suite object, not a suite's name: ctx suite rm removes names", n),
					"'ctx suite list' lists the names; an object no name keeps goes at the next 'ctx gc'")
			}
			return nil, err
		}
		if _, err := st.ReadSuiteRef(n); errors.Is(err, store.ErrNotFound) {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, &NoSuiteError{Names: missing}
	}
	unlock, err := st.LockWrites()
	if err != nil {
		return nil, err
	}
	defer unlock()
	out := []Entry{}
	for _, n := range names {
		e := Entry{Name: n}
		err := st.UpdateSuiteRef(n, func(old store.Hash, err error) (store.Hash, error) {
			switch {
			case err == nil:
				e.Suite = old.URI()
				if s, err := loadObject(st, n, old); err == nil {
					e = entryOf(s)
				}
			case errors.Is(err, store.ErrNotFound):
				return store.Hash{}, err
			}
			return store.Hash{}, nil // a damaged ref goes all the same
		})
		switch {
		case errors.Is(err, store.ErrNotFound):
			continue // removed meanwhile by another process
		case err != nil:
			return out, err
		}
		out = append(out, e)
	}
	return out, nil
}

// WriteListHuman prints a line per suite: its name, the short hash of its
// object and its counts, each line after lead ("removed suite ").
func WriteListHuman(w io.Writer, suites []Entry, lead string) error {
	b := bufio.NewWriter(w)
	width := 0
	for _, s := range suites {
		width = max(width, len(s.Name))
	}
	for _, s := range suites {
		short := strings.TrimPrefix(s.Suite, "ctx://")
		fmt.Fprintf(b, "%s%-*s %s  %s, %s: %s\n", lead, width, s.Name, short[:min(12, len(short))],
			text.Plural(s.Tasks, "task"), text.Plural(s.Runs, "run"), s.Counts.Sentence())
	}
	return b.Flush()
}
