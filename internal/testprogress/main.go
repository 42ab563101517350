// Command testprogress reads the events of `go test -json` on standard
// input and prints the progress of a long run as it happens: a line per
// testscript and per slow test that finishes (ok, FAIL, skip, with its time;
// a skip with its reason), the whole output of each one that fails, and a
// line per package. A package stopped by go test's -timeout gets one plain
// line saying so and naming the tests that were still running, instead of
// its goroutine dump (kept in a file with -dumps DIR). It exits 1 when
// anything failed or the input ended without a package's result.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// event is one record of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
	Output  string
}

func main() {
	dumps := flag.String("dumps", "", "write the goroutine dump of a package stopped by -timeout into `DIR`")
	flag.Parse()
	os.Exit(run(os.Stdin, os.Stdout, *dumps))
}

// timeout is what go test prints when its -timeout stops a package: the
// line, then the tests still running, then every goroutine's stack.
const timeoutLine = "panic: test timed out after "

// stopped is a package that go test's -timeout stopped.
type stopped struct {
	after   string   // the -timeout, as go test says it ("10m0s")
	running []string // the tests still running, with their times
	inList  bool     // the lines read are still the running tests
	dump    []string // the rest: the goroutine dump
}

func run(in io.Reader, out io.Writer, dumps string) int {
	w := bufio.NewWriter(out)
	defer w.Flush()
	output := map[string][]string{} // the output of each running test, by package and name
	started := map[string]bool{}    // packages with no result yet
	timedOut := map[string]*stopped{}
	failed := false
	count := map[string]int{} // tests and subtests by how they ended
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			fmt.Fprintln(w, sc.Text()) // a build error, not an event
			w.Flush()
			continue
		}
		key := e.Package + " " + e.Test
		if e.Package != "" && e.Test == "" && e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
			started[e.Package] = true
		}
		switch e.Action {
		case "build-output": // a compiler error: no test will tell it
			fmt.Fprint(w, e.Output)
		case "output":
			if s := timedOut[e.Package]; s != nil {
				s.add(e.Output)
				continue
			}
			if after, ok := strings.CutPrefix(e.Output, timeoutLine); ok {
				timedOut[e.Package] = &stopped{after: strings.TrimSpace(after)}
				continue
			}
			if e.Test != "" || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "panic") {
				output[key] = append(output[key], e.Output)
			}
		case "pass", "fail", "skip":
			lines := output[key]
			delete(output, key)
			if e.Test != "" {
				count[e.Action]++
			}
			if e.Test == "" {
				delete(started, e.Package)
				if s := timedOut[e.Package]; s != nil {
					failed = true
					fmt.Fprintf(w, "FAIL %s\t%.1fs\t%s\n", e.Package, e.Elapsed, s.say(e.Package, dumps))
					break
				}
				if e.Action == "fail" {
					failed = true
					printAll(w, lines)
				}
				if e.Action == "skip" && e.Elapsed == 0 {
					fmt.Fprintf(w, "-    %s\t(no tests)\n", e.Package)
				} else {
					fmt.Fprintf(w, "%-4s %s\t%.1fs\n", word(e.Action), e.Package, e.Elapsed)
				}
				break
			}
			switch {
			case e.Action == "fail" && deadlined(lines):
				// The package's deadline passed before the test could
				// run: one line, not its output.
				failed = true
				fmt.Fprintf(w, "     FAIL %s\t%.1fs\t(go test's -timeout deadline passed)\n", e.Test, e.Elapsed)
			case e.Action == "fail":
				failed = true
				printAll(w, lines)
				fmt.Fprintf(w, "     FAIL %s\t%.1fs\n", e.Test, e.Elapsed)
			case e.Action == "skip" && !strings.Contains(e.Test, "/"), e.Action == "skip" && shown(e.Test, 0):
				fmt.Fprintf(w, "     skip %s\t(%s)\n", e.Test, skipReason(lines))
			case shown(e.Test, e.Elapsed):
				fmt.Fprintf(w, "     %-4s %s\t%.1fs\n", word(e.Action), e.Test, e.Elapsed)
			}
		}
		w.Flush()
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(w, "testprogress: %v\n", err)
		return 1
	}
	for pkg := range started {
		if s := timedOut[pkg]; s != nil {
			fmt.Fprintf(w, "FAIL %s\t%s\n", pkg, s.say(pkg, dumps))
		} else {
			fmt.Fprintf(w, "FAIL %s\t(no result: the test binary stopped)\n", pkg)
		}
		failed = true
	}
	// The closing line, in the plain form any reader of test output
	// knows: tests and subtests, by how they ended.
	fmt.Fprintf(w, "tests: %d passed, %d failed, %d skipped\n", count["pass"], count["fail"], count["skip"])
	if failed {
		return 1
	}
	return 0
}

