package store

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestSwapIsCompareAndSwap: a swap writes only over what it expected,
// and says what it found instead; the zero hash deletes.
func TestSwapIsCompareAndSwap(t *testing.T) {
	st := newStore(t)
	a, b := Sum([]byte("a")), Sum([]byte("b"))
	label := SuiteLabel("nightly")
	if err := st.UpdateSuiteRef("nightly", Swap(label, Hash{}, a)); err != nil {
		t.Fatalf("swap over nothing: %v", err)
	}
	err := st.UpdateSuiteRef("nightly", Swap(label, Hash{}, b))
	var ch *ChangedError
	if !errors.As(err, &ch) || ch.Now != a || !ch.Want.IsZero() {
		t.Fatalf("swap expecting nothing over a = %v", err)
	}
	if got, _ := st.ReadSuiteRef("nightly"); got != a {
		t.Fatalf("a failed swap wrote %s", got)
	}
	if err := st.UpdateSuiteRef("nightly", Swap(label, a, b)); err != nil {
		t.Fatalf("swap a->b: %v", err)
	}
	if err := st.UpdateSuiteRef("nightly", Swap(label, a, Hash{})); !errors.As(err, &ch) || ch.Now != b {
		t.Fatalf("delete expecting a over b = %v", err)
	}
	if err := st.UpdateSuiteRef("nightly", Swap(label, b, Hash{})); err != nil {
		t.Fatalf("delete: %v", err)
	}
	if _, err := st.ReadSuiteRef("nightly"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted suite ref reads %v", err)
	}
	// Tags go the same way.
	if err := st.UpdateRef("v1", Swap(`tag "v1"`, Hash{}, a)); err != nil {
		t.Fatal(err)
	}
	if err := st.UpdateRef("v1", Swap(`tag "v1"`, Hash{}, b)); !errors.As(err, &ch) {
		t.Fatalf("tag swap over a = %v", err)
	}
	if err := st.DeleteRef("v1"); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteRef("v1"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleting a missing tag = %v", err)
	}
}

// TestSwapRacersOneWins: writers that each saw the ref name nothing race
// to name it, each through its own Store (its own descriptors, as
// separate processes have): exactly one wins each round, and every loser
// is told who won.
func TestSwapRacersOneWins(t *testing.T) {
	root := newStore(t).Root()
	const racers, rounds = 8, 50
	for round := range rounds {
		name := "r" + string(rune('a'+round%26)) + string(rune('a'+round/26))
		var wg sync.WaitGroup
		errs := make([]error, racers)
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				st, err := Open(root)
				if err != nil {
					errs[i] = err
					return
				}
				errs[i] = st.UpdateSuiteRef(name, Swap(SuiteLabel(name), Hash{}, Sum([]byte{byte(i)})))
			}()
		}
		wg.Wait()
		won := -1
		for i, err := range errs {
			var ch *ChangedError
			switch {
			case err == nil && won >= 0:
				t.Fatalf("round %d: racers %d and %d both won", round, won, i)
			case err == nil:
				won = i
			case !errors.As(err, &ch):
				t.Fatalf("round %d: racer %d: %v", round, i, err)
			}
		}
		st, _ := Open(root)
		if got, _ := st.ReadSuiteRef(name); won < 0 || got != Sum([]byte{byte(won)}) {
			t.Fatalf("round %d: winner %d, ref names %s", round, won, got)
		}
	}
}

// TestRefLockLeavesNothing: the lock is the directory's flock: no file
// is left beside the refs, and a planted symlink for the directory is
// refused, not locked through.
func TestRefLockLeavesNothing(t *testing.T) {
	st := newStore(t)
	if err := st.WriteSuiteRef("nightly", Sum([]byte("a"))); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(st.Root(), "refs", "suites"))
	if len(ents) != 1 || ents[0].Name() != "nightly" {
		t.Fatalf("refs/suites holds %v", ents)
	}
	other := t.TempDir()
	os.RemoveAll(filepath.Join(st.Root(), "refs", "tags"))
	if err := os.Symlink(other, filepath.Join(st.Root(), "refs", "tags")); err != nil {
		t.Fatal(err)
	}
	if err := st.WriteRef("v1", Sum([]byte("a"))); err == nil {
		t.Fatal("a tag was written through a symlinked refs/tags")
	}
	if ents, _ := os.ReadDir(other); len(ents) != 0 {
		t.Fatalf("the symlink's target holds %v", ents)
	}
}
