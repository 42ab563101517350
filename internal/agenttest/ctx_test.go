package agenttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ctxTool runs the ctx programs the session tests need (ctx init, ctx
// capture, ctx restore, ctx log, ctx pack), built for the test, on a store of its
// own, with an agent home's environment: the variables that name the
// agents' stores are the ones the agents ran with.
type ctxTool struct {
	bin   string // the folder of the programs
	store string // the .ctx folder
}

func newCtxTool(t *testing.T) *ctxTool {
	t.Helper()
	c := &ctxTool{bin: t.TempDir()}
	build := exec.Command(goTool(), "build", "-o", c.bin, "github.com/contextsubstrate/ctx/cmd/ctx-init",
		"github.com/contextsubstrate/ctx/cmd/ctx-capture", "github.com/contextsubstrate/ctx/cmd/ctx-restore",
		"github.com/contextsubstrate/ctx/cmd/ctx-log", "github.com/contextsubstrate/ctx/cmd/ctx-pack")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build the ctx programs: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if out, err := exec.Command(filepath.Join(c.bin, "ctx-init"), dir).CombinedOutput(); err != nil {
		t.Fatalf("ctx init: %v\n%s", err, out)
	}
	c.store = filepath.Join(dir, ".ctx")
	return c
}

// ctxResult is one run of a ctx program.
type ctxResult struct {
	stdout, stderr []byte
	code           int
}

// try runs ctx-VERB with args in dir, in home's environment.
func (c *ctxTool) try(t *testing.T, home *Home, dir, verb string, args ...string) ctxResult {
	t.Helper()
	cmd := exec.Command(filepath.Join(c.bin, "ctx-"+verb), args...)
	cmd.Dir = dir
	cmd.Env = append(home.Env(), "CTX_STORE="+c.store)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := ctxResult{stdout: stdout.Bytes(), stderr: stderr.Bytes()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ctx %s: %v", verb, err)
	}
	t.Logf("ctx %s %s: exit %d\n%s", verb, strings.Join(args, " "), r.code, r.stderr)
	return r
}

// json runs ctx-VERB --json, fails the test unless it exits 0, and
// decodes its output into v.
func (c *ctxTool) json(t *testing.T, home *Home, dir string, v any, verb string, args ...string) ctxResult {
	t.Helper()
	r := c.try(t, home, dir, verb, append([]string{"--json"}, args...)...)
	if r.code != 0 {
		t.Fatalf("ctx %s --json %s: exit %d\n%s", verb, strings.Join(args, " "), r.code, r.stderr)
	}
	if err := json.Unmarshal(r.stdout, v); err != nil {
		t.Fatalf("ctx %s --json: %v\n%s", verb, err, r.stdout)
	}
	return r
}

// captureReport is what ctx capture --json prints (lib/session's
// CaptureReport, read as a user's jq would).
type captureReport struct {
	Captured []struct {
		Agent, Session, Status, Pack, Tag, File string
		Parent                                  *string
		Files, Steps                            int
	}
	Unchanged, Sessions int
	Failed              []any
}

// restored is what ctx restore --json prints.
type restored struct {
	Agent, Session, Mode, Status, File, Cwd, Provider string
	Resume, Lost                                      []string
	ProviderConfigured                                *bool `json:"provider_configured"`
}

// capture runs ctx capture --json of agent's sessions in dir and checks
// it packed exactly one, new.
func (c *ctxTool) capture(t *testing.T, home *Home, dir, agent string) captureReport {
	t.Helper()
	var rep captureReport
	c.json(t, home, dir, &rep, "capture", "--from", agent, dir)
	if len(rep.Captured) != 1 || rep.Captured[0].Status != "new" || len(rep.Failed) != 0 {
		t.Fatalf("ctx capture --from %s %s: %+v, want one new session", agent, dir, rep)
	}
	return rep
}

// logged is a pack as ctx log --json lists it.
type logged struct {
	Hash string
	Refs []string
}

// log runs ctx log --json and decodes its lines.
func (c *ctxTool) log(t *testing.T, home *Home, dir string) []logged {
	t.Helper()
	r := c.try(t, home, dir, "log", "--json")
	var out []logged
	for _, line := range bytes.Split(bytes.TrimSpace(r.stdout), []byte("\n")) {
		var e logged
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("ctx log --json: %v\n%s", err, r.stdout)
		}
		out = append(out, e)
	}
	return out
}
