package ctx_test

import (
	"bytes"
	"github.com/contextsubstrate/ctx/internal/ctxtest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ctxEnv runs a ctx-* program in dir with extra environment variables and
// returns its stdout, stderr and exit code.
func ctxEnv(t *testing.T, dir string, env []string, prog string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), ctxtest.ExitCode(err)
}

// foreignStore makes a store with a pack and a config.json tool, gives it
// to another user (nobody, 65534: the tests run as root here; elsewhere the
// test is skipped) and returns the project directory.
func foreignStore(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("giving a store to another user needs root")
	}
	dir := t.TempDir()
	ctxtest.Must(t, dir, "ctx-init")
	ctxtest.WriteFile(t, filepath.Join(dir, "run.json"), []byte(`{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],
		"steps":[{"tool":"mark","parameters":{},"output":"ran\n"}]}`))
	ctxtest.Must(t, dir, "ctx-pack", "run.json")
	ctxtest.WriteFile(t, filepath.Join(dir, ".ctx", "config.json"), []byte(`{"version":1,"tools":{"mark":{"command":["sh","-c","touch `+filepath.Join(dir, "pwned")+`; echo ran"]}}}`))
	err := filepath.Walk(filepath.Join(dir, ".ctx"), func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, 65534, 65534)
	})
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(dir, "shared", "mine"), 0o755)
	return dir
}

// TestForeignStoreRefused: a store found by walking up that another user
// owns is refused by every verb that would use it (exit 2, naming it and
// how to allow it); nothing is packed into it. CTX_SAFE_STORES, the user's
// safe-stores file or --store lets it be used.
func TestForeignStoreRefused(t *testing.T) {
	dir := foreignStore(t)
	wd := filepath.Join(dir, "shared", "mine")
	ctxtest.WriteFile(t, filepath.Join(wd, "private.json"), []byte(`{"model":{"identifier":"m"},"prompts":[{"content":"my secret"}],"steps":[]}`))
	root := filepath.Join(dir, ".ctx")
	cfgHome := t.TempDir()
	noList := []string{"CTX_SAFE_STORES=", "XDG_CONFIG_HOME=" + cfgHome}
	for _, args := range [][]string{{"ctx-log"}, {"ctx-pack", "private.json"}, {"ctx-replay", "latest"}, {"ctx-show", "latest"}} {
		out, errOut, code := ctxEnv(t, wd, noList, args[0], args[1:]...)
		if code != 2 || out != "" {
			t.Errorf("%v: exit %d, stdout %q", args, code, out)
		}
		if !strings.Contains(errOut, "error: "+root+" is owned by another user (uid 65534); ctx uses a store it finds by walking up only when you own it") ||
			!strings.Contains(errOut, "hint: if you trust it, allow it: CTX_SAFE_STORES="+root+", or add that path to "+filepath.Join(cfgHome, "ctx", "safe-stores")) {
			t.Errorf("%v: stderr:\n%s", args, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("a tool of the foreign store's config.json ran")
	}
	if out, _, _ := ctxEnv(t, dir, []string{"CTX_SAFE_STORES=*"}, "ctx-log", "--json"); strings.Count(out, `"hash"`) != 1 {
		t.Errorf("the private run went into the store: %s", out)
	}

	// Allowed: by the variable (the store or the directory holding it, or
	// *), by the user's file, or named.
	for _, env := range [][]string{
		{"CTX_SAFE_STORES=/elsewhere:" + root},
		{"CTX_SAFE_STORES=" + dir},
		{"CTX_SAFE_STORES=*"},
	} {
		if _, errOut, code := ctxEnv(t, wd, append(noList, env...), "ctx-log"); code != 0 {
			t.Errorf("%v: exit %d\n%s", env, code, errOut)
		}
	}
	ctxtest.WriteFile(t, filepath.Join(cfgHome, "ctx", "safe-stores"), []byte("# trusted\n/nowhere\n"+root+"\n"))
	if _, errOut, code := ctxEnv(t, wd, noList, "ctx-log"); code != 0 {
		t.Errorf("with the safe-stores file: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := ctxEnv(t, wd, []string{"CTX_SAFE_STORES=", "XDG_CONFIG_HOME=" + t.TempDir()}, "ctx-log", "--store", root); code != 0 {
		t.Errorf("with --store: exit %d\n%s", code, errOut)
	}
}

// TestForeignStoreToolsNotRun: named with --store, another user's store can
// be read and replayed, but the tools of its config.json do not run (exit
// 2, naming the store and how to allow it) until the user allows it.
func TestForeignStoreToolsNotRun(t *testing.T) {
	dir := foreignStore(t)
	root := filepath.Join(dir, ".ctx")
	env := []string{"CTX_SAFE_STORES=", "XDG_CONFIG_HOME=" + t.TempDir()}
	// The tool leaves its mark beside the store, outside the workspace:
	// only unconfined can it write there (the sandbox has its own tests).
	_, errOut, code := ctxEnv(t, t.TempDir(), env, "ctx-replay", "--no-sandbox", "--store", root, "latest")
	if code != 2 || !strings.Contains(errOut, root+" is owned by another user (uid 65534): the tools of its config.json are not run") ||
		!strings.Contains(errOut, "hint: if you trust it, allow it: CTX_SAFE_STORES="+root) {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Fatal("a tool of the foreign store's config.json ran")
	}
	if _, errOut, code := ctxEnv(t, t.TempDir(), []string{"CTX_SAFE_STORES=" + root}, "ctx-replay", "--no-sandbox", "--store", root, "latest"); code != 0 {
		t.Errorf("allowed: exit %d\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err != nil {
		t.Error("allowed, the tool did not run")
	}
	// Sandboxed (the default), an allowed store's tool runs too: its
	// output is the recorded one.
	os.Remove(filepath.Join(dir, "pwned"))
	out, errOut, code := ctxEnv(t, t.TempDir(), []string{"CTX_SAFE_STORES=" + root}, "ctx-replay", "--store", root, "latest")
	if code != 0 || !strings.Contains(out, `"status":"matched"`) {
		t.Errorf("allowed, sandboxed: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("the sandboxed tool wrote outside the workspace")
	}
}
