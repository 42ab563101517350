package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"p"}`,
		`{"Action":"run","Package":"p","Test":"TestScripts"}`,
		`{"Action":"output","Package":"p","Test":"TestScripts/a","Output":"quiet\n"}`,
		`{"Action":"pass","Package":"p","Test":"TestScripts/a","Elapsed":0.5}`,
		`{"Action":"output","Package":"p","Test":"TestScripts/b","Output":"why it failed\n"}`,
		`{"Action":"fail","Package":"p","Test":"TestScripts/b","Elapsed":1}`,
		`{"Action":"pass","Package":"p","Test":"TestFast","Elapsed":0.1}`,
		`{"Action":"pass","Package":"p","Test":"TestFast/sub","Elapsed":3}`,
		`{"Action":"pass","Package":"p","Test":"TestSlow","Elapsed":3}`,
		`{"Action":"fail","Package":"p","Elapsed":4}`,
		`# q [build failed]`,
		`{"ImportPath":"s","Action":"build-output","Output":"s/x.go:1: syntax error\n"}`,
		`{"Action":"start","Package":"r"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if code := run(strings.NewReader(in), &out, ""); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want := "     ok   TestScripts/a\t0.5s\nwhy it failed\n     FAIL TestScripts/b\t1.0s\n     ok   TestSlow\t3.0s\nFAIL p\t4.0s\n# q [build failed]\ns/x.go:1: syntax error\nFAIL r\t(no result: the test binary stopped)\ntests: 4 passed, 1 failed, 0 skipped\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if code := run(strings.NewReader(`{"Action":"pass","Package":"p","Elapsed":1}`+"\n"), &out, ""); code != 0 || out.String() != "ok   p\t1.0s\ntests: 0 passed, 0 failed, 0 skipped\n" {
		t.Errorf("a passing package: exit %d, %q", code, out.String())
	}
}

// TestTimeout: a package stopped by go test's -timeout (the events of a
// real run, testdata/timeout.json) gets one line that says so and names the
// test still running; its goroutine dump goes to a file, not the screen.
// A package without tests says so, and a skipped test says why.
func TestTimeout(t *testing.T) {
	in, err := os.ReadFile("testdata/timeout.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out bytes.Buffer
	if code := run(bytes.NewReader(in), &out, dir); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := out.String()
	for _, want := range []string{
		"-    tj/b\t(no tests)\n",
		"     skip TestSkip\t(no docker-registry on PATH)\n",
		"FAIL tj/a\t2.0s\tstopped by go test's -timeout 2s; still running: TestSlow/x (2s); goroutine dump in " + filepath.Join(dir, "timeout-tj_a.txt") + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "goroutine") && !strings.Contains(got, "goroutine dump in") || strings.Contains(got, "testing.tRunner") {
		t.Errorf("the goroutine dump reached the screen:\n%s", got)
	}
	dump, err := os.ReadFile(filepath.Join(dir, "timeout-tj_a.txt"))
	if err != nil || !strings.Contains(string(dump), "testing.tRunner") {
		t.Errorf("the dump file: %v, %d bytes", err, len(dump))
	}

	// A script that the package's deadline stopped before it ran.
	out.Reset()
	dl := `{"Action":"output","Package":"p","Test":"TestScripts/x","Output":"    testscript.go:1: context deadline exceeded\n"}` + "\n" +
		`{"Action":"fail","Package":"p","Test":"TestScripts/x","Elapsed":0}` + "\n" +
		`{"Action":"fail","Package":"p","Elapsed":9}` + "\n"
	run(strings.NewReader(dl), &out, "")
	if want := "     FAIL TestScripts/x\t0.0s\t(go test's -timeout deadline passed)\nFAIL p\t9.0s\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("got %q, want it to start %q", out.String(), want)
	}
}
