package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// command is one program to time. setup runs before every timed run and is
// not timed (a fresh store, a fresh repository).
type command struct {
	label   string
	argv    []string
	dir     string
	setup   func() error
	stdin   string   // file to feed on standard input
	env     []string // added to the environment
	peer    string   // short name of the tool when this is a peer; "" for ctx
	reps    int      // calls per sample, for commands of a few milliseconds; the sample is the time per call
	finding bool     // exit 1 is a result (drift found), not a failure
	alone   bool     // a ctx command shown for itself, with no ratio
	base    bool     // the same ctx command of the -base build: compared with the peers, and a peer of this build's
}

// target is a ratio the project holds itself to: cmds[cmd] over cmds[peer]
// at most max (below: strictly less). With minRate, it is a rate instead:
// rateOf() units of work over cmds[cmd]'s median wall time at least
// minRate (in unit). With maxRSS, it is cmds[cmd]'s peak RSS at most maxRSS
// KiB.
type target struct {
	cmd, peer int
	max       float64
	below     bool
	minRate   float64
	rateOf    func() float64
	unit      string
	maxRSS    int64
	maxWall   time.Duration // cmds[cmd]'s median wall time at most this
}

// rate turns a command's median into a rate: per units of work each run
// does (steps, MB of input), written as unit ("steps/s").
type rate struct {
	per  float64
	unit string
}

// workload is one row of the table: ctx, then the peers it is
// compared with.
type workload struct {
	name    string
	extra   bool         // outside the table: run with -extra or -only
	prepare func() error // once, untimed; writes under the bench's work directory
	cmds    []command
	rate    rate
	targets []target
	note    string
	// summary, when set, adds a line computed from the medians (one per
	// command), such as the dispatcher's cost per call.
	summary func(med []sample) string
	// flat, when set, names a group of workloads (one per input size) with
	// the same commands: the table adds, per command, the ratio of its
	// largest peak RSS to its smallest across the group.
	flat string
	// maxRuns, when set, caps the runs of a row whose every command takes
	// a minute or more (pushing 10,000 blobs to a registry).
	maxRuns int
	// missing, when set, says why the row cannot run here (a program not
	// built): it is listed, with its targets, as not built.
	missing string
	// rssLimit, when set, is the peak RSS this row's ctx commands may
	// reach instead of the project's rssLimit (KiB).
	rssLimit int64
}

// withBase adds, after w's commands, each ctx command of this build
// (bin) again, run from the base build's directory: the two side by side
// in one run, alternating as every command of a row does. Each target of
// a ctx command holds for its base copy too, so both verdicts are listed.
func (w workload) withBase(bin, base string) workload {
	n := len(w.cmds)
	copyOf := map[int]int{}
	for j := 0; j < n; j++ {
		c := w.cmds[j]
		if c.peer != "" || !strings.Contains(strings.Join(c.argv, "\x00"), bin) {
			continue
		}
		argv := make([]string, len(c.argv))
		for i, a := range c.argv {
			argv[i] = strings.ReplaceAll(a, bin, base)
		}
		c.argv, c.label, c.base = argv, c.label+" (base)", true
		copyOf[j] = len(w.cmds)
		w.cmds = append(w.cmds, c)
	}
	for _, t := range w.targets {
		if k, ok := copyOf[t.cmd]; ok {
			t.cmd = k
			w.targets = append(w.targets, t)
		}
	}
	return w
}

// sample is one timed run, or the median of several.
type sample struct {
	wall time.Duration
	cpu  time.Duration // user + system
	rss  int64         // KiB
}

type result struct {
	w       workload
	samples [][]sample // per command
	runs    int
}

