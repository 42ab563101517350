package faults_test

import (
	"encoding/json"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestLogBesideRm runs ctx log in two loops while packs are made and
// removed one after the other: ctx log is a reader and must never put back
// what ctx rm took out. Before the fix, ctx log rebuilt the index entry of
// a pack refs/latest still named while ctx rm was between removing its
// entry and moving refs/latest (and of an entry it listed just before rm
// deleted it), with "had no index entry; rebuilt it": the removed pack came
// back, listed and kept by gc.
func TestLogBesideRm(t *testing.T) {
	dir := t.TempDir()
	st := ctxtest.NewStoreDir(t)
	const runs = 40
	var logs []string
	for i := 0; i < runs; i++ {
		p := filepath.Join(dir, fmt.Sprintf("run-%d.json", i))
		ctxtest.WriteFile(t, p, []byte(fmt.Sprintf(`{"created": "2026-01-01T00:00:%02dZ", "model": {"identifier": "m"}, "prompts": [{"content": "run %d"}], "steps": []}`, i%60, i)))
		logs = append(logs, p)
	}
	// One pack that stays, so refs/latest moves to it each time.
	keep := filepath.Join(dir, "keep.json")
	ctxtest.WriteFile(t, keep, []byte(`{"created": "2025-01-01T00:00:00Z", "model": {"identifier": "m"}, "prompts": [], "steps": []}`))
	kept := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", st, "--no-sidecars", keep))

	var done atomic.Bool
	var mu sync.Mutex
	var warnings []string
	var readers sync.WaitGroup
	for r := 0; r < 2; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for !done.Load() {
				_, errOut, ok := runProg(dir, "ctx-log", "--store", st, "--json")
				if !ok || errOut != "" {
					mu.Lock()
					warnings = append(warnings, errOut)
					mu.Unlock()
				}
			}
		}()
	}
	var removed []string
	for _, log := range logs {
		h := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", st, "--no-sidecars", log))
		ctxtest.Must(t, dir, "ctx-rm", "--store", st, h)
		removed = append(removed, h)
	}
	done.Store(true)
	readers.Wait()
	for _, w := range warnings {
		t.Errorf("ctx log beside ctx rm: %s", w)
	}
	listed := ctxtest.LogHashes(t, st)
	index := indexedPacks(st)
	back := 0
	for _, h := range removed {
		if listed[h] || index[strings.TrimPrefix(h, "ctx://")] {
			back++
		}
	}
	if back > 0 {
		t.Errorf("%d of %d removed packs came back into the index", back, len(removed))
	}
	if len(listed) != 1 || !listed[kept] {
		t.Errorf("ctx log lists %v, want only %s", listed, kept)
	}
	// gc deletes every removed pack.
	ctxtest.Must(t, dir, "ctx-gc", "--store", st, "--prune=now")
	ctxtest.CheckIntact(t, st, "after gc")
}

