package faults_test

import (
	"bytes"
	"fmt"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/contextsubstrate/ctx/internal/registrytest"
)

// run runs a ctx-* program from a goroutine (no t.Fatal there) and
// returns its stdout, stderr and whether it succeeded.
func runProg(dir string, args ...string) (string, string, bool) {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err == nil
}

// TestGCBesideWriters runs ctx gc --prune=now in a loop, the dangerous
// case (no grace period), while ctx pack, ctx import and ctx pull write
// into the same store runs that share most of their objects with packs
// removed just before: every writer finds old objects present and counts
// on them, and gc wants to delete exactly those. Two writers pack, remove
// and pack again; one imports a tar and removes what it imported; one
// pulls from a registry and removes what it pulled; ctx fsck runs in a
// loop too and finds nothing. Every command succeeds; afterwards ctx fsck
// finds the store intact (not even a
// temporary file), and every pack left in the index verifies whole: no
// pack lost an object. gc must have run many times meanwhile.
func TestGCBesideWriters(t *testing.T) {
	dir := t.TempDir()
	st := ctxtest.NewStoreDir(t)

	// A tar and a registry artifact of runs that share files with the
	// runs packed here.
	other := ctxtest.NewStoreDir(t)
	var tarPacks []string
	for _, log := range ctxtest.OverlappingRuns(t, dir, "tar", 2) {
		tarPacks = append(tarPacks, strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", other, "--no-sidecars", log)))
	}
	tarPath := filepath.Join(dir, "other.tar")
	ctxtest.Must(t, dir, "ctx-export", "--store", other, "--all", "-o", tarPath)
	reg := registrytest.New(t, nil)
	pulled := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", other, "--no-sidecars", ctxtest.OverlappingRuns(t, dir, "reg", 1)[0]))
	ref := reg.Addr + "/gc/pull:v1"
	ctxtest.Must(t, dir, "ctx-push", "--store", other, "--plain-http", pulled, ref)

	// Garbage to start with: packs removed, whose objects the writers
	// below will find present.
	for _, log := range ctxtest.OverlappingRuns(t, dir, "old", 3) {
		h := strings.TrimSpace(ctxtest.Must(t, dir, "ctx-pack", "--store", st, "--no-sidecars", log))
		ctxtest.Must(t, dir, "ctx-rm", "--store", st, h)
	}

	const rounds = 6
	var failures []string
	var mu sync.Mutex
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	ctx := func(args ...string) (string, bool) {
		out, errOut, ok := runProg(dir, append([]string{args[0], "--store", st}, args[1:]...)...)
		if !ok {
			fail("%s: %s", strings.Join(args, " "), errOut)
		}
		return strings.TrimSpace(out), ok
	}

	var writers sync.WaitGroup
	var done atomic.Bool
	var gcs atomic.Int32
	gcDone := make(chan struct{})
	go func() {
		defer close(gcDone)
		for !done.Load() || gcs.Load() < 3 {
			if _, ok := ctx("ctx-gc", "--prune=now"); !ok {
				return
			}
			gcs.Add(1)
		}
	}()
	// ctx fsck beside them all finds nothing: neither what writers have
	// in flight nor what gc is deleting.
	fsckDone := make(chan struct{})
	go func() {
		defer close(fsckDone)
		for !done.Load() {
			out, errOut, ok := runProg(dir, "ctx-fsck", "--store", st)
			if !ok {
				fail("ctx fsck beside gc and writers: %s%s", out, errOut)
				return
			}
		}
	}()
	for w := 0; w < 2; w++ {
		logs := ctxtest.OverlappingRuns(t, dir, fmt.Sprintf("w%d", w), rounds)
		writers.Add(1)
		go func() {
			defer writers.Done()
			for _, log := range logs {
				// Pack, remove (its objects become garbage), pack again
				// (finding them present), and leave it packed.
				h, ok := ctx("ctx-pack", "--no-sidecars", log)
				if !ok {
					return
				}
				if _, ok := ctx("ctx-rm", h); !ok {
					return
				}
				if again, ok := ctx("ctx-pack", "--no-sidecars", log); ok && again != h {
					fail("packing %s again gave %s, not %s", log, again, h)
				}
			}
		}()
	}
	writers.Add(2)
	go func() {
		defer writers.Done()
		for r := 0; r < rounds; r++ {
			if _, ok := ctx("ctx-import", tarPath); !ok {
				return
			}
			if r < rounds-1 {
				ctx(append([]string{"ctx-rm"}, tarPacks...)...)
			}
		}
	}()
	go func() {
		defer writers.Done()
		for r := 0; r < rounds; r++ {
			if _, ok := ctx("ctx-pull", "--plain-http", ref); !ok {
				return
			}
			if r < rounds-1 {
				ctx("ctx-rm", pulled)
			}
		}
	}()
	writers.Wait()
	done.Store(true)
	<-gcDone
	<-fsckDone
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("ctx gc ran %d times beside the writers", gcs.Load())

	ctxtest.CheckIntact(t, st, "after gc beside writers")
	listed := ctxtest.LogHashes(t, st)
	for _, h := range append(tarPacks, pulled) {
		if !listed[h] {
			t.Errorf("%s is not listed", h)
		}
	}
	if len(listed) != 2*rounds+len(tarPacks)+1 {
		t.Errorf("ctx log lists %d packs, want %d", len(listed), 2*rounds+len(tarPacks)+1)
	}
	for h := range listed {
		ctxtest.Must(t, dir, "ctx-verify", "--store", st, h)
	}
	// What was removed is gone once gc runs alone.
	ctxtest.Must(t, dir, "ctx-gc", "--store", st, "--prune=now")
	ctxtest.CheckIntact(t, st, "after a last gc")
}