// measure prepares w and times its commands several times each,
// alternating the order from run to run so neither side always runs on a
// warm or a cold cache. It makes runs.max runs, or fewer (never fewer than
// runs.min) when one round of the workload takes so long that runs.max
// would take more than runs.budget.
func measure(w workload, runs runPlan, rssTool string) (result, error) {
	if w.missing != "" {
		fmt.Fprintf(os.Stderr, "bench: %s: not built (%s)\n", w.name, w.missing)
		return result{w: w}, nil
	}
	t0 := time.Now()
	fmt.Fprintf(os.Stderr, "bench: %s: preparing\n", w.name)
	if err := w.prepare(); err != nil {
		return result{}, err
	}
	t1 := time.Now()
	r := result{w: w, samples: make([][]sample, len(w.cmds))}
	n := runs.max
	if w.maxRuns > 0 {
		n = min(n, w.maxRuns)
	}
	for i := 0; i < n; i++ {
		for _, j := range order(len(w.cmds), i) {
			s, err := timeOne(&w.cmds[j], rssTool)
			if err != nil {
				return result{}, fmt.Errorf("%s: %w", w.cmds[j].label, err)
			}
			r.samples[j] = append(r.samples[j], s)
		}
		if i == 0 {
			n = runs.count(time.Since(t1))
			if w.maxRuns > 0 {
				n = min(n, w.maxRuns)
			}
		}
	}
	r.runs = n
	fmt.Fprintf(os.Stderr, "bench: %s: done (prepared in %s, %d runs in %s)\n", w.name,
		t1.Sub(t0).Round(100*time.Millisecond), n, time.Since(t1).Round(100*time.Millisecond))
	return r, nil
}

// runPlan is how many times each command runs: max, or as many as fit in
// budget given the time of the first round, but at least min.
type runPlan struct {
	min, max int
	budget   time.Duration // 0: always max
}

func (p runPlan) count(round time.Duration) int {
	if p.budget <= 0 || round <= 0 {
		return p.max
	}
	return max(p.min, min(p.max, int(p.budget/round)))
}

// order is the order of n commands in run i: forwards, then backwards.
func order(n, i int) []int {
	o := make([]int, n)
	for j := range o {
		o[j] = j
		if i%2 == 1 {
			o[j] = n - 1 - j
		}
	}
	return o
}

// timeOne runs c's setup, then times c; the setup may fill in c's argv
// (with a hash known only once the workload is prepared).
func timeOne(c *command, rssTool string) (sample, error) {
	if c.setup != nil {
		if err := c.setup(); err != nil {
			return sample{}, fmt.Errorf("setup: %w", err)
		}
	}
	// Start every command with no dirty data of earlier ones in the page
	// cache, so a command that syncs pays only for its own writes.
	syscall.Sync()
	reps := max(c.reps, 1)
	var total sample
	for k := 0; k < reps; k++ {
		s, err := runOnce(*c, rssTool)
		if err != nil {
			return sample{}, err
		}
		total.wall += s.wall
		total.cpu += s.cpu
		total.rss = max(total.rss, s.rss)
	}
	total.wall /= time.Duration(reps)
	total.cpu /= time.Duration(reps)
	return total, nil
}

