package faults_test

import (
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/store"
)

// The tests of this file run the real ctx-* programs (ctxCmd,
// helpers_test.go).

// TestPackKilled kills ctx pack with SIGKILL at many points while it
// stores a large run by path (2,000 files and two of 4 MiB), each time
// into a fresh store. After each kill ctx fsck must find no partial object
// under a final name, no manifest naming a missing blob, no ref naming a
// missing pack: the only leftovers allowed are temporary files (which fsck
// ignores while they are young) and, when the kill fell between the
// manifest and its index entry, that whole pack unindexed. Then the same
// pack must complete, with the same hash, and --prune-tmp must leave the
// store intact.
//
// The stores are in memory where the machine allows (memStoreDir). The
// kill points are not times, which a loaded machine makes meaningless,
// but states of the store watched from outside: so many temporary files
// written, all of them written, the first objects linked, half of them
// linked, the manifest there, the index entry there. The last ones are
// brief and a kill may come too late for them (the fault tests of
// lib/store reach every write in-process); the test needs the long phases
// to have been interrupted.
func TestPackKilled(t *testing.T) {
	log := ctxtest.WriteLargeRun(t, 2000, 2, 4<<20)
	prog, err := exec.LookPath("ctx-pack")
	if err != nil {
		t.Fatal(err)
	}
	st := ctxtest.MemStoreDir(t)
	want := strings.TrimSpace(ctxtest.Must(t, "", prog, "--store", st, "--no-sidecars", log))
	hx := strings.TrimPrefix(want, "ctx://")
	const files = 2000 + 2 + 2 // inputs, the prompt and the step output

	points := []struct {
		name string
		at   func(st string, peak int) bool
		long bool // a phase long enough that the kill must land in it
	}{
		{"first temporary file", func(st string, _ int) bool { return ctxtest.Temps(st) >= 1 }, true},
		{"a third written", func(st string, _ int) bool { return ctxtest.Temps(st) >= files/3 }, true},
		{"two thirds written", func(st string, _ int) bool { return ctxtest.Temps(st) >= 2*files/3 }, true},
		{"all written", func(st string, _ int) bool { return ctxtest.Temps(st) >= files }, false},
		{"links begun", func(st string, _ int) bool { return linked(st) > 0 }, false},
		{"half linked", func(st string, peak int) bool { return peak >= files && ctxtest.Temps(st) <= files/2 }, false},
		{"manifest stored", func(st string, _ int) bool { return exists(st, "objects", hx[:2], hx[2:]) }, false},
		{"index entry written", func(st string, _ int) bool { return inIndex(st, hx) }, false},
	}
	for i, p := range points {
		st := ctxtest.MemStoreDir(t)
		killed, err := ctxtest.KillAt(t, exec.Command(prog, "--store", st, "--no-sidecars", log), st, p.at)
		if !killed && err != nil {
			t.Fatalf("kill %d: ctx pack failed on its own: %v", i, err)
		}
		phase := storePhase(t, st, want)
		t.Logf("kill at %-22s killed=%-5v %s", p.name+":", killed, phase)
		if p.long && !killed {
			t.Errorf("kill at %s: the pack finished first", p.name)
		}

		// Fresh temporaries belong to a writer that may still be running:
		// with its default age fsck leaves them alone, and finds nothing
		// else but, at worst, the killed pack whole and unindexed.
		for _, pr := range ctxtest.Fsck(t, st) {
			if pr.Kind != "unindexed" || pr.Object != "sha256:"+hx {
				t.Errorf("kill at %s (%s): fsck: %s %s: %s", p.name, phase, pr.Kind, pr.Object, pr.Detail)
			}
		}

		out := ctxtest.Must(t, "", prog, "--store", st, "--no-sidecars", log)
		if got := strings.TrimSpace(out); got != want {
			t.Errorf("kill at %s: packing again gave %s, want %s", p.name, got, want)
		}
		// The killed pack's temporary files are its only leftovers, all
		// in tmp/ or beside a ref or index entry: pruned, the store is
		// intact (exit 0: every problem found was repaired).
		if ps := ctxtest.Fsck(t, st, "--prune-tmp", "--tmp-age", "0s"); len(ps) > 0 {
			t.Errorf("kill at %s: after packing again and pruning: %v", p.name, ps)
		}
		if ref := ctxtest.ReadRef(t, st); ref != hx {
			t.Errorf("kill at %s: refs/latest is %s, want %s", p.name, ref, hx)
		}
	}
}

// linked estimates, the same way, the objects under their final names.
func linked(st string) int {
	_, l := ctxtest.CountObjects(st, true)
	return l
}

func exists(st string, elem ...string) bool {
	_, err := os.Lstat(filepath.Join(append([]string{st}, elem...)...))
	return err == nil
}

// indexedPacks reads the index of the store st as ctx log does: the packs
// with an entry, in its log or in a file of an earlier version.
func indexedPacks(st string) map[string]bool {
	s, err := store.Open(st)
	if err != nil {
		return nil
	}
	hashes, _ := s.IndexedPacks()
	out := make(map[string]bool, len(hashes))
	for _, h := range hashes {
		out[h.Hex()] = true
	}
	return out
}

