package replay

import (
	"os"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
	"github.com/contextsubstrate/ctx/lib/sandbox"
)

// TestMain makes this test binary the sandbox's launcher too, as
// ctx-replay is: started with sandbox.LaunchFlag, it confines itself and
// executes the step's program.
func TestMain(m *testing.M) {
	if sandbox.IsLaunch(os.Args) {
		os.Exit(sandbox.Launch(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// testSandbox is a sandbox for the workspace ws whose launcher is this
// test binary, or nil where there is none (no Landlock).
func testSandbox(t *testing.T, ws string) *sandbox.Sandbox {
	t.Helper()
	if _, err := sandbox.LandlockABI(); err != nil {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sb, err := sandbox.New(exe, sandbox.Policy{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	return sb
}

// TestSandboxedShellStep: a shell step runs in the sandbox (the report
// names it) and cannot read beside the workspace; its step says where its
// output differs and that the sandbox refused the file; unconfined it can
// read it.
func TestSandboxedShellStep(t *testing.T) {
	if _, err := sandbox.LandlockABI(); err != nil {
		t.Skip(err)
	}
	secret := t.TempDir() + "/secret.txt"
	if err := os.WriteFile(secret, []byte("top secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st := storetest.New(t)
	m := packtest.Pack(t, st, `{"model": {"identifier": "m"}, "prompts": [], "steps": [
	  {"tool": "bash", "parameters": {"command": "cat `+secret+`"}, "output": "top secret\n"}]}`)
	steps, rep, err := replayPack(t, st, m, Options{AllowExec: true})
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Status != replaystream.Diverged || !strings.HasPrefix(rep.Sandbox, "landlock ABI ") {
		t.Errorf("sandboxed: step %+v, sandbox %q; want diverged in landlock", steps[0], rep.Sandbox)
	}
	if want := "the sandbox refused " + secret + ": "; !strings.HasPrefix(steps[0].Note, want) {
		t.Errorf("sandboxed: note %q; want it to start %q", steps[0].Note, want)
	}
	if d := steps[0].Differs; d == nil || d.Line != 1 || d.A != "top secret" || !strings.Contains(d.B, "Permission denied") {
		t.Errorf("sandboxed: differs %+v; want line 1, the secret against the refusal", d)
	}
	steps, rep, err = replayPack(t, st, m, Options{AllowExec: true, Unconfined: "--no-sandbox"})
	if err != nil {
		t.Fatal(err)
	}
	if steps[0].Status != replaystream.Matched || rep.Sandbox != "none (--no-sandbox)" || steps[0].Note != "" || steps[0].Differs != nil {
		t.Errorf("unconfined: step %+v, sandbox %q; want matched, none", steps[0], rep.Sandbox)
	}
}
