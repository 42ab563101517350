// Command bench times ctx side by side with the tools a user would
// otherwise reach for (git, sha256sum, cp, jq), in one run: each workload
// and its peers run alternately, several times, and the table shows the
// medians, the ratio to each peer and the peak RSS of every command.
//
//	go run ./bench -bin bin            # every workload
//	go run ./bench -bin bin -only pack # the workloads whose name matches
//
// It writes generated data under a temporary directory (several GiB for the
// largest workload) and removes it afterwards.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "bin", "directory holding the ctx-* programs")
	runs := flag.Int("runs", 5, "runs of each command")
	only := flag.String("only", "", "run only the workloads whose name matches this regular expression")
	out := flag.String("out", "", "also write the table, with the machine's description, to this Markdown file")
	work := flag.String("work", "", "directory for generated data (default: a new temporary directory, removed afterwards)")
	flag.Parse()
	if err := run(*bin, *runs, *only, *out, *work); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// command is one program to time. setup runs before every timed run and is
// not timed (a fresh store, a fresh repository).
type command struct {
	label string
	argv  []string
	dir   string
	setup func() error
	stdin string // file to feed on standard input
}

// workload is one row: ctx, then the peers it is compared with.
type workload struct {
	name    string
	prepare func() error // once, untimed; writes under the bench's work directory
	cmds    []command    // cmds[0] is ctx
	note    string
}

type sample struct {
	wall time.Duration
	rss  int64 // KiB
}

type result struct {
	w       workload
	samples [][]sample // per command
}

func run(bin string, runs int, only, out, work string) error {
	absBin, err := filepath.Abs(bin)
	if err != nil {
		return err
	}
	for _, need := range []string{"ctx-init", "ctx-pack"} {
		if _, err := os.Stat(filepath.Join(absBin, need)); err != nil {
			return fmt.Errorf("%s not found in %s: run 'make build' first", need, absBin)
		}
	}
	if work == "" {
		if work, err = os.MkdirTemp("", "ctx-bench-"); err != nil {
			return err
		}
		defer os.RemoveAll(work)
	}
	var re *regexp.Regexp
	if only != "" {
		if re, err = regexp.Compile(only); err != nil {
			return err
		}
	}
	env := benchEnv{bin: absBin, work: work}
	var results []result
	for _, w := range env.workloads() {
		if re != nil && !re.MatchString(w.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s: preparing\n", w.name)
		if err := w.prepare(); err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		r := result{w: w, samples: make([][]sample, len(w.cmds))}
		for i := 0; i < runs; i++ {
			// Alternate the order so neither side always runs on a warm
			// or a cold cache.
			order := make([]int, len(w.cmds))
			for j := range order {
				order[j] = j
			}
			if i%2 == 1 {
				for a, b := 0, len(order)-1; a < b; a, b = a+1, b-1 {
					order[a], order[b] = order[b], order[a]
				}
			}
			for _, j := range order {
				s, err := timeOne(w.cmds[j])
				if err != nil {
					return fmt.Errorf("%s: %s: %w", w.name, w.cmds[j].label, err)
				}
				r.samples[j] = append(r.samples[j], s)
			}
		}
		fmt.Fprintf(os.Stderr, "bench: %s: done\n", w.name)
		results = append(results, r)
	}
	table := render(results, runs)
	fmt.Print(table)
	if out != "" {
		return os.WriteFile(out, []byte(markdown(table, runs)), 0o644)
	}
	return nil
}

func timeOne(c command) (sample, error) {
	if c.setup != nil {
		if err := c.setup(); err != nil {
			return sample{}, fmt.Errorf("setup: %w", err)
		}
	}
	// Start every command with no dirty data of earlier ones in the page
	// cache, so a command that syncs pays only for its own writes.
	syscall.Sync()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.argv[0], c.argv[1:]...)
	cmd.Dir = c.dir
	cmd.Stdout = io.Discard
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if c.stdin != "" {
		f, err := os.Open(c.stdin)
		if err != nil {
			return sample{}, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		// A finding (exit 1) is a result, not a failure, for ctx diff.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			return sample{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		}
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = int64(ru.Maxrss)
		if runtime.GOOS == "darwin" {
			rss /= 1024
		}
	}
	return sample{wall: wall, rss: rss}, nil
}

func median(s []sample) sample {
	w := make([]time.Duration, len(s))
	r := make([]int64, len(s))
	for i := range s {
		w[i], r[i] = s[i].wall, s[i].rss
	}
	sort.Slice(w, func(i, j int) bool { return w[i] < w[j] })
	sort.Slice(r, func(i, j int) bool { return r[i] < r[j] })
	return sample{wall: w[len(w)/2], rss: r[len(r)-1]} // peak RSS is the worst run
}

func render(results []result, runs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-44s %-34s %10s %10s %9s\n", "workload", "command", "median", "ratio", "peak RSS")
	for _, r := range results {
		base := median(r.samples[0])
		for j, c := range r.w.cmds {
			m := median(r.samples[j])
			ratio := "-"
			if j > 0 {
				ratio = fmt.Sprintf("%.3fx", float64(base.wall)/float64(m.wall))
			}
			name := ""
			if j == 0 {
				name = r.w.name
			}
			fmt.Fprintf(&b, "%-44s %-34s %10s %10s %8.1fM\n", name, c.label, round(m.wall), ratio, float64(m.rss)/1024)
		}
		if r.w.note != "" {
			fmt.Fprintf(&b, "%-44s %s\n", "", r.w.note)
		}
	}
	fmt.Fprintf(&b, "\nratio: ctx's median wall time divided by the peer's (below 1 means ctx is faster); %d runs each, alternating\n", runs)
	return b.String()
}

func round(d time.Duration) string {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

func markdown(table string, runs int) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	return fmt.Sprintf("# Performance\n\nMeasured by `make bench` (`go run ./bench -bin bin -out docs/PERFORMANCE.md`) on %s: %s, %d CPUs, %s/%s, %s.\n\n```\n%s```\n",
		time.Now().UTC().Format("2006-01-02"), cpu, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), table)
}