// add takes one line that follows the timeout's panic line.
func (s *stopped) add(line string) {
	switch {
	case s.inList && strings.HasPrefix(line, "\t\t"):
		s.running = append(s.running, strings.TrimSpace(line))
		return
	case strings.TrimSpace(line) == "running tests:":
		s.inList = true
		return
	}
	s.inList = false
	s.dump = append(s.dump, line)
}

// say is the package line's explanation: the timeout, the tests it
// stopped, and where the dump went.
func (s *stopped) say(pkg, dumps string) string {
	msg := "stopped by go test's -timeout " + s.after
	// The deepest tests are the ones that ran long; their parents are
	// listed too: keep the leaves.
	var leaves []string
	for i, t := range s.running {
		name, _, _ := strings.Cut(t, " ")
		if i+1 < len(s.running) && strings.HasPrefix(s.running[i+1], name+"/") {
			continue
		}
		leaves = append(leaves, t)
	}
	if len(leaves) > 0 {
		const most = 8
		shown := leaves
		if len(shown) > most {
			shown = shown[:most]
		}
		msg += "; still running: " + strings.Join(shown, ", ")
		if len(leaves) > most {
			msg += fmt.Sprintf(" and %d more", len(leaves)-most)
		}
	}
	if dumps != "" {
		name := filepath.Join(dumps, "timeout-"+strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".txt")
		if err := os.WriteFile(name, []byte(strings.Join(s.dump, "")), 0o644); err == nil {
			msg += "; goroutine dump in " + name
		}
	}
	return msg
}

// deadlined reports whether a failed test's output says only that the
// package's deadline passed (testscript gives each script the test's
// deadline).
func deadlined(lines []string) bool {
	for _, l := range lines {
		if strings.Contains(l, "context deadline exceeded") {
			return true
		}
	}
	return false
}

// skipReason is what a skipped test said of why: the last line of its
// output before go test's own "--- SKIP".
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "--- SKIP") || strings.HasPrefix(l, "=== ") {
			continue
		}
		// "file_test.go:12: reason" and testscript's "> skip 'reason'"
		if _, after, ok := strings.Cut(l, ".go:"); ok {
			if _, reason, ok := strings.Cut(after, ": "); ok {
				l = reason
			}
		}
		l = strings.TrimPrefix(l, "> ")
		l = strings.TrimPrefix(l, "skip ")
		l = strings.Trim(l, "'\"")
		return l
	}
	return "no reason given"
}

func printAll(w io.Writer, lines []string) {
	for _, l := range lines {
		fmt.Fprint(w, l)
	}
}

// slow is how long a top-level test runs before its end gets a line.
const slow = 2.0 // seconds

// shown reports whether a finished test gets a line: each testscript
// (TestScripts/NAME), and a top-level test that took long enough to be
// worth a line; never the subtests of table tests.
func shown(test string, elapsed float64) bool {
	parent, sub, nested := strings.Cut(test, "/")
	if !nested {
		return elapsed >= slow
	}
	return parent == "TestScripts" && !strings.Contains(sub, "/")
}

func word(action string) string {
	switch action {
	case "pass":
		return "ok"
	case "fail":
		return "FAIL"
	}
	return "skip"
}
