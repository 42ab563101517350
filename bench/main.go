// Command bench times ctx side by side with the tools a user would
// otherwise reach for (git, sha256sum, cp, jq, xargs), in one run: each
// workload's commands run alternately, several times, and the table shows
// the medians, the ratio of each ctx command to each peer, the rate where a
// workload has one, the targets the project holds itself to, and the peak
// RSS of every command.
//
//	go run ./bench -bin bin                      # every workload (make bench)
//	go run ./bench -bin bin -quick               # small sizes, 2 runs: a check in seconds
//	go run ./bench -bin bin -only 'log|diff'     # the workloads whose name matches
//	go run ./bench -bin bin -sizes 50,100        # peak RSS rows without the 200 MB session
//	go run ./bench -bin bin -out docs/PERFORMANCE.md
//
// It writes generated data under a temporary directory (several GiB for the
// largest workload) and removes it afterwards. It must never be part of a
// pass/fail test: timings belong here and in go test -bench.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func main() {
	if (len(os.Args) == 4 || len(os.Args) == 5) && os.Args[1] == floorMode {
		way := floorWays()[0]
		if len(os.Args) == 5 {
			way = os.Args[4]
		}
		if err := runFloor(os.Args[2], os.Args[3], way); err != nil {
			fmt.Fprintln(os.Stderr, "bench -floor:", err)
			os.Exit(1)
		}
		return
	}
	bin := flag.String("bin", "bin", "directory holding the ctx and ctx-* programs (make build)")
	runs := flag.Int("runs", 0, "runs of each command (default 5, or 3 for a workload whose first round takes over a minute; 2 with -quick)")
	quick := flag.Bool("quick", false, "small sizes and 2 runs: checks the harness end to end in seconds; the figures mean little")
	only := flag.String("only", "", "run only the workloads whose name matches this regular expression")
	extra := flag.Bool("extra", false, "also run the workloads outside the issue's table (verify, export, import, fsck)")
	out := flag.String("out", "", "also write the table, with the machine's description, to this Markdown file")
	work := flag.String("work", "", "directory for generated data (default: a new temporary directory, removed afterwards)")
	base := flag.String("base", "", "also time the ctx commands of another build (its bin directory, e.g. one of the main branch) beside these, labelled (base): before and after in one run")
	sizesFlag := flag.String("sizes", "", "MB of the Claude Code sessions of the peak RSS rows, comma-separated (default 50,100,200; 1,2 with -quick); 50,100 skips the 200 MB row")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "bench: unexpected argument %q (see -h)\n", flag.Arg(0))
		os.Exit(2)
	}
	opts := options{bin: *bin, base: *base, runs: *runs, quick: *quick, only: *only, extra: *extra, out: *out, work: *work, sizes: *sizesFlag}
	if err := run(opts); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	bin, base, only, out, work string
	sizes                      string
	runs                       int
	quick, extra               bool
}

func run(o options) error {
	start := time.Now()
	absBin, err := filepath.Abs(o.bin)
	if err != nil {
		return err
	}
	for _, need := range []string{"ctx", "ctx-init", "ctx-pack", "ctx-log", "ctx-show", "ctx-diff", "ctx-replay", "ctx-convert"} {
		if _, err := os.Stat(filepath.Join(absBin, need)); err != nil {
			return fmt.Errorf("%s not found in %s: run 'make build' first", need, absBin)
		}
	}
	plan := runPlan{min: o.runs, max: o.runs}
	switch {
	case o.runs < 0:
		return fmt.Errorf("-runs %d: need at least one run", o.runs)
	case o.runs > 0:
	case o.quick:
		plan = runPlan{min: 2, max: 2}
	default:
		// Five runs, unless a workload is so slow (on a busy machine) that
		// five would keep make bench past ten minutes: then three.
		plan = runPlan{min: 3, max: 5, budget: 5 * time.Minute / 4}
	}
	work := o.work
	if work == "" {
		if work, err = os.MkdirTemp("", "ctx-bench-"); err != nil {
			return err
		}
		defer removeAll(work)
	} else if work, err = filepath.Abs(work); err != nil {
		return err
	}
	var re *regexp.Regexp
	if o.only != "" {
		if re, err = regexp.Compile(o.only); err != nil {
			return fmt.Errorf("-only: %v", err)
		}
	}
	sz := fullSizes()
	if o.quick {
		sz = quickSizes()
	}
	if o.sizes != "" {
		sz.sessionMBs = nil
		for _, f := range strings.Split(o.sizes, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n <= 0 {
				return fmt.Errorf("-sizes %q: want MB counts such as 50,100,200", o.sizes)
			}
			sz.sessionMBs = append(sz.sessionMBs, n)
		}
	}
	var stops []func() // servers the workloads started, stopped at the end
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	env := benchEnv{bin: absBin, work: work, size: sz, stops: &stops}
	rssTool := gnuTime()
	if rssTool == "" {
		fmt.Fprintln(os.Stderr, "bench: warning: no GNU time at /usr/bin/time: peak RSS figures include the harness's own")
	}
	var absBase string
	if o.base != "" {
		if absBase, err = filepath.Abs(o.base); err != nil {
			return err
		}
		if _, err := os.Stat(filepath.Join(absBase, "ctx-pack")); err != nil {
			return fmt.Errorf("-base: ctx-pack not found in %s", absBase)
		}
	}
	var results []result
	for _, w := range env.workloads() {
		if absBase != "" {
			w = w.withBase(absBin, absBase)
		}
		switch {
		case re != nil && !re.MatchString(w.name):
			continue
		case re == nil && w.extra && !o.extra:
			continue
		}
		r, err := measure(w, plan, rssTool)
		if err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		results = append(results, r)
	}
	elapsed := time.Since(start)
	table := render(results)
	fmt.Print(table)
	fmt.Fprintf(os.Stderr, "bench: finished in %s\n", elapsed.Round(time.Second))
	if o.out != "" {
		return writeSection(o.out, markdown(table, o, elapsed))
	}
	return nil
}

// removeAll removes the work directory, including the read-only objects
// and directories of the stores made in it.
func removeAll(dir string) {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}
