//go:build unix

package ctxcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/cli"
)

// lookupPath makes the lookup path CTX_EXEC_PATH=dirs[0]:dirs[1]..., with
// an empty PATH directory after it, and returns the directories. The test
// binary's own directory sits between them; it holds no ctx-* files.
func lookupPath(t testing.TB, n int) []string {
	t.Helper()
	tmp := t.TempDir()
	var dirs []string
	for i := range n {
		d := filepath.Join(tmp, "d"+string(rune('1'+i)))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CTX_EXEC_PATH", strings.Join(dirs, ":"))
	t.Setenv("PATH", empty)
	return dirs
}

func script(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// runCtx runs the dispatcher in-process on buffers (so it runs the verb as a
// child) and returns stdout, stderr and the exit code.
func runCtx(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := Run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	code := cli.Report(name, err, &stderr)
	return stdout.String(), stderr.String(), code
}

func TestRunPassesEverythingThrough(t *testing.T) {
	dirs := lookupPath(t, 1)
	// Only shell built-ins: PATH is empty.
	script(t, filepath.Join(dirs[0], "ctx-echo"), `#!/bin/sh
for a in "$@"; do printf '[%s]' "$a"; done
echo
while IFS= read -r line; do echo "in: $line"; done
echo "to stderr" >&2
exit 7
`, 0o755)
	stdout, stderr, code := runCtx(t, "one\ntwo\n", "echo", "a b", "--store", "-", "--", "")
	if want := "[a b][--store][-][--][]\nin: one\nin: two\n"; stdout != want {
		t.Errorf("stdout = %q, want %q", stdout, want)
	}
	if stderr != "to stderr\n" {
		t.Errorf("stderr = %q, want the verb's own", stderr)
	}
	if code != 7 {
		t.Errorf("exit code = %d, want the verb's 7", code)
	}
}

func TestRunSignalStatus(t *testing.T) {
	dirs := lookupPath(t, 1)
	script(t, filepath.Join(dirs[0], "ctx-die"), "#!/bin/sh\nkill -TERM $$\n", 0o755)
	if _, _, code := runCtx(t, "", "die"); code != 128+15 {
		t.Errorf("exit code = %d, want 143 (killed by SIGTERM)", code)
	}
}

func TestRunFirstInLookupOrder(t *testing.T) {
	dirs := lookupPath(t, 2)
	script(t, filepath.Join(dirs[0], "ctx-which"), "#!/bin/sh\necho first\n", 0o755)
	script(t, filepath.Join(dirs[1], "ctx-which"), "#!/bin/sh\necho second\n", 0o755)
	script(t, filepath.Join(dirs[0], "ctx-skip"), "#!/bin/sh\necho not executable\n", 0o644)
	script(t, filepath.Join(dirs[1], "ctx-skip"), "#!/bin/sh\necho executable\n", 0o755)
	if out, _, _ := runCtx(t, "", "which"); out != "first\n" {
		t.Errorf("ctx which ran %q, want the first directory's", out)
	}
	if out, _, _ := runCtx(t, "", "skip"); out != "executable\n" {
		t.Errorf("ctx skip ran %q, want the executable one", out)
	}
}

func TestRunScriptWithoutInterpreterLine(t *testing.T) {
	dirs := lookupPath(t, 1)
	script(t, filepath.Join(dirs[0], "ctx-bare"), "echo hi\n", 0o755)
	_, stderr, code := runCtx(t, "", "bare")
	if code != 2 || !strings.HasPrefix(stderr, "ctx: error: cannot run "+filepath.Join(dirs[0], "ctx-bare")+": ") ||
		!strings.Contains(stderr, "ctx: hint: a script needs a first line such as #!/bin/sh\n") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestRefusedNamesAreNeverLookedUp plants a program where a name with a
// path in it would reach, and checks it never runs.
func TestRefusedNamesAreNeverLookedUp(t *testing.T) {
	dirs := lookupPath(t, 1)
	marker := filepath.Join(t.TempDir(), "ran")
	planted := "#!/bin/sh\necho ran > " + marker + "\n"
	// ctx-../x from dirs[0] is dirs[0]/ctx-../x.
	script(t, filepath.Join(dirs[0], "ctx-..", "x"), planted, 0o755)
	script(t, filepath.Join(dirs[0], "ctx-sub", "x"), planted, 0o755)
	script(t, filepath.Join(dirs[0], "ctx-tool-x"), planted, 0o755)
	script(t, filepath.Join(dirs[0], "ctx--x"), planted, 0o755)
	script(t, filepath.Join(dirs[0], "ctx-."), planted, 0o755)
	for _, args := range [][]string{{"../x"}, {"sub/x"}, {"help", "../x"}, {"tool-x"}, {"-x"}, {"."}, {"help", "-x"}, {""}} {
		_, stderr, code := runCtx(t, "", args...)
		if code != 2 || !strings.HasPrefix(stderr, "ctx: error: ") {
			t.Errorf("ctx %q: exit %d, stderr %q; want exit 2 and an error", args, code, stderr)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("ctx %q ran the planted program", args)
		}
	}
}

func TestUnknownVerb(t *testing.T) {
	dirs := lookupPath(t, 2)
	for _, v := range []string{"pack", "show", "cat", "checkout", "frob"} {
		script(t, filepath.Join(dirs[0], "ctx-"+v), "#!/bin/sh\n", 0o755)
	}
	script(t, filepath.Join(dirs[1], "ctx-lazy"), "#!/bin/sh\n", 0o644)
	tests := []struct {
		verb   string
		stderr string
	}{
		{"foo", "ctx: 'foo' is not a ctx command; see 'ctx help'\n"},
		{"shw", "ctx: 'shw' is not a ctx command; see 'ctx help'\nctx: hint: did you mean 'show'?\n"},
		{"frb", "ctx: 'frb' is not a ctx command; see 'ctx help'\nctx: hint: did you mean 'frob'?\n"},
		{"ch", "ctx: 'ch' is not a ctx command; see 'ctx help'\nctx: hint: did you mean 'checkout'?\n"},
		{"cas", "ctx: 'cas' is not a ctx command; see 'ctx help'\nctx: hint: did you mean 'cat'?\n"},
		{"hepl", "ctx: 'hepl' is not a ctx command; see 'ctx help'\nctx: hint: did you mean 'help'?\n"},
		{"lazy", "ctx: 'lazy' is not a ctx command; see 'ctx help'\nctx: hint: " + filepath.Join(dirs[1], "ctx-lazy") + " is there but is not executable\n"},
		{"pac", "ctx: 'pac' is not a ctx command; see 'ctx help'\nctx: hint: did you mean 'pack'?\n"},
		{"a\nb", "ctx: \"a\\nb\" is not a ctx command; see 'ctx help'\n"},
	}
	for _, tt := range tests {
		stdout, stderr, code := runCtx(t, "", tt.verb, "arg")
		if code != 2 || stdout != "" || stderr != tt.stderr {
			t.Errorf("ctx %q: exit %d, stdout %q, stderr\n%q\nwant exit 2 and\n%q", tt.verb, code, stdout, stderr, tt.stderr)
		}
	}
	// One of ours that is not installed is not "unknown".
	_, stderr, code := runCtx(t, "", "replay", "latest")
	want := "ctx: error: 'replay' is a ctx verb, but no ctx-replay program was found\n" +
		"ctx: hint: ctx looks in CTX_EXEC_PATH, then the directory of ctx, then PATH; install ctx-replay in one of them\n"
	if code != 2 || stderr != want {
		t.Errorf("ctx replay: exit %d, stderr %q", code, stderr)
	}
}

func TestHelpListing(t *testing.T) {
	dirs := lookupPath(t, 3)
	d1, d2, d3 := dirs[0], dirs[1], dirs[2]
	for _, v := range []string{"show", "pack", "init"} {
		script(t, filepath.Join(d2, "ctx-"+v), "#!/bin/sh\n", 0o755)
	}
	script(t, filepath.Join(d1, "ctx-zed"), "#!/bin/sh\n", 0o755)
	script(t, filepath.Join(d1, "ctx-foo"), "#!/bin/sh\n", 0o755)
	script(t, filepath.Join(d3, "ctx-foo"), "#!/bin/sh\n", 0o755)
	script(t, filepath.Join(d1, "ctx-bar"), "#!/bin/sh\n", 0o644)
	script(t, filepath.Join(d3, "ctx-pack"), "#!/bin/sh\n", 0o755)
	script(t, filepath.Join(d3, "ctx-tool-read_file"), "#!/bin/sh\n", 0o755)
	script(t, filepath.Join(d1, "ctx-help"), "#!/bin/sh\n", 0o755)
	script(t, filepath.Join(d1, "ctx-a-very-long-verb-name"), "#!/bin/sh\n", 0o755)
	if err := os.Mkdir(filepath.Join(d1, "ctx-dir"), 0o755); err != nil {
		t.Fatal(err)
	}

	for _, args := range [][]string{nil, {"help"}, {"--help"}, {"-h"}, {"help", "help"}, {"help", "version"}} {
		stdout, stderr, code := runCtx(t, "", args...)
		if code != 0 {
			t.Errorf("ctx %q: exit %d", args, code)
		}
		wantOut := intro + `
verbs:
  init                   create an empty store
  pack                   store an execution log as a pack
  show                   show a pack

other ctx-* programs:
  a-very-long-verb-name  ` + d1 + `/ctx-a-very-long-verb-name
  foo                    ` + d1 + `/ctx-foo
  zed                    ` + d1 + `/ctx-zed

replay executors (ctx-tool-*):
  read_file              ` + d3 + `/ctx-tool-read_file
` + outro
		if stdout != wantOut {
			t.Errorf("ctx %q: stdout\n%s\nwant\n%s", args, stdout, wantOut)
		}
		wantErr := "ctx: warning: " + d1 + "/ctx-bar is not executable\n" +
			"ctx: warning: " + d3 + "/ctx-foo is shadowed by " + d1 + "/ctx-foo\n" +
			"ctx: warning: " + d1 + "/ctx-help is never run: 'ctx help' is built into ctx\n" +
			"ctx: warning: " + d3 + "/ctx-pack is shadowed by " + d2 + "/ctx-pack\n"
		if stderr != wantErr {
			t.Errorf("ctx %q: stderr\n%s\nwant\n%s", args, stderr, wantErr)
		}
	}
}

func TestHelpNothingInstalled(t *testing.T) {
	lookupPath(t, 1)
	stdout, stderr, code := runCtx(t, "")
	if code != 0 || stderr != "" || !strings.Contains(stdout, "\nverbs:\n  (none found: install the ctx-* programs beside ctx or on PATH)\n") {
		t.Errorf("exit %d, stderr %q, stdout\n%s", code, stderr, stdout)
	}
}

func TestHelpOnlyOtherPrograms(t *testing.T) {
	dirs := lookupPath(t, 1)
	script(t, filepath.Join(dirs[0], "ctx-foo"), "#!/bin/sh\n", 0o755)
	stdout, _, code := runCtx(t, "", "help")
	want := "\nverbs:\n  (none found: install the ctx-* programs beside ctx or on PATH)\n\nother ctx-* programs:\n  foo       " + dirs[0] + "/ctx-foo\n\n"
	if code != 0 || !strings.Contains(stdout, want) {
		t.Errorf("exit %d, stdout\n%s\nwant it to hold\n%s", code, stdout, want)
	}
}

func TestHelpVerb(t *testing.T) {
	dirs := lookupPath(t, 1)
	script(t, filepath.Join(dirs[0], "ctx-foo"), "#!/bin/sh\necho \"foo $*\"\n", 0o755)
	for _, args := range [][]string{{"help", "foo"}, {"--help", "foo"}, {"-h", "foo"}, {"foo", "--help"}} {
		if stdout, _, code := runCtx(t, "", args...); stdout != "foo --help\n" || code != 0 {
			t.Errorf("ctx %q: exit %d, stdout %q; want ctx-foo --help", args, code, stdout)
		}
	}
	if _, stderr, code := runCtx(t, "", "help", "foo", "bar"); code != 2 ||
		stderr != "ctx: error: ctx help takes at most one verb\nctx: hint: see 'ctx --help'\n" {
		t.Errorf("ctx help foo bar: exit %d, stderr %q", code, stderr)
	}
	if _, stderr, code := runCtx(t, "", "help", "fooo"); code != 2 ||
		stderr != "ctx: 'fooo' is not a ctx command; see 'ctx help'\nctx: hint: did you mean 'foo'?\n" {
		t.Errorf("ctx help fooo: exit %d, stderr %q", code, stderr)
	}
}

func TestVersion(t *testing.T) {
	lookupPath(t, 1)
	for _, args := range [][]string{{"--version"}, {"version"}} {
		stdout, stderr, code := runCtx(t, "", args...)
		if code != 0 || stderr != "" || stdout != "ctx "+cli.Version()+"\n" {
			t.Errorf("ctx %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	if _, stderr, code := runCtx(t, "", "version", "x"); code != 2 || !strings.HasPrefix(stderr, "ctx: error: ctx version takes no arguments\n") {
		t.Errorf("ctx version x: exit %d, stderr %q", code, stderr)
	}
}

// FuzzRun checks that no command line makes the dispatcher panic or exit
// with anything but 0 or 2 when nothing it could run is installed.
func FuzzRun(f *testing.F) {
	for _, s := range []string{"", "help", "help pack", "--version", "version x", "shw", "../x", "-x pack", "help ..", "tool-x", "pack -"} {
		f.Add(s)
	}
	lookupPath(f, 1)
	f.Fuzz(func(t *testing.T, line string) {
		stdout, stderr, code := runCtx(t, "", strings.Fields(line)...)
		if code != 0 && code != 2 {
			t.Fatalf("ctx %q: exit %d", line, code)
		}
		if code == 2 && (stderr == "" || stdout != "") {
			t.Fatalf("ctx %q: exit 2 with stdout %q, stderr %q", line, stdout, stderr)
		}
	})
}
