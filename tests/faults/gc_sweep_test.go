package faults_test

import (
	"encoding/json"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestNextWriterSweepsKilledWriters kills, with SIGKILL, a ctx pack part
// way through writing its objects and a ctx replay --save part way through
// its steps (an executor has written 20 MB of output, the next runs for a
// minute): each leaves its temporary files, tens of MB, and its marker in
// the store. The next writer, alone in the store, removes them all: none
// is left for ctx fsck to find, even with --tmp-age 0s.
func TestNextWriterSweepsKilledWriters(t *testing.T) {
	dir := t.TempDir()
	st := ctxtest.MemStoreDir(t)
	small := ctxtest.OverlappingRuns(t, dir, "next", 2)

	// A killed ctx pack.
	prog, err := exec.LookPath("ctx-pack")
	if err != nil {
		t.Fatal(err)
	}
	log := ctxtest.WriteLargeRun(t, 1000, 3, 8<<20)
	killed, err := ctxtest.KillAt(t, exec.Command(prog, "--store", st, "--no-sidecars", log), st, func(st string, _ int) bool { return ctxtest.Temps(st) >= 300 })
	if !killed {
		t.Fatalf("ctx pack was not killed: %v", err)
	}
	left, size := leftovers(t, st)
	t.Logf("a killed ctx pack left %d temporary files, %d bytes", left, size)
	if left < 100 {
		t.Fatalf("only %d temporary files left", left)
	}
	ctxtest.Must(t, dir, "ctx-pack", "--store", st, "--no-sidecars", small[0])
	if left, _ := leftovers(t, st); left != 0 {
		t.Errorf("the next ctx pack left %d of them", left)
	}
	ctxtest.CheckIntact(t, st, "after the next pack")

	// A killed ctx replay --save.
	cfg, _ := json.Marshal(map[string]any{"version": 1, "tools": map[string]any{
		"big":  map[string]any{"command": []string{"sh", "-c", "head -c 20000000 /dev/zero"}},
		"slow": map[string]any{"command": []string{"sleep", "60"}},
	}})
	ctxtest.WriteFile(t, filepath.Join(st, "config.json"), cfg)
	run := filepath.Join(dir, "replay.json")
	ctxtest.WriteFile(t, run, []byte(`{"created": "2026-01-01T00:00:00Z", "model": {"identifier": "m"}, "prompts": [],
		"steps": [{"tool": "big", "output": "x"}, {"tool": "slow", "output": ""}]}`))
	pack := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", st, "--no-sidecars", run))
	prog, err = exec.LookPath("ctx-replay")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(prog, "--store", st, "--save", pack)
	killed, err = ctxtest.KillAt(t, cmd, st, func(st string, _ int) bool { _, n := leftovers(t, st); return n >= 20000000 })
	if !killed {
		t.Fatalf("ctx replay --save was not killed: %v", err)
	}
	left, size = leftovers(t, st)
	t.Logf("a killed ctx replay --save left %d temporary files, %d bytes", left, size)
	ctxtest.Must(t, dir, "ctx-pack", "--store", st, "--no-sidecars", small[1])
	if left, _ := leftovers(t, st); left != 0 {
		t.Errorf("the next ctx pack left %d of them", left)
	}
	ctxtest.CheckIntact(t, st, "after the next pack")
}

// leftovers counts the temporary files of the store, and their bytes.
func leftovers(t *testing.T, st string) (n int, size int64) {
	t.Helper()
	filepath.Walk(st, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(st, p)
		if strings.HasPrefix(rel, "tmp"+string(filepath.Separator)) || strings.HasPrefix(fi.Name(), ".tmp-") {
			n++
			size += fi.Size()
		}
		return nil
	})
	return n, size
}