func runOnce(c command, rssTool string) (sample, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	argv := c.argv
	var rssFile string
	if rssTool != "" {
		f, err := os.CreateTemp("", "ctx-bench-rss-")
		if err != nil {
			return sample{}, err
		}
		f.Close()
		rssFile = f.Name()
		defer os.Remove(rssFile)
		argv = append([]string{rssTool, "-f", "%M", "-o", rssFile}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = c.dir
	if len(c.env) > 0 {
		cmd.Env = append(os.Environ(), c.env...)
	}
	// Standard output goes to /dev/null (a nil Stdout), so no copying
	// goroutine of the harness competes with the command for the CPU.
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
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || !c.finding {
			return sample{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(stderr.String()))
		}
	}
	s := sample{wall: wall, cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if rssFile != "" {
		s.rss, err = readRSS(rssFile)
		return s, err
	}
	// Without GNU time, the rusage of the child: a process started by exec
	// from this one keeps the harness's own peak as its floor (Linux records
	// the peak of the address space it replaces), so small figures read
	// high.
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rss = int64(ru.Maxrss)
		if runtime.GOOS == "darwin" {
			s.rss /= 1024
		}
	}
	return s, nil
}

// gnuTime returns the path of GNU time when there is one, else "". It
// measures a command's peak RSS from a small process of its own: the
// rusage this harness gets for a child it starts directly would count the
// harness's own peak, which exec leaves as the child's floor.
func gnuTime() string {
	const p = "/usr/bin/time"
	out, err := exec.Command(p, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "GNU") {
		return ""
	}
	return p
}

// readRSS reads the peak RSS in KiB that GNU time wrote last in file (after
// a note on the exit status, when it was not 0).
func readRSS(file string) (int64, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0, err
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	kb, err := strconv.ParseInt(strings.TrimSpace(lines[len(lines)-1]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("GNU time wrote %q, not a peak RSS", strings.TrimSpace(string(b)))
	}
	return kb, nil
}

// median is the median wall and CPU time of s, and its peak RSS (the worst
// run: a limit on memory holds for every run, not the typical one).
func median(s []sample) sample {
	if len(s) == 0 {
		return sample{}
	}
	w := make([]time.Duration, len(s))
	c := make([]time.Duration, len(s))
	var rss int64
	for i := range s {
		w[i], c[i] = s[i].wall, s[i].cpu
		rss = max(rss, s[i].rss)
	}
	return sample{wall: mid(w), cpu: mid(c), rss: rss}
}

// mid is the median of d: the mean of the two middle values for an even
// count.
func mid(d []time.Duration) time.Duration {
	slices.Sort(d)
	n := len(d)
	if n%2 == 1 {
		return d[n/2]
	}
	return (d[n/2-1] + d[n/2]) / 2
}

// rssLimit is the peak RSS the project allows any ctx command, whatever
// the size of its input.
const rssLimit = 64 << 10 // KiB

// maxRSS is the peak RSS w's ctx commands may reach.
func (w workload) maxRSS() int64 {
	if w.rssLimit > 0 {
		return w.rssLimit
	}
	return rssLimit
}

func render(results []result) string {
	var b strings.Builder
	row := func(w, c, med, cpu, rss, rt, vs string) {
		line := fmt.Sprintf("%-44s  %-48s  %9s  %9s  %9s  %14s  %s", w, c, med, cpu, rss, rt, vs)
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	row("workload", "command", "median", "cpu", "peak RSS", "rate", "ratio to peer")
	var checks []string
	flat := map[string][]flatRSS{}
	runs := 0
	for _, r := range results {
		runs = max(runs, r.runs)
	}
	for _, r := range results {
		if r.w.missing != "" {
			row(r.w.name, "not built: "+r.w.missing, "", "", "", "", "")
			for _, t := range r.w.targets {
				checks = append(checks, fmt.Sprintf("%-80s  %9s  %12s  %-15s  %s", r.w.name+": "+r.w.cmds[t.cmd].label, "", "", "", "NOT BUILT"))
			}
			continue
		}
		med := make([]sample, len(r.samples))
		for j := range r.samples {
			med[j] = median(r.samples[j])
		}
		for j, c := range r.w.cmds {
			name := ""
			if j == 0 {
				name = r.w.name
			}
			label := c.label
			if c.peer != "" {
				label += " [peer]"
			}
			rt := ""
			if r.w.rate.per > 0 && med[j].wall > 0 {
				rt = formatRate(r.w.rate.per/med[j].wall.Seconds(), r.w.rate.unit)
			}
			var vs []string
			if c.peer == "" && !c.alone {
				for k, p := range r.w.cmds {
					if p.peer != "" {
						vs = append(vs, fmt.Sprintf("%.3fx %s", ratio(med[j].wall, med[k].wall), p.peer))
					}
				}
			}
			if !c.base {
				// This build against the base build's same command.
				for k, p := range r.w.cmds {
					if p.base && p.label == c.label+" (base)" {
						vs = append(vs, fmt.Sprintf("%.3fx base", ratio(med[j].wall, med[k].wall)))
					}
				}
			}
			rss := fmt.Sprintf("%.1fM", float64(med[j].rss)/1024)
			if c.peer == "" && med[j].rss > r.w.maxRSS() {
				rss += "!"
			}
			row(name, label, round(med[j].wall), round(med[j].cpu), rss, rt, strings.Join(vs, ", "))
		}
		if r.w.note != "" {
			fmt.Fprintf(&b, "%-44s  %s\n", "", r.w.note)
		}
		if r.w.summary != nil {
			fmt.Fprintf(&b, "%-44s  %s\n", "", r.w.summary(med))
		}
		if r.runs != runs {
			fmt.Fprintf(&b, "%-44s  %d runs of each command: one round takes long\n", "", r.runs)
		}
		for _, t := range r.w.targets {
			checks = append(checks, checkTarget(r.w, t, med))
		}
		if r.w.flat != "" {
			for j := range r.w.cmds {
				flat[r.w.flat] = append(flat[r.w.flat], flatRSS{label: r.w.cmds[j].label, size: r.w.name, rss: med[j].rss})
			}
			continue // its targets hold the RSS bound
		}
		for j, c := range r.w.cmds {
			if c.peer == "" && med[j].rss > r.w.maxRSS() {
				checks = append(checks, fmt.Sprintf("%-80s  %8.1fM %13s  %-15s  MISSED",
					r.w.name+": "+c.label+", peak RSS", float64(med[j].rss)/1024, "", fmt.Sprintf("at most %d MiB", r.w.maxRSS()>>10)))
			}
		}
	}
	checks = append(checks, flatChecks(flat)...)
	fmt.Fprintf(&b, "\nmedian: wall time; cpu: user + system time (steadier than wall time on a busy machine); peak RSS: the largest of the\n")
	fmt.Fprintf(&b, "runs (! above %d MiB); ratio: ctx's median wall time divided by the peer's (below 1: ctx is faster); %d runs of each\n", rssLimit>>10, runs)
	fmt.Fprintf(&b, "command, alternating.\n")
	if len(checks) > 0 {
		fmt.Fprintf(&b, "\n%-80s  %9s  %12s  %s\n", "targets (ratios of medians)", "wall", "(cpu)", "target")
		for _, c := range checks {
			fmt.Fprintf(&b, "%s\n", c)
		}
	}
	return b.String()
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// checkTarget says whether a target holds, in one line of the targets list:
// the ratio of wall times, which the target is about, and of CPU times.
func checkTarget(w workload, t target, med []sample) string {
	switch {
	case t.minRate > 0:
		got := 0.0
		if sec := med[t.cmd].wall.Seconds(); sec > 0 {
			got = t.rateOf() / sec
		}
		what := fmt.Sprintf("%s: %s, rate", w.name, w.cmds[t.cmd].label)
		return fmt.Sprintf("%-80s  %9s  %12s  %-15s  %s", what, formatRate(got, "MB/s"), "",
			fmt.Sprintf("at least %g %s", t.minRate, t.unit), verdict(got >= t.minRate))
	case t.maxWall > 0:
		what := fmt.Sprintf("%s: %s, wall time", w.name, w.cmds[t.cmd].label)
		return fmt.Sprintf("%-80s  %9s  %12s  %-15s  %s", what, round(med[t.cmd].wall), "",
			fmt.Sprintf("at most %s", t.maxWall), verdict(med[t.cmd].wall <= t.maxWall))
	case t.maxRSS > 0:
		what := fmt.Sprintf("%s: %s, peak RSS", w.name, w.cmds[t.cmd].label)
		return fmt.Sprintf("%-80s  %8.1fM  %12s  %-15s  %s", what, float64(med[t.cmd].rss)/1024, "",
			fmt.Sprintf("at most %d MiB", t.maxRSS>>10), verdict(med[t.cmd].rss <= t.maxRSS))
	}
	got := ratio(med[t.cmd].wall, med[t.peer].wall)
	ok := got <= t.max
	want := fmt.Sprintf("at most %gx", t.max)
	if t.below {
		ok = got < t.max
		want = fmt.Sprintf("below %gx", t.max)
	}
	peer := w.cmds[t.peer].peer
	if peer == "" { // a ctx command against another (a second push against the first)
		peer = w.cmds[t.peer].label
	}
	what := fmt.Sprintf("%s: %s / %s", w.name, w.cmds[t.cmd].label, peer)
	return fmt.Sprintf("%-80s  %8.3fx  (cpu %6.3fx)  %-15s  %s", what, got, ratio(med[t.cmd].cpu, med[t.peer].cpu), want, verdict(ok))
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// flatRSS is one command's peak RSS in one workload of a flat group.
type flatRSS struct {
	label, size string
	rss         int64
}

// flatMax is how much a command's peak RSS may grow across the sizes of a
// flat group: largest over smallest.
const flatMax = 1.25

// flatChecks says, per command of each flat group, whether its peak RSS
// stays flat as the input grows: largest over smallest at most flatMax.
func flatChecks(groups map[string][]flatRSS) []string {
	var lines []string
	names := make([]string, 0, len(groups))
	for g := range groups {
		names = append(names, g)
	}
	slices.Sort(names)
	for _, g := range names {
		var labels []string
		lo, hi := map[string]int64{}, map[string]int64{}
		n := map[string]int{}
		for _, f := range groups[g] {
			if _, ok := lo[f.label]; !ok {
				labels = append(labels, f.label)
				lo[f.label], hi[f.label] = f.rss, f.rss
			}
			lo[f.label], hi[f.label] = min(lo[f.label], f.rss), max(hi[f.label], f.rss)
			n[f.label]++
		}
		for _, l := range labels {
			if n[l] < 2 {
				continue
			}
			got := 0.0
			if lo[l] > 0 {
				got = float64(hi[l]) / float64(lo[l])
			}
			what := fmt.Sprintf("peak RSS flat across %d sizes: %s, largest / smallest", n[l], l)
			lines = append(lines, fmt.Sprintf("%-80s  %8.3fx  %12s  %-15s  %s", what, got, "", fmt.Sprintf("at most %gx", flatMax), verdict(got <= flatMax)))
		}
	}
	return lines
}

func formatRate(v float64, unit string) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f %s", v, unit)
	case v >= 10:
		return fmt.Sprintf("%.1f %s", v, unit)
	}
	return fmt.Sprintf("%.2f %s", v, unit)
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

func markdown(table string, o options, elapsed time.Duration) string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "model name") {
				cpu = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %d kB", &kb); err == nil {
			mem = fmt.Sprintf(", %.0f GiB RAM", float64(kb)/(1<<20))
		}
	}
	load := ""
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			load = fmt.Sprintf(", load average %s %s %s at the end", f[0], f[1], f[2])
		}
	}
	how := "`make bench` (`go run ./bench -bin bin -out docs/PERFORMANCE.md`)"
	if o.quick || o.only != "" || o.extra || o.runs != 0 || o.sizes != "" {
		how = fmt.Sprintf("`go run ./bench -bin bin %s`", strings.Join(flagsOf(o), " "))
	}
	return fmt.Sprintf("Measured by %s on %s in %s: %s, %d CPUs%s, %s/%s, %s%s.\n\n```\n%s```\n",
		how, time.Now().UTC().Format("2006-01-02"), elapsed.Round(time.Second), cpu, runtime.NumCPU(), mem,
		runtime.GOOS, runtime.GOARCH, runtime.Version(), load, table)
}

