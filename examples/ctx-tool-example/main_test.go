package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRun(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one two\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(strings.NewReader(`{"path":"a.txt"}`), &out); err != nil || out.String() != "2 3 14 a.txt\n" {
		t.Errorf("run = %q, %v", out.String(), err)
	}
	for _, params := range []string{`{"path":"../a.txt"}`, `{"path":"/etc/passwd"}`, `{}`, `nope`, `{"path":"missing.txt"}`} {
		if err := run(strings.NewReader(params), &out); err == nil {
			t.Errorf("run(%s) succeeded", params)
		}
	}
}
