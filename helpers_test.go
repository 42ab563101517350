package ctx_test

// The helpers the tests of this directory share: running the programs
// (ctxCmd, mustCtx: the real ctx-* programs, which testscript.Main in
// script_test.go puts on PATH, each this test binary under the verb's
// name; run: a verb in-process), making stores and runs to work on
// (newStoreDir, memStoreDir, writeLargeRun, writeFile, overlappingRuns),
// killing a program at a chosen moment (killAt, exitCode), and looking at
// what a store holds afterwards (runFsck, checkIntact, logHashes,
// readRef, temps), and the go command (goTool). docs/DEVELOPING.md says which file tests what.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/lib/cli"
)

// ctxCmd runs a ctx-* program and returns its stdout, stderr and exit code.
func ctxCmd(t *testing.T, dir string, prog string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("%s %s: %v", prog, strings.Join(args, " "), err)
	}
	return stdout.String(), stderr.String(), code
}

// mustCtx runs a ctx-* program that must succeed, and returns its stdout.
func mustCtx(t *testing.T, dir string, prog string, args ...string) string {
	t.Helper()
	out, errOut, code := ctxCmd(t, dir, prog, args...)
	if code != 0 {
		t.Fatalf("%s %s: exit %d\n%s", prog, strings.Join(args, " "), code, errOut)
	}
	return out
}

// fsckProblem is one problem of ctx fsck's report.
type fsckProblem struct {
	Kind   string `json:"kind"`
	Object string `json:"object"`
	Detail string `json:"detail"`
}

