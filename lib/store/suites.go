package store

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// suitesDir holds the refs that name suites: refs/suites/NAME holds the
// hash of a suite object (ctx suite), as refs/tags/NAME that of a pack.
// A suite's name follows the rules of a tag's (CheckTagName), and the two
// namespaces never meet: a suite name is never a pack name.
const suitesDir = "refs/suites"

// CheckSuiteName is CheckTagName for the name of a suite.
func CheckSuiteName(name string) error {
	if err := CheckTagName(name); err != nil {
		return errors.New(strings.Replace(err.Error(), "tag name", "suite name", 1))
	}
	return nil
}

func (s *Store) suitePath(name string) string { return filepath.Join(s.root, suitesDir, name) }

// ReadSuiteRef returns the hash refs/suites/NAME names.
func (s *Store) ReadSuiteRef(name string) (Hash, error) {
	if err := CheckSuiteName(name); err != nil {
		return Hash{}, err
	}
	return s.readRefAt(s.suitePath(name), SuiteLabel(name))
}

// WriteSuiteRef points refs/suites/NAME at h atomically, whatever it
// named.
func (s *Store) WriteSuiteRef(name string, h Hash) error {
	return s.UpdateSuiteRef(name, func(Hash, error) (Hash, error) { return h, nil })
}

// UpdateSuiteRef is UpdateRef for refs/suites/NAME: decide sees what it
// names now and returns what it is to name (the zero Hash deletes it),
// with no other writer of a suite ref between the two. Swap(SuiteLabel(name),
// old, h) makes it a compare and swap.
func (s *Store) UpdateSuiteRef(name string, decide func(old Hash, err error) (Hash, error)) error {
	if err := CheckSuiteName(name); err != nil {
		return err
	}
	return s.updateRefAt(s.suitePath(name), SuiteLabel(name), decide)
}

// SuiteLabel is how messages name the suite ref NAME: suite "NAME".
func SuiteLabel(name string) string { return fmt.Sprintf("suite %q", name) }

// SuiteRefs returns the names of refs/suites/, sorted.
func (s *Store) SuiteRefs() ([]string, error) {
	dir := filepath.Join(s.root, suitesDir)
	if err := s.CheckDir(dir); err != nil {
		return nil, err
	}
	names, err := readNames(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	out := names[:0]
	for _, n := range names {
		if CheckTagName(n) == nil {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}