// inIndex reports whether pack hx has an entry in the index of st.
func inIndex(st, hx string) bool { return indexedPacks(st)[hx] }

// storePhase says how far a killed pack got, for the log of the test.
func storePhase(t *testing.T, st, want string) string {
	t.Helper()
	hx := strings.TrimPrefix(want, "ctx://")
	_, err := os.Stat(filepath.Join(st, "objects", hx[:2], hx[2:]))
	manifest := err == nil
	indexed := inIndex(st, hx)
	tmp, objects := ctxtest.CountObjects(st, false)
	return fmt.Sprintf("tmp=%d objects=%d manifest=%v indexed=%v ref=%v", tmp, objects, manifest, indexed, ctxtest.ReadRef(t, st) != "")
}

// killWhileStoring kills prog, run with args into fresh stores, with
// SIGKILL at states of the store while it stores the pack want of n
// objects, manifest included, in one batch (ctx import, ctx pull): so
// many written, all written, links begun, half linked, a few left to
// link, the manifest linked. A manifest must never be visible without
// every object it names, so fsck finds nothing but, after the manifest,
// the whole pack unindexed; running prog again completes, --prune-tmp
// leaves the store intact, and ctx verify passes.
func killWhileStoring(t *testing.T, prog string, args func(st string) []string, want string, n int) {
	t.Helper()
	hx := strings.TrimPrefix(want, "ctx://")
	verb := strings.Replace(filepath.Base(prog), "-", " ", 1)
	points := []struct {
		name string
		at   func(st string, peak int) bool
		long bool
	}{
		{"a third written", func(st string, _ int) bool { return ctxtest.Temps(st) >= n/3 }, true},
		{"all written", func(st string, _ int) bool { return ctxtest.Temps(st) >= n }, false},
		{"links begun", func(st string, _ int) bool { return linked(st) > 0 }, false},
		{"half linked", func(st string, peak int) bool { return peak >= n && ctxtest.Temps(st) <= n/2 }, false},
		{"a few left to link", func(st string, peak int) bool { return peak >= n && ctxtest.Temps(st) <= 3 }, false},
		{"manifest linked", func(st string, _ int) bool { return exists(st, "objects", hx[:2], hx[2:]) }, false},
	}
	for _, p := range points {
		st := ctxtest.MemStoreDir(t)
		killed, err := ctxtest.KillAt(t, exec.Command(prog, args(st)...), st, p.at)
		if !killed && err != nil {
			t.Fatalf("kill at %s: %s failed on its own: %v", p.name, verb, err)
		}
		phase := storePhase(t, st, want)
		t.Logf("kill at %-20s killed=%-5v %s", p.name+":", killed, phase)
		if p.long && !killed {
			t.Errorf("kill at %s: %s finished first", p.name, verb)
		}
		for _, pr := range ctxtest.Fsck(t, st) {
			if pr.Kind != "unindexed" || pr.Object != "sha256:"+hx {
				t.Errorf("kill at %s (%s): fsck: %s %s: %s", p.name, phase, pr.Kind, pr.Object, pr.Detail)
			}
		}
		if got := strings.TrimSpace(ctxtest.Must(t, "", prog, args(st)...)); got != want {
			t.Errorf("kill at %s: %s again printed %s, want %s", p.name, verb, got, want)
		}
		if ps := ctxtest.Fsck(t, st, "--prune-tmp", "--tmp-age", "0s"); len(ps) > 0 {
			t.Errorf("kill at %s: after %s again and pruning: %v", p.name, verb, ps)
		}
		ctxtest.Must(t, "", "ctx-verify", "--store", st, want)
	}
}

// TestImportKilled kills ctx import with SIGKILL at states of the store
// while it stores a stream of 1,000 objects: so many written, all written,
// links begun, half linked, the manifest linked. A manifest must never be
// visible without every object it names (import links manifests last), so
// fsck finds nothing but, after the manifest, the whole pack unindexed;
// importing again completes, and --prune-tmp leaves the store intact.
// (Before import linked manifests last, the kill at "half linked" found
// the manifest visible with hundreds of its blobs still in tmp/.)
func TestImportKilled(t *testing.T) {
	log := ctxtest.WriteLargeRun(t, 1000, 2, 4<<20)
	src := ctxtest.MemStoreDir(t)
	want := strings.TrimSpace(ctxtest.Must(t, "", "ctx-pack", "--store", src, "--no-sidecars", log))
	tarball := filepath.Join(t.TempDir(), "run.tar")
	ctxtest.Must(t, "", "ctx-export", "--store", src, "-o", tarball, want)
	prog, err := exec.LookPath("ctx-import")
	if err != nil {
		t.Fatal(err)
	}
	const objects = 1000 + 2 + 2 + 1 // inputs, prompt, step output, manifest
	killWhileStoring(t, prog, func(st string) []string { return []string{"--store", st, tarball} }, want, objects)
}
