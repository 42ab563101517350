// Command testprogress reads the events of `go test -json` on standard
// input and prints the progress of a long run as it happens: a line per
// testscript and per slow test that finishes (ok, FAIL, skip, with its time),
// the whole output of each one that fails, and a line per package, as go
// test prints it. make test pipes the suite through it, so a run of ten
// minutes is never silent. It exits 1 when anything failed or the input
// ended without a package's result.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
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
	os.Exit(run(os.Stdin, os.Stdout))
}

func run(in io.Reader, out io.Writer) int {
	w := bufio.NewWriter(out)
	defer w.Flush()
	output := map[string][]string{} // the output of each running test, by package and name
	started := map[string]bool{}    // packages with no result yet
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
			if e.Test != "" || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "panic") {
				output[key] = append(output[key], e.Output)
			}
		case "pass", "fail", "skip":
			if e.Action == "fail" {
				failed = true
				for _, line := range output[key] {
					fmt.Fprint(w, line)
				}
			}
			delete(output, key)
			if e.Test != "" {
				count[e.Action]++
			}
			if e.Test == "" {
				delete(started, e.Package)
				fmt.Fprintf(w, "%-4s %s\t%.1fs\n", word(e.Action), e.Package, e.Elapsed)
			} else if shown(e.Test, e.Elapsed) {
				fmt.Fprintf(w, "     %-4s %s\t%.1fs\n", word(e.Action), e.Test, e.Elapsed)
			}
			w.Flush()
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(w, "testprogress: %v\n", err)
		return 1
	}
	for pkg := range started {
		fmt.Fprintf(w, "FAIL %s\t(no result: the test binary stopped)\n", pkg)
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
