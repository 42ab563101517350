package faults_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/contextsubstrate/ctx/lib/pack"
)

// expectedHash computes the pack hash of a log without any store.
func expectedHash(t *testing.T, log string) string {
	t.Helper()
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := pack.Build(f, pack.HashSink{}, pack.Options{Root: filepath.Dir(log)})
	if err != nil {
		t.Fatal(err)
	}
	_, h, err := pack.Encode(res.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	return h.URI()
}

// job is one program run of a concurrent round.
type job struct {
	args   []string
	stdin  []byte
	stdout string
	stderr string
	code   int
}

// runAtOnce starts every job, then waits for all of them.
func runAtOnce(t *testing.T, dir string, jobs []*job) {
	t.Helper()
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(j.args[0], j.args[1:]...)
			cmd.Dir = dir
			if j.stdin != nil {
				cmd.Stdin = bytes.NewReader(j.stdin)
			}
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			<-start
			err := cmd.Run()
			j.stdout, j.stderr, j.code = stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
			if err != nil && cmd.ProcessState == nil {
				j.stderr, j.code = err.Error(), -1
			}
		}()
	}
	close(start)
	wg.Wait()
}

// TestConcurrentPacks runs eight ctx pack processes at once into one store,
// on runs that share most of their content, in three rounds: eight
// different runs, then four runs each packed by two processes at once, then
// eight new runs. Every pack succeeds with the hash its log gives, fsck
// finds the store intact after each round (no temporary file left
// either), refs/latest names one of the round's packs, and ctx log lists
// every pack.
func TestConcurrentPacks(t *testing.T) {
	dir := t.TempDir()
	st := ctxtest.NewStoreDir(t)
	first := ctxtest.OverlappingRuns(t, dir, "a", 8)
	second := ctxtest.OverlappingRuns(t, dir, "b", 8)
	rounds := [][]string{
		first,
		{first[0], first[0], first[1], first[1], second[6], second[6], second[7], second[7]},
		second,
	}
	all := map[string]bool{}
	for r, logs := range rounds {
		var jobs []*job
		want := map[string]bool{}
		for _, log := range logs {
			jobs = append(jobs, &job{args: []string{"ctx-pack", "--store", st, "--no-sidecars", log}})
		}
		runAtOnce(t, dir, jobs)
		for i, j := range jobs {
			h := expectedHash(t, logs[i])
			want[h], all[h] = true, true
			if j.code != 0 || strings.TrimSpace(j.stdout) != h {
				t.Errorf("round %d, pack %d: exit %d, %q, want %s\n%s", r, i, j.code, j.stdout, h, j.stderr)
			}
		}
		ctxtest.CheckIntact(t, st, fmt.Sprintf("round %d", r))
		if ref := "ctx://" + ctxtest.ReadRef(t, st); !want[ref] {
			t.Errorf("round %d: refs/latest names %s, not a pack of the round", r, ref)
		}
		got := ctxtest.LogHashes(t, st)
		for h := range all {
			if !got[h] {
				t.Errorf("round %d: ctx log does not list %s", r, h)
			}
		}
		if len(got) != len(all) {
			t.Errorf("round %d: ctx log lists %d packs, want %d", r, len(got), len(all))
		}
	}
}

// TestConcurrentVerbs runs, at once on one store, four packs, two imports
// of a tar from another store, two forks (which write drafts), two ctx log,
// a fsck, a show and an export, in two rounds. Every command succeeds;
// fsck, even while the others write, finds nothing; afterwards the store
// is intact, refs/latest names a pack, the imported packs are whole and
// listed, and the drafts pack back to packs that keep their parent.
func TestConcurrentVerbs(t *testing.T) {
	dir := t.TempDir()
	st := ctxtest.NewStoreDir(t)
	base := ctxtest.OverlappingRuns(t, dir, "base", 1)[0]
	parent := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", st, "--no-sidecars", base))

	for r := 0; r < 2; r++ {
		other := ctxtest.NewStoreDir(t)
		imported := ctxtest.OverlappingRuns(t, dir, fmt.Sprintf("imp%d", r), 2)
		var importedHashes []string
		for _, log := range imported {
			importedHashes = append(importedHashes, strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", other, "--no-sidecars", log)))
		}
		tarPath := filepath.Join(dir, fmt.Sprintf("round%d.tar", r))
		ctxtest.Must(t, dir, "ctx-export", "--store", other, "--all", "-o", tarPath)

		logs := ctxtest.OverlappingRuns(t, dir, fmt.Sprintf("r%d", r), 4)
		var jobs []*job
		for _, log := range logs {
			jobs = append(jobs, &job{args: []string{"ctx-pack", "--store", st, "--no-sidecars", log}})
		}
		for i := 0; i < 2; i++ {
			jobs = append(jobs,
				&job{args: []string{"ctx-import", "--store", st, tarPath}},
				&job{args: []string{"ctx-fork", "--store", st, "--model", fmt.Sprintf("fork-%d-%d", r, i), "-o", filepath.Join(dir, fmt.Sprintf("draft-%d-%d.json", r, i)), parent}},
				&job{args: []string{"ctx-log", "--store", st, "--json"}},
			)
		}
		jobs = append(jobs,
			&job{args: []string{"ctx-fork", "--store", st, parent}}, // into .ctx/drafts/
			&job{args: []string{"ctx-fsck", "--store", st}},
			&job{args: []string{"ctx-show", "--store", st, "--json", parent}},
			&job{args: []string{"ctx-export", "--store", st, "-o", filepath.Join(dir, fmt.Sprintf("out%d.tar", r)), parent}},
		)
		runAtOnce(t, dir, jobs)
		for _, j := range jobs {
			if j.code != 0 {
				t.Errorf("round %d: %s: exit %d\n%s%s", r, strings.Join(j.args, " "), j.code, j.stdout, j.stderr)
			}
		}
		for i, log := range logs {
			if want := expectedHash(t, log); strings.TrimSpace(jobs[i].stdout) != want {
				t.Errorf("round %d: pack of %s printed %q, want %s", r, log, jobs[i].stdout, want)
			}
		}

		ctxtest.CheckIntact(t, st, fmt.Sprintf("round %d", r))
		ref := "ctx://" + ctxtest.ReadRef(t, st)
		got := ctxtest.LogHashes(t, st)
		if !got[ref] {
			t.Errorf("round %d: refs/latest names %s, which ctx log does not list", r, ref)
		}
		for _, h := range importedHashes {
			if !got[h] {
				t.Errorf("round %d: imported pack %s is not listed", r, h)
			}
			ctxtest.Must(t, dir, "ctx-verify", "--store", st, h)
		}
		for i := 0; i < 2; i++ {
			draft := filepath.Join(dir, fmt.Sprintf("draft-%d-%d.json", r, i))
			h := strings.TrimSpace(ctxtest.Must(t, filepath.Dir(base), "ctx-pack", "--store", st, "--no-sidecars", "--root", filepath.Dir(base), draft))
			out := ctxtest.Must(t, dir, "ctx-show", "--store", st, "--json", h)
			var m struct{ Parent string }
			if err := json.Unmarshal([]byte(out), &m); err != nil || "ctx://"+strings.TrimPrefix(m.Parent, "sha256:") != parent {
				t.Errorf("round %d: the pack of a draft has parent %q, want %s (%v)", r, m.Parent, parent, err)
			}
		}
	}
}
