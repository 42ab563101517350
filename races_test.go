package ctx_test

import (
	"fmt"
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
	st := newStoreDir(t)
	const runs = 40
	var logs []string
	for i := 0; i < runs; i++ {
		p := filepath.Join(dir, fmt.Sprintf("run-%d.json", i))
		writeFile(t, p, []byte(fmt.Sprintf(`{"created": "2026-01-01T00:00:%02dZ", "model": {"identifier": "m"}, "prompts": [{"content": "run %d"}], "steps": []}`, i%60, i)))
		logs = append(logs, p)
	}
	// One pack that stays, so refs/latest moves to it each time.
	keep := filepath.Join(dir, "keep.json")
	writeFile(t, keep, []byte(`{"created": "2025-01-01T00:00:00Z", "model": {"identifier": "m"}, "prompts": [], "steps": []}`))
	kept := strings.TrimSpace(mustCtx(t, dir, "ctx-pack", "--store", st, "--no-sidecars", keep))

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
		h := strings.TrimSpace(mustCtx(t, dir, "ctx-pack", "--store", st, "--no-sidecars", log))
		mustCtx(t, dir, "ctx-rm", "--store", st, h)
		removed = append(removed, h)
	}
	done.Store(true)
	readers.Wait()
	for _, w := range warnings {
		t.Errorf("ctx log beside ctx rm: %s", w)
	}
	listed := logHashes(t, st)
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
	mustCtx(t, dir, "ctx-gc", "--store", st, "--prune=now")
	checkIntact(t, st, "after gc")
}
