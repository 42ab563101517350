package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// runStream: ctx pack - of a stream of many runs (the runs of an
// evaluation, one log after another) into a fresh store, against jq -c
// of the same file: the runs share commits, so the cost per run is its
// bytes, not a commit of its own.
func (e benchEnv) runStream() workload {
	dir := filepath.Join(e.work, "stream")
	stream := filepath.Join(dir, "runs.ndjson")
	st := filepath.Join(dir, "store")
	var size int64
	return workload{
		name: fmt.Sprintf("pack - of %s runs x %d steps (one stream)", count(e.size.suiteRuns), e.size.suiteSteps),
		prepare: func() error {
			if err := writeRunStream(stream, e.size.suiteRuns, e.size.suiteSteps, 0); err != nil {
				return err
			}
			fi, err := os.Stat(stream)
			size = fi.Size()
			return err
		},
		cmds: []command{
			{label: "ctx pack - < runs.ndjson (fresh store)", argv: e.ctx("pack", "--no-sidecars", "--store", filepath.Join(st, ".ctx"), "-"),
				stdin: stream, dir: dir, setup: func() error {
					removeAll(st)
					return runQuiet(dir, e.ctx("init", st)...)
				}},
			{label: "jq -c . runs.ndjson", argv: []string{"jq", "-c", ".", stream}, dir: dir, peer: "jq -c"},
		},
		targets: []target{{cmd: 0, peer: 1, max: 5}},
		summary: func([]sample) string {
			return fmt.Sprintf("%s of NDJSON, %s objects: a prompt and %d outputs per run, and its manifest", mb(size), count(e.size.suiteRuns*(e.size.suiteSteps+2)), e.size.suiteSteps)
		},
	}
}

// suite: ctx suite add of the same kind of stream (the runs carrying
// their task and outcome) against jq -c of it; ctx suite diff of two such
// suites, one regressing 5% of the tasks; ctx suite show of one. The rows
// run where ctx-suite is built, and are listed as not built elsewhere.
func (e benchEnv) suite() []workload {
	dir := filepath.Join(e.work, "suite")
	st := filepath.Join(dir, "store", ".ctx")
	a, b := filepath.Join(dir, "a.ndjson"), filepath.Join(dir, "b.ndjson")
	missing := ""
	if _, err := os.Stat(filepath.Join(e.bin, "ctx-suite")); err != nil {
		missing = "no ctx-suite in " + e.bin
	}
	n := count(e.size.suiteRuns)
	write := once(func() error {
		if err := writeRunStream(a, e.size.suiteRuns, e.size.suiteSteps, 'a'); err != nil {
			return err
		}
		return writeRunStream(b, e.size.suiteRuns, e.size.suiteSteps, 'b')
	})
	fresh := func() error {
		removeAll(filepath.Dir(st))
		return runQuiet(dir, e.ctx("init", filepath.Dir(st))...)
	}
	both := once(func() error {
		if err := write(); err != nil {
			return err
		}
		if err := fresh(); err != nil {
			return err
		}
		for _, side := range []string{"a", "b"} {
			if err := runQuiet(dir, "sh", "-c", `"$0" add --store "$1" "$2" - < "$3"`, filepath.Join(e.bin, "ctx-suite"), st, "run-"+side, filepath.Join(dir, side+".ndjson")); err != nil {
				return err
			}
		}
		return nil
	})
	return []workload{
		{
			name: fmt.Sprintf("ctx suite add of %s runs (one stream)", n), missing: missing, prepare: write,
			cmds: []command{
				{label: "ctx suite add run-a - < a.ndjson (fresh store)", argv: e.ctx("suite", "add", "--store", st, "run-a", "-"), stdin: a, dir: dir, setup: fresh},
				{label: "jq -c . a.ndjson", argv: []string{"jq", "-c", ".", a}, dir: dir, peer: "jq -c"},
			},
			targets: []target{{cmd: 0, peer: 1, max: 5}},
		},
		{
			name: fmt.Sprintf("ctx suite diff, %s pairs", n), missing: missing, prepare: both, rssLimit: 128 << 10,
			cmds:    []command{{label: "ctx suite diff run-a run-b", argv: e.ctx("suite", "diff", "--store", st, "run-a", "run-b"), dir: dir, alone: true, finding: true}},
			targets: []target{{cmd: 0, maxWall: 3 * time.Second}, {cmd: 0, maxRSS: 128 << 10}},
		},
		{
			name: fmt.Sprintf("ctx suite show, %s runs", n), missing: missing, prepare: both,
			cmds:    []command{{label: "ctx suite show run-a", argv: e.ctx("suite", "show", "--store", st, "run-a"), dir: dir, alone: true}},
			targets: []target{{cmd: 0, maxWall: time.Second}},
		},
	}
}