// Markers of the part of the Markdown file the harness writes; the prose
// around them is the document's own.
const (
	beginMark = "<!-- bench: begin (written by go run ./bench -out) -->\n"
	endMark   = "<!-- bench: end -->\n"
)

// splice puts section between the markers of doc, or makes a document of
// it when doc has none.
func splice(doc, section string) string {
	i := strings.Index(doc, beginMark)
	j := strings.Index(doc, endMark)
	if i < 0 || j < i {
		return "# Performance\n\n" + beginMark + section + endMark
	}
	return doc[:i+len(beginMark)] + section + doc[j:]
}

// writeSection writes section into the Markdown file path, keeping the
// rest of the file.
func writeSection(path, section string) error {
	doc, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, []byte(splice(string(doc), section)), 0o644)
}

func flagsOf(o options) []string {
	var f []string
	if o.quick {
		f = append(f, "-quick")
	}
	if o.extra {
		f = append(f, "-extra")
	}
	if o.only != "" {
		f = append(f, fmt.Sprintf("-only '%s'", o.only))
	}
	if o.runs != 0 {
		f = append(f, fmt.Sprintf("-runs %d", o.runs))
	}
	if o.sizes != "" {
		f = append(f, "-sizes "+o.sizes)
	}
	f = append(f, "-out docs/PERFORMANCE.md")
	return f
}
