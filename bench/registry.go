package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/contextsubstrate/ctx/internal/interop"
	"github.com/contextsubstrate/ctx/internal/registrytest"
)

// registry: ctx push of a pack of many files to a loopback registry (the
// CNCF distribution registry, docker-registry) against oras push of the
// same files; the same ctx push again, when the registry has every blob;
// and ctx pull of the pack into an empty store against oras pull of the
// same artifact. ctx and oras push to registries of their own, so emptying
// one before a first push leaves the other as it was. Without
// docker-registry and oras the rows are left out.
func (e benchEnv) registry() []workload {
	for _, need := range []string{"docker-registry", "oras"} {
		if _, err := interop.Look(need); err != nil {
			fmt.Fprintf(os.Stderr, "bench: the registry rows are left out: %v\n", err)
			return nil
		}
	}
	dir := filepath.Join(e.work, "registry")
	tree := filepath.Join(dir, "tree")
	src := filepath.Join(dir, "src", ".ctx")
	dst := filepath.Join(dir, "dst")
	var ctxReg, orasReg *registrytest.Registry
	var files []string
	prepare := once(func() error {
		if err := writeTree(tree, e.size.treeFiles, e.size.treeBytes); err != nil {
			return err
		}
		if err := writeTreeLog(tree, filepath.Join(dir, "log.json")); err != nil {
			return err
		}
		if err := runQuiet(dir, e.ctx("init", "src")...); err != nil {
			return err
		}
		if err := runQuiet(dir, e.ctx("pack", "--store", src, "--root", "tree", "--no-sidecars", "log.json")...); err != nil {
			return err
		}
		err := filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				rel, _ := filepath.Rel(tree, p)
				files = append(files, rel)
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, r := range []**registrytest.Registry{&ctxReg, &orasReg} {
			if *r, err = e.startRegistry(dir); err != nil {
				return err
			}
		}
		return nil
	})
	ref := func(r *registrytest.Registry) string { return r.Addr + "/bench/runs:v1" }
	push := func() []string { return e.ctx("push", "--store", src, "--plain-http", "latest", ref(ctxReg)) }
	// Each command's argv names a registry, known once prepare has
	// started it: each setup fills it in.
	argv := func(c *command, fill func() []string, then func() error) {
		c.setup = func() error {
			c.argv = fill()
			return then()
		}
	}
	empty := func(r **registrytest.Registry) func() error {
		return func() error {
			removeAll((*r).Storage)
			return nil
		}
	}
	pushed := func() error { return runQuiet(dir, push()...) }
	up := workload{
		name:    fmt.Sprintf("push %s files, %s, to a registry", count(e.size.treeFiles), mb(int64(e.size.treeBytes))),
		prepare: prepare,
		cmds: []command{
			{label: "ctx push (empty registry)", dir: dir},
			{label: "oras push of the files (empty registry)", dir: tree, peer: "oras push"},
			{label: "ctx push again (registry has it)", dir: dir},
		},
		targets: []target{{cmd: 0, peer: 1, max: 1}, {cmd: 2, peer: 0, max: 0.05}},
		rate:    rate{per: float64(e.size.treeBytes) / 1e6, unit: "MB/s"},
		note:    "the second ctx push finds the manifest in the registry and sends nothing",
		maxRuns: 2,
	}
	argv(&up.cmds[0], push, empty(&ctxReg))
	argv(&up.cmds[1], func() []string {
		return append([]string{"oras", "push", "--plain-http", ref(orasReg)}, files...)
	}, empty(&orasReg))
	argv(&up.cmds[2], push, pushed) // (pushed finds it there, but for the first run)

	down := workload{
		name: "pull the same from the registry",
		prepare: func() error {
			if err := prepare(); err != nil {
				return err
			}
			return pushed()
		},
		cmds: []command{
			{label: "ctx pull (fresh store)", dir: dir},
			{label: "oras pull (fresh directory)", dir: dir, peer: "oras pull"},
		},
		targets: []target{{cmd: 0, peer: 1, max: 1}},
		rate:    rate{per: float64(e.size.treeBytes) / 1e6, unit: "MB/s"},
		note:    "ctx pull verifies every blob and makes what it stores durable before it indexes the pack",
	}
	argv(&down.cmds[0], func() []string {
		return e.ctx("pull", "--store", filepath.Join(dst, ".ctx"), "--plain-http", ref(ctxReg))
	}, func() error {
		removeAll(dst)
		return runQuiet(dir, e.ctx("init", dst)...)
	})
	argv(&down.cmds[1], func() []string {
		return []string{"oras", "pull", "--plain-http", "-o", "oras-pulled", ref(ctxReg)}
	}, func() error {
		removeAll(filepath.Join(dir, "oras-pulled"))
		return os.MkdirAll(filepath.Join(dir, "oras-pulled"), 0o755)
	})
	return append([]workload{up, down}, e.suitePush()...)
}