// TestSuiteAddRace starts two ctx suite add of one name at once, many
// times, each with other runs: a suite ref is changed by a compare and
// swap, so no suite is ever lost unseen. Without -f exactly one wins, and
// the other fails (exit 2) saying the name is taken or that another
// process changed it. With -f over a suite already there, either one
// wins and the other fails so, or both win one after the other and the
// later says which suite it replaced. Before the compare and swap both
// exited 0 and the ref named the last writer's. Afterwards ctx gc keeps
// every winner, whole, and the store is intact.
func TestSuiteAddRace(t *testing.T) {
	dir := t.TempDir()
	st := ctxtest.NewStoreDir(t)
	var logs [2]string
	for i := range logs {
		var b strings.Builder
		for task := 0; task < 40; task++ {
			fmt.Fprintf(&b, `{"event":"run","model":{"identifier":"m"},"task":{"id":"t%d"},"outcome":{"passed":%v}}`+"\n", task, (task+i)%3 != 0)
			fmt.Fprintf(&b, `{"event":"step","tool":"bash","parameters":{"command":"make"},"output":"side %d task %d"}`+"\n", i, task)
		}
		logs[i] = filepath.Join(dir, fmt.Sprintf("side%d.ndjson", i))
		ctxtest.WriteFile(t, logs[i], []byte(b.String()))
	}
	type outcome struct {
		code            int
		suite, previous string
		stderr          string
	}
	race := func(name string, force bool) [2]outcome {
		var out [2]outcome
		var wg sync.WaitGroup
		for i := range logs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := []string{"ctx-suite", "add", "--store", st, "--json", name, logs[i]}
				if force {
					args = append(args, "-f")
				}
				stdout, stderr, ok := runProg(dir, args...)
				var rep struct{ Suite, Previous string }
				out[i] = outcome{code: 2, stderr: stderr}
				if ok && json.Unmarshal([]byte(stdout), &rep) == nil {
					out[i] = outcome{code: 0, suite: rep.Suite, previous: rep.Previous, stderr: stderr}
				}
			}()
		}
		wg.Wait()
		return out
	}
	swapped := 0 // losers the compare and swap stopped, past the first look
	lost := func(o outcome) bool {
		if strings.Contains(o.stderr, "another process changed suite") {
			swapped++
			return false
		}
		return !strings.Contains(o.stderr, "already names")
	}
	winners := map[string]string{}
	const rounds = 15
	for round := range rounds {
		name := fmt.Sprintf("race%d", round)
		o := race(name, false)
		if (o[0].code == 0) == (o[1].code == 0) {
			t.Fatalf("round %d without -f: exits %d and %d, want one winner\n%s\n%s", round, o[0].code, o[1].code, o[0].stderr, o[1].stderr)
		}
		win, lose := o[0], o[1]
		if o[1].code == 0 {
			win, lose = o[1], o[0]
		}
		if lost(lose) {
			t.Fatalf("round %d without -f: the loser does not say why: %s", round, lose.stderr)
		}
		winners[name] = win.suite

		// Again with -f, over the winner: one side's runs are the
		// winner's, so its add may change nothing.
		o = race(name, true)
		out, _, _ := runProg(dir, "ctx-suite", "show", "--json", "--store", st, name)
		var shown struct{ Suite string }
		json.Unmarshal([]byte(out), &shown)
		won := 0
		for i, w := range o {
			other := o[1-i]
			switch {
			case w.code != 0 && lost(w):
				t.Fatalf("round %d with -f: a loser does not say why: %s", round, w.stderr)
			case w.code != 0:
			case w.suite != shown.Suite && (other.code != 0 || other.previous != w.suite):
				t.Fatalf("round %d with -f: %s was recorded, then replaced unsaid (the name names %s; the other: exit %d, replaced %q)",
					round, w.suite, shown.Suite, other.code, other.previous)
			default:
				won++
			}
		}
		if won == 0 || shown.Suite != o[0].suite && shown.Suite != o[1].suite {
			t.Fatalf("round %d with -f: suite %s names %s; the adds printed %q and %q\n%s\n%s", round, name, shown.Suite, o[0].suite, o[1].suite, o[0].stderr, o[1].stderr)
		}
		winners[name] = shown.Suite
	}
	t.Logf("%d rounds: %d losers stopped by the compare and swap", rounds, swapped)
	ctxtest.Must(t, dir, "ctx-gc", "--store", st, "--prune=now")
	for name, want := range winners {
		out := ctxtest.Must(t, dir, "ctx-suite", "show", "--json", "--store", st, name)
		var shown struct {
			Suite string
			Tasks []struct{ Pack string }
		}
		if err := json.Unmarshal([]byte(out), &shown); err != nil || shown.Suite != want || len(shown.Tasks) != 40 {
			t.Fatalf("after gc, suite %s: %s (want %s)", name, out, want)
		}
		for _, task := range shown.Tasks {
			ctxtest.Must(t, dir, "ctx-verify", "--store", st, task.Pack)
		}
	}
	ctxtest.CheckIntact(t, st, "after the races and gc")
}

// TestTagRace starts two ctx tag of one new name at once, each for another
// pack, many times: the tag is set by a compare and swap, so exactly one
// wins and the other fails (exit 2) saying the tag names the winner's pack
// already; before, both exited 0 and the tag named the last writer's.
func TestTagRace(t *testing.T) {
	dir := t.TempDir()
	st := ctxtest.NewStoreDir(t)
	var packs [2]string
	for i := range packs {
		p := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
		ctxtest.WriteFile(t, p, []byte(fmt.Sprintf(`{"model": {"identifier": "m"}, "prompts": [{"content": "run %d"}], "steps": []}`, i)))
		packs[i] = strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", st, "--no-sidecars", p))
	}
	for round := range 30 {
		name := fmt.Sprintf("v%d", round)
		var ok [2]bool
		var errs [2]string
		var wg sync.WaitGroup
		for i := range packs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i], ok[i] = runProg(dir, "ctx-tag", "--store", st, name, packs[i])
			}()
		}
		wg.Wait()
		if ok[0] == ok[1] {
			t.Fatalf("round %d: ctx tag exited ok=%v and ok=%v, want one winner\n%s\n%s", round, ok[0], ok[1], errs[0], errs[1])
		}
		win, lose := 0, 1
		if ok[1] {
			win, lose = 1, 0
		}
		if want := fmt.Sprintf("tag %q already names sha256:%s", name, strings.TrimPrefix(packs[win], "ctx://")); !strings.Contains(errs[lose], want) {
			t.Fatalf("round %d: the loser says %q, want %q", round, errs[lose], want)
		}
		out := ctxtest.Must(t, dir, "ctx-show", "--store", st, "--json", name)
		if !strings.Contains(out, `"hash":"sha256:`+strings.TrimPrefix(packs[win], "ctx://")) {
			t.Fatalf("round %d: tag %s does not name the winner's pack", round, name)
		}
	}
}