// runFsck runs ctx fsck on the store with the given extra flags and returns
// its problems.
func runFsck(t *testing.T, storeDir string, flags ...string) []fsckProblem {
	t.Helper()
	out, errOut, code := ctxCmd(t, "", "ctx-fsck", append([]string{"--store", storeDir}, flags...)...)
	var rep struct {
		OK       bool          `json:"ok"`
		Problems []fsckProblem `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code > 1 || rep.OK != (code == 0) || rep.OK != (len(rep.Problems) == 0) {
		t.Fatalf("ctx fsck: exit %d, report %q, %v\n%s", code, out, err, errOut)
	}
	return rep.Problems
}

// newStoreDir makes a store with ctx init and returns its .ctx path.
func newStoreDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	mustCtx(t, dir, "ctx-init")
	return filepath.Join(dir, ".ctx")
}

// writeLargeRun writes a run of many files given by path, plus a few large
// ones, and returns the log's path.
func writeLargeRun(t *testing.T, small, large int, largeSize int) string {
	t.Helper()
	dir := t.TempDir()
	var inputs []map[string]string
	for i := 0; i < small; i++ {
		name := fmt.Sprintf("src/d%02d/f%04d.txt", i%20, i)
		content := strings.Repeat(fmt.Sprintf("line of file %d\n", i), 20+i%200)
		writeFile(t, filepath.Join(dir, name), []byte(content))
		inputs = append(inputs, map[string]string{"path": name})
	}
	for i := 0; i < large; i++ {
		name := fmt.Sprintf("data/large%d.bin", i)
		b := make([]byte, largeSize)
		rand.Read(b)
		writeFile(t, filepath.Join(dir, name), b)
		inputs = append(inputs, map[string]string{"path": name})
	}
	log, err := json.Marshal(map[string]any{
		"created": "2026-03-01T00:00:00Z",
		"model":   map[string]string{"identifier": "m"},
		"prompts": []map[string]string{{"content": "index the tree"}},
		"inputs":  inputs,
		"steps":   []map[string]any{{"tool": "list_dir", "parameters": map[string]string{"path": "src"}, "output": "d00\n"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "run.json")
	writeFile(t, p, log)
	return p
}

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// memStoreDir makes a store in memory (/dev/shm) where the machine has
// it, else in a temporary directory. What a killed process leaves behind
// is the same on any filesystem; in memory the syncs of each pack do not
// wait for the rest of a busy machine's disk, which made the test take
// most of a minute.
func memStoreDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "ctx-crash-")
	if err != nil {
		return newStoreDir(t)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	mustCtx(t, dir, "ctx-init")
	return filepath.Join(dir, ".ctx")
}

// temps estimates the temporary files of objects being written: those in
// tmp/ (an object read from a stream) and, beside their final names in
// objects/ab/ (an object whose hash was known before writing), 16 times
// those of the 16 fan-out directories ending in 0. Hashes spread evenly,
// so that is close enough to tell thirds apart, and reading 17 directories
// instead of 257 keeps the watcher quick enough to catch each phase on a
// loaded machine.
func temps(st string) int {
	t, _ := countObjects(st, true)
	return t
}

func readRef(t *testing.T, st string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(st, "refs", "latest"))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// killAt starts cmd, writing to the store st, and kills it with SIGKILL as
// soon as at says the store has reached the state wanted (at gets the
// largest count of temporary files seen so far). It returns whether the
// kill ended the command, and how the command ended.
func killAt(t *testing.T, cmd *exec.Cmd, st string, at func(st string, peak int) bool) (killed bool, err error) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	peak := 0
	for {
		select {
		case err = <-done:
			return false, err
		default:
		}
		peak = max(peak, temps(st))
		if at(st, peak) {
			cmd.Process.Signal(syscall.SIGKILL)
			err = <-done
			var ee *exec.ExitError
			return errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled(), err
		}
		time.Sleep(time.Millisecond)
	}
}

func exitCode(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signaled():
		return 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	return -1
}

// run runs a verb in-process and returns its stdout; only trouble (exit 2)
// fails the test: a finding or a failed replay is what is being compared.
func run(t *testing.T, verb func(context.Context, []string, io.Reader, io.Writer, io.Writer) error, stdin io.Reader, args ...string) string {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var stdout, stderr bytes.Buffer
	err := verb(context.Background(), args, stdin, &stdout, &stderr)
	if cli.ExitCode(err) == cli.ExitTrouble {
		t.Fatalf("%v: %v\n%s", args, err, stderr.String())
	}
	return stdout.String()
}

// overlappingRuns writes n logs into one directory that share most of
// their files (given by path) and some inline content, each with a few
// files and a prompt of its own, and returns the logs' paths. tag makes
// the runs of one call differ from those of another.
func overlappingRuns(t *testing.T, dir, tag string, n int) []string {
	t.Helper()
	for i := 0; i < 150; i++ {
		p := filepath.Join(dir, "shared", fmt.Sprintf("f%03d.txt", i))
		if _, err := os.Stat(p); err != nil {
			writeFile(t, p, []byte(strings.Repeat(fmt.Sprintf("shared file %d\n", i), 1+i%40)))
		}
	}
	var logs []string
	for r := 0; r < n; r++ {
		var inputs []map[string]string
		for i := 0; i < 150; i++ {
			if (i+r)%4 != 0 { // each run has three quarters of the shared files
				inputs = append(inputs, map[string]string{"path": fmt.Sprintf("shared/f%03d.txt", i)})
			}
		}
		for i := 0; i < 10; i++ {
			name := fmt.Sprintf("own/%s-%d/g%d.txt", tag, r, i)
			writeFile(t, filepath.Join(dir, name), []byte(fmt.Sprintf("run %s-%d file %d\n", tag, r, i)))
			inputs = append(inputs, map[string]string{"path": name})
		}
		inputs = append(inputs, map[string]string{"name": "common-note.md", "content": "the same note in every run\n"})
		log, err := json.Marshal(map[string]any{
			"created":       fmt.Sprintf("2026-03-01T00:%02d:00Z", r),
			"model":         map[string]string{"identifier": "m"},
			"system_prompt": "you are careful",
			"prompts":       []map[string]string{{"content": fmt.Sprintf("run %s-%d", tag, r)}},
			"inputs":        inputs,
			"steps": []map[string]any{
				{"tool": "read_file", "parameters": map[string]string{"path": "shared/f001.txt"}, "output": "shared file 1\n"},
				{"tool": "bash", "parameters": map[string]string{"command": "make"}, "output": fmt.Sprintf("built %s-%d\n", tag, r)},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, fmt.Sprintf("run-%s-%d.json", tag, r))
		writeFile(t, p, log)
		logs = append(logs, p)
	}
	return logs
}

// checkIntact fails the test unless fsck finds nothing at all, not even a
// temporary file: every writer has finished, so none may be left.
func checkIntact(t *testing.T, st, what string) {
	t.Helper()
	for _, p := range runFsck(t, st, "--tmp-age", "0s") {
		t.Errorf("%s: fsck: %s %s: %s", what, p.Kind, p.Object, p.Detail)
	}
}

// logHashes returns the hashes ctx log lists, as ctx:// names.
func logHashes(t *testing.T, st string) map[string]bool {
	t.Helper()
	out := mustCtx(t, "", "ctx-log", "--store", st, "--json")
	got := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var e struct{ Hash string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("ctx log --json: %q: %v", line, err)
		}
		got["ctx://"+strings.TrimPrefix(e.Hash, "sha256:")] = true
	}
	return got
}

// goTool is the go command the tests build programs and list packages
// with: the one on PATH, else $GOROOT's.
func goTool(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("go")
	if err != nil {
		p = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	return p
}

// tempFiles lists the temporary files of a store: tmp/'s, and every .tmp-*
// beside the files the store replaces (relative paths).
func tempFiles(t *testing.T, st string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(st, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(st, p)
		if strings.HasPrefix(d.Name(), ".tmp-") || strings.HasPrefix(rel, "tmp"+string(filepath.Separator)) {
			out = append(out, rel)
		}
		return nil
	})
	return out
}