// suitePush: ctx suite push of a suite of the bench's run stream (ctx
// suite add of suiteRuns runs, of a tenth of suiteSteps steps: the
// registry spends milliseconds on each blob, and 2,000 runs of 40 steps
// are 84,000 blobs, past the harness's five minutes a command) to an
// empty registry, against oras push of the same blobs (every object of
// every pack, and the pack's manifest), one artifact per run, eight at
// once (xargs -P 8) as a script would push them with oras: one artifact
// of all would be a manifest far over the 4 MiB a registry takes. Then
// the same ctx suite push again, when the registry has every pack.
func (e benchEnv) suitePush() []workload {
	steps := max(1, e.size.suiteSteps/10)
	dir := filepath.Join(e.work, "suitepush")
	st := filepath.Join(dir, "store", ".ctx")
	runs := filepath.Join(dir, "runs")
	missing := ""
	if _, err := os.Stat(filepath.Join(e.bin, "ctx-suite")); err != nil {
		missing = "no ctx-suite in " + e.bin
	}
	var ctxReg, orasReg *registrytest.Registry
	blobs := 0
	prepare := once(func() error {
		stream := filepath.Join(dir, "a.ndjson")
		if err := writeRunStream(stream, e.size.suiteRuns, steps, 'a'); err != nil {
			return err
		}
		if err := runQuiet(dir, e.ctx("init", filepath.Dir(st))...); err != nil {
			return err
		}
		if err := runQuiet(dir, "sh", "-c", `"$0" add --store "$1" baseline - < "$2"`, filepath.Join(e.bin, "ctx-suite"), st, stream); err != nil {
			return err
		}
		var err error
		if blobs, err = writeSuiteBlobs(st, "baseline", runs); err != nil {
			return err
		}
		for _, r := range []**registrytest.Registry{&ctxReg, &orasReg} {
			if *r, err = e.startRegistry(dir); err != nil {
				return err
			}
		}
		return nil
	})
	push := func() []string {
		return e.ctx("suite", "push", "--store", st, "--plain-http", "baseline", ctxReg.Addr+"/bench/evals:v1")
	}
	w := workload{
		name:    fmt.Sprintf("suite push of %s runs x %d steps to a registry", count(e.size.suiteRuns), steps),
		missing: missing,
		prepare: prepare,
		cmds: []command{
			{label: "ctx suite push (empty registry)", dir: dir},
			{label: "oras push of the same blobs, a run each, 8 at once (empty registry)", dir: runs, peer: "oras push"},
			{label: "ctx suite push again (registry has it)", dir: dir},
		},
		targets: []target{{cmd: 0, peer: 1, max: 1}, {cmd: 2, peer: 0, max: 0.05}},
		summary: func([]sample) string {
			return fmt.Sprintf("%s blobs: each run's %d outputs, its prompt and its manifest", count(blobs), steps)
		},
		note:    "ctx sends one OCI index of the packs' artifacts, each blob once; the second push finds the index tagged and sends nothing",
		maxRuns: 2,
	}
	empty := func(r **registrytest.Registry) error {
		removeAll((*r).Storage)
		return nil
	}
	w.cmds[0].setup = func() error {
		w.cmds[0].argv = push()
		return empty(&ctxReg)
	}
	w.cmds[1].setup = func() error {
		w.cmds[1].argv = []string{"sh", "-c", `ls | xargs -P 8 -I{} sh -c 'cd "$1" && exec oras push --plain-http "$0/bench/runs:r$1" * >/dev/null' "$0" {}`, orasReg.Addr}
		return empty(&orasReg)
	}
	w.cmds[2].setup = func() error {
		w.cmds[2].argv = push()
		return runQuiet(dir, push()...) // there, but for the first run
	}
	return []workload{w}
}

// startRegistry starts a registry for the rest of the bench. Its storage
// is in memory (/dev/shm) where the machine has it, so what the registry
// writes never waits on the disk other jobs use; the clients' own files
// are on disk as everywhere else.
func (e benchEnv) startRegistry(dir string) (*registrytest.Registry, error) {
	d, err := os.MkdirTemp("/dev/shm", "ctx-bench-registry-")
	if err != nil {
		if d, err = os.MkdirTemp(dir, "registry-"); err != nil {
			return nil, err
		}
	}
	r, err := registrytest.Start(registrytest.Options{Dir: d})
	if err != nil {
		return nil, err
	}
	*e.stops = append(*e.stops, func() { r.Stop(); removeAll(d) })
	return r, nil
}
