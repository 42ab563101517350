package main

import (
	"bytes"
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
	if code := run(strings.NewReader(in), &out); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want := "     ok   TestScripts/a\t0.5s\nwhy it failed\n     FAIL TestScripts/b\t1.0s\n     ok   TestSlow\t3.0s\nFAIL p\t4.0s\n# q [build failed]\ns/x.go:1: syntax error\nFAIL r\t(no result: the test binary stopped)\ntests: 4 passed, 1 failed, 0 skipped\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	out.Reset()
	if code := run(strings.NewReader(`{"Action":"pass","Package":"p","Elapsed":1}`+"\n"), &out); code != 0 || out.String() != "ok   p\t1.0s\ntests: 0 passed, 0 failed, 0 skipped\n" {
		t.Errorf("a passing package: exit %d, %q", code, out.String())
	}
}
