package suite

import (
	"errors"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/store"
)

const twoRuns = `{"event":"run","model":{"identifier":"m"},"task":{"id":"a"},"outcome":{"passed":true}}
{"event":"step","tool":"bash","parameters":{"command":"make"},"output":"ok"}
{"event":"run","model":{"identifier":"m"},"task":{"id":"b"},"outcome":{"passed":false}}
{"event":"step","tool":"bash","parameters":{"command":"make"},"output":"no"}
`

func addRuns(t *testing.T, st *store.Store, name, log string, force bool) (*Named, AddReport, error) {
	t.Helper()
	return Add(st, name, AddOptions{Sources: []string{"-"}, Stdin: strings.NewReader(log), Force: force})
}

// TestResolveNamesASuite: a suite is found by its name, its ctx:// name,
// sha256:, its full hex and a prefix; a pack's name is refused as a pack.
func TestResolveNamesASuite(t *testing.T) {
	st := storetest.New(t)
	s, _, err := addRuns(t, st, "nightly", twoRuns, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"nightly", s.Hash.URI(), s.Hash.String(), s.Hash.Hex(), s.Hash.Hex()[:8]} {
		got, err := Resolve(st, arg)
		if err != nil || got.Hash != s.Hash || len(got.Runs) != 2 {
			t.Errorf("Resolve(%q) = %v, %v", arg, got, err)
		}
	}
	if _, err := Resolve(st, "latest"); err == nil || err.Error() != "latest is a pack, not a suite" {
		t.Errorf("Resolve(latest) = %v", err)
	}
	if _, err := Resolve(st, "other"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Resolve(other) = %v", err)
	}
}

// TestAddKeepsANameInUse: a name in use is refused without force (before
// anything is packed), replaced with it, the report saying what it named.
func TestAddKeepsANameInUse(t *testing.T) {
	st := storetest.New(t)
	first, _, err := addRuns(t, st, "nightly", twoRuns, false)
	if err != nil {
		t.Fatal(err)
	}
	other := strings.ReplaceAll(twoRuns, `"output":"no"`, `"output":"fixed"`)
	_, _, err = addRuns(t, st, "nightly", other, false)
	var exists *ExistsError
	if !errors.As(err, &exists) || exists.Suite != first.Hash {
		t.Fatalf("add over a name in use: %v", err)
	}
	second, rep, err := addRuns(t, st, "nightly", other, true)
	if err != nil || rep.Previous != first.Hash.URI() || second.Hash == first.Hash {
		t.Fatalf("add -f: %+v, %v", rep, err)
	}
	// The same suite again with -f is no change and replaces nothing.
	if _, rep, err := addRuns(t, st, "nightly", other, true); err != nil || rep.Previous != "" {
		t.Fatalf("add -f of the same suite: %+v, %v", rep, err)
	}
}

// TestStoreIsACompareAndSwap: Store writes the name only over what Claim
// found; another suite recorded meanwhile is left and said.
func TestStoreIsACompareAndSwap(t *testing.T) {
	st := storetest.New(t)
	s, _, err := addRuns(t, st, "nightly", twoRuns, false)
	if err != nil {
		t.Fatal(err)
	}
	m := &Manifest{Kind: Kind, Version: Version, Runs: s.Runs[:1]}
	_, err = Store(st, "nightly", m, store.Hash{}) // as if Claim had found nothing
	var changed *store.ChangedError
	if !errors.As(err, &changed) || changed.Now != s.Hash {
		t.Fatalf("Store over a suite recorded meanwhile: %v", err)
	}
	if got, _ := st.ReadSuiteRef("nightly"); got != s.Hash {
		t.Fatalf("the suite recorded meanwhile was replaced by %s", got)
	}
	if h, err := Store(st, "nightly", m, s.Hash); err != nil || h == s.Hash {
		t.Fatalf("Store over what Claim found: %s, %v", h, err)
	}
}

// TestListAndRemove: list is sorted by name with counts; remove takes
// names only, all or nothing.
func TestListAndRemove(t *testing.T) {
	st := storetest.New(t)
	for _, n := range []string{"zeta", "alpha"} {
		if _, _, err := addRuns(t, st, n, twoRuns, false); err != nil {
			t.Fatal(err)
		}
	}
	list, bad, err := List(st)
	if err != nil || len(bad) > 0 || len(list) != 2 || list[0].Name != "alpha" || list[0].Runs != 2 || list[0].Tasks != 2 || list[0].Passed != 1 {
		t.Fatalf("List = %+v, %v, %v", list, bad, err)
	}
	if _, err := Remove(st, []string{"alpha", "nope"}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("Remove of a missing name = %v", err)
	}
	if _, err := Remove(st, []string{list[0].Suite}); err == nil || !strings.Contains(err.Error(), "names a suite object") {
		t.Fatalf("Remove by ctx:// = %v", err)
	}
	gone, err := Remove(st, []string{"alpha"})
	if err != nil || len(gone) != 1 || gone[0] != list[0] {
		t.Fatalf("Remove = %+v, %v", gone, err)
	}
	if list, _, _ := List(st); len(list) != 1 || list[0].Name != "zeta" {
		t.Fatalf("List after Remove = %+v", list)
	}
}

// TestIsRegistryRef tells a registry reference from a suite's names as
// docker tells a registry from a path.
func TestIsRegistryRef(t *testing.T) {
	for arg, want := range map[string]bool{
		"ghcr.io/acme/evals:baseline": true,
		"localhost:5000/evals":        true,
		"localhost/evals:v1":          true,
		"127.0.0.1:5000/a/b@sha256:0": true,
		"nightly":                     false,
		"ctx://abcd":                  false,
		"sha256:abcd":                 false,
		"bad/name":                    false,
		"":                            false,
	} {
		if got := IsRegistryRef(arg); got != want {
			t.Errorf("IsRegistryRef(%q) = %v", arg, got)
		}
	}
}
