// Package agenttest runs the real coding agents (Claude Code, Codex, Gemini
// CLI, OpenCode, installed from npm in testdata/npm) in tests: each in a
// home of its own, headless, against internal/modelstub, the local
// stand-in of its model API, with everything that could leave the machine
// turned off or sent to the stand-in, which refuses it and logs it.
//
//	stub := agenttest.StartStub(t, script)        // the model API, on 127.0.0.1
//	home := agenttest.NewHome(t, agenttest.ClaudeCode, stub)
//	res := home.Prompt(t, dir, "fix the bug")     // claude -p ... in dir
//	reqs := stub.Requests(t)                      // what the agent sent
//
// A test that needs an agent that is not installed skips, or fails under
// CTX_REQUIRE_INTEROP (internal/interop's policy). It never installs
// anything: .ci/run does.
package agenttest

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/contextsubstrate/ctx/internal/modelstub"
)

// Stub is a running stand-in of the model APIs: the program
// internal/modelstub/cmd/modelstub, built for the test.
type Stub struct {
	URL        string // http://127.0.0.1:PORT
	ScriptPath string // its script, read at every request
	LogPath    string // its request log, a JSON line per request
}

// StartStub builds and starts the stand-in answering from script; it stops
// when the test ends.
func StartStub(t testing.TB, script modelstub.Script) *Stub {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "modelstub")
	build := exec.Command(goTool(), "build", "-o", bin, "github.com/contextsubstrate/ctx/internal/modelstub/cmd/modelstub")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build internal/modelstub/cmd/modelstub: %v\n%s", err, out)
	}
	s := &Stub{ScriptPath: filepath.Join(dir, "script.json"), LogPath: filepath.Join(dir, "requests.jsonl")}
	s.SetScript(t, script)
	cmd := exec.Command(bin, "-script", s.ScriptPath, "-log", s.LogPath, "-stdin")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the model stand-in: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("the model stand-in printed no address: %v", err)
	}
	s.URL = strings.TrimSpace(line)
	return s
}

// SetScript replaces the stand-in's script (the next request reads it).
func (s *Stub) SetScript(t testing.TB, script modelstub.Script) {
	t.Helper()
	if err := modelstub.WriteScript(s.ScriptPath, script); err != nil {
		t.Fatal(err)
	}
}

// Requests returns every request the stand-in got so far, in the order
// they came.
func (s *Stub) Requests(t testing.TB) []modelstub.Record {
	t.Helper()
	recs, err := modelstub.ReadLog(s.LogPath)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	return recs
}

// Turns returns the requests answered with a scripted turn: the agent's
// main loop, as opposed to its side requests (titles, token counts,
// routing).
func (s *Stub) Turns(t testing.TB) []modelstub.Record {
	t.Helper()
	var out []modelstub.Record
	for _, r := range s.Requests(t) {
		if r.Answer == "turn" {
			out = append(out, r)
		}
	}
	return out
}

// CheckNothingLeft fails the test when a request tried to leave the
// machine through the stand-in (an agent's update check, telemetry or
// download, refused and logged as "escape"), or when the script called a
// tool a request did not offer.
func (s *Stub) CheckNothingLeft(t testing.TB) {
	t.Helper()
	for _, r := range s.Requests(t) {
		if r.Answer == "escape" {
			t.Errorf("request %d tried to reach %s (refused by the stand-in)", r.Seq, r.Host)
		}
		for _, p := range r.Problems {
			t.Errorf("request %d (%s %s): %s", r.Seq, r.Method, r.Path, p)
		}
	}
}

func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}
