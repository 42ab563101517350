package sandbox

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestEnvAllowList(t *testing.T) {
	s := &Sandbox{policy: Policy{Env: []string{"GOFLAGS"}}, scratch: "/s"}
	got := s.Env([]string{"PATH=/usr/bin", "LANG=C", "LC_ALL=C", "TERM=xterm", "TZ=UTC", "HOME=/root", "TMPDIR=/tmp",
		"GITHUB_TOKEN=secret", "GOFLAGS=-mod=mod", "LC=x", "PATHX=y", "noequals"}, "CTX_PACK=p")
	want := []string{"PATH=/usr/bin", "LANG=C", "LC_ALL=C", "TERM=xterm", "TZ=UTC", "GOFLAGS=-mod=mod",
		"HOME=/s/home", "TMPDIR=/s/tmp", "CTX_PACK=p"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Env =\n%q\nwant\n%q", got, want)
	}
}

func TestArgvRoundTrip(t *testing.T) {
	s := &Sandbox{launcher: "/bin/ctx-replay", policy: Policy{Workspace: "/w", ReadOnly: []string{"/r/objects"}, MaxProcs: 64, MaxMemory: 1 << 30},
		scratch: "/s", abi: 7, seccomp: true}
	s.once.Do(func() {}) // no namespaces
	argv, err := s.Argv([]string{"/bin/sh", "-c", "echo hi"}, "/bin/sh")
	if err != nil {
		t.Fatal(err)
	}
	if argv[0] != "/bin/ctx-replay" || !IsLaunch(argv) {
		t.Fatalf("argv %q does not start the launcher", argv)
	}
	r, prog, err := parseLaunch(argv[1:])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(prog, []string{"/bin/sh", "-c", "echo hi"}) || !r.NoNet || r.ABI != 7 || !r.Init || !r.Seccomp ||
		r.Procs != 64 || r.Data != 1<<30 || r.UserNS || !reflect.DeepEqual(r.RW, []string{"/w", "/s"}) || r.RO[len(r.RO)-1] != "/r/objects" {
		t.Errorf("parsed %+v %q", r, prog)
	}
	if _, err := s.Argv([]string{"sh"}); err == nil {
		t.Error("a relative program was accepted")
	}
}

func TestParseLaunchRefuses(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{LaunchFlag + "={}", "/bin/sh"},
		{LaunchFlag + "={}", "--", "sh"},
		{LaunchFlag + "={\"rw\":1}", "--", "/bin/sh"},
		{LaunchFlag + "={\"unknown\":1}", "--", "/bin/sh"},
		{LaunchFlag + "={\"procs\":-1}", "--", "/bin/sh"},
		{LaunchFlag + "={\"data\":-1}", "--", "/bin/sh"},
		{"--other={}", "--", "/bin/sh"},
	} {
		if _, _, err := parseLaunch(args); err == nil {
			t.Errorf("parseLaunch(%q) accepted", args)
		}
	}
}

// FuzzParseLaunch: the launcher's arguments never crash it, and what it
// accepts names an absolute program and rules that encode again.
func FuzzParseLaunch(f *testing.F) {
	f.Add(`{"rw":["/w"],"ro":["/usr"],"ro_files":[],"rw_files":[],"no_net":true,"abi":7}`, "/bin/sh")
	f.Add(`{}`, "relative")
	f.Fuzz(func(t *testing.T, rules, prog string) {
		r, argv, err := parseLaunch([]string{LaunchFlag + "=" + rules, "--", prog})
		if err != nil {
			return
		}
		if !strings.HasPrefix(argv[0], "/") {
			t.Fatalf("accepted the relative program %q", argv[0])
		}
		if _, err := json.Marshal(r); err != nil {
			t.Fatal(err)
		}
	})
}

func TestPathDirs(t *testing.T) {
	got := pathDirs("/usr/bin:.:bin:/home/u/go/bin:/home/u:/home:/:/opt/x/", "/home/u")
	want := []string{"/usr/bin", "/home/u/go/bin", "/opt/x"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("pathDirs = %q, want %q", got, want)
	}
}

func TestManagerTrees(t *testing.T) {
	const h = "/home/u"
	path := strings.Join([]string{
		"/usr/bin",
		h + "/.pyenv/shims",                                 // pyenv: its tree
		h + "/.rbenv/shims",                                 // rbenv
		h + "/.asdf/shims",                                  // asdf
		h + "/.local/share/mise/shims",                      // mise
		h + "/.nvm/versions/node/v20.11.0/bin",              // nvm: the versions of node
		h + "/.local/share/mise/installs/python/3.12.1/bin", // mise activate
		h + "/.pyenv/versions/3.12.1/bin",                   // a version's bin
		h + "/.pyenv/shims",                                 // again
		h + "/shims",                                        // would be the home directory
		h + "/.config/shims",                                // would hold ~/.config
		h + "/.local/shims",                                 // would hold ~/.local/share/keyrings
		h + "/versions/x/bin",                               // "versions" right under home: no manager's
		h + "/.cargo/bin",                                   // a plain bin: PATH opens it, no more
		"/opt/pyenv/shims",                                  // outside the home directory: PATH opens it
		"relative/shims",
	}, ":")
	want := []string{h + "/.pyenv", h + "/.rbenv", h + "/.asdf", h + "/.local/share/mise", h + "/.nvm/versions/node",
		h + "/.local/share/mise/installs/python", h + "/.pyenv/versions/3.12.1"}
	if got := managerTrees(path, h); !reflect.DeepEqual(got, want) {
		t.Errorf("managerTrees =\n%q\nwant\n%q", got, want)
	}
	if got := managerTrees(path, ""); got != nil {
		t.Errorf("without a home directory: %q", got)
	}
}

// TestExplain: the notes of what a sandboxed program printed: a path the
// sandbox closes that exists (or whose directory does) is named, one it
// opens is not the sandbox's doing; the network, the bounds; nothing for
// output that shows none of these.
func TestExplain(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	s := &Sandbox{policy: Policy{Workspace: ws, MaxProcs: 32, MaxMemory: 64 << 20}, scratch: t.TempDir(), seccomp: true}
	for _, c := range []struct{ out, want string }{
		{"cat: " + secret + ": Permission denied", "the sandbox refused " + secret + ": only the workspace"},
		{"open '" + secret + "': permission denied", "the sandbox refused " + secret + ":"},
		{"touch: cannot touch '" + outside + "/new': Permission denied", "the sandbox refused " + outside + "/new:"},
		{"PermissionError: [Errno 13] Permission denied: '" + ws + "'", ""}, // the workspace's own mode
		{"cat: /etc/shadow: Permission denied", ""},                         // /etc is open: the file's own mode
		{"PermissionError: [Errno 13] Permission denied: '/nonexistent/dir/x'", "the sandbox may have refused an access"},
		{"PermissionError: [Errno 13] Permission denied", "and no Unix socket can be made (--no-sandbox runs without the sandbox)"},
		{"dial tcp 10.0.0.1:443: connect: permission denied", "may have refused a connection (\"dial tcp 10.0.0.1:443: connect: permission denied\"): it closes the host's Unix sockets, and the network (--allow-net opens it)"},
		{"curl: (6) Could not resolve host: example.com", "the sandbox has no network (\"curl: (6) Could not resolve host: example.com\"; --allow-net opens it)"},
		{"Traceback\nMemoryError", "bound of 64 MiB of memory per process (\"MemoryError\"; --max-memory raises it)"},
		{"sh: 1: Cannot fork", "bound of 32 processes (\"sh: 1: Cannot fork\"; --max-procs raises it)"},
		{"hello\nall good", ""},
	} {
		got := s.Explain(c.out, 0)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("Explain(%q) = %q; want %q in it", c.out, got, c.want)
		}
	}
	if got := s.Explain("", 3); got != "the sandbox refused 3 new processes: the step reached its bound of 32 processes (--max-procs raises it)" {
		t.Errorf("the cgroup's count: %q", got)
	}
	s.policy.AllowNet, s.policy.MaxMemory = true, 0
	if got := s.Explain("Could not resolve host: x\nout of memory", 0); got != "" {
		t.Errorf("with the network open and no memory bound: %q", got)
	}
}

// FuzzExplain: a program's output, whatever it holds, never crashes
// Explain, and output that shows no sign of a refusal gets no note.
func FuzzExplain(f *testing.F) {
	f.Add("cat: /etc/passwd: Permission denied\nCannot fork")
	f.Add("dial unix /run/x.sock: socket: permission denied")
	f.Add("MemoryError\n\x00\xff Could not resolve host")
	f.Add("(/(/:[/")
	s := &Sandbox{policy: Policy{Workspace: "/nonexistent-ws", MaxProcs: 8, MaxMemory: 1 << 20}, scratch: "/nonexistent-s", seccomp: true}
	f.Fuzz(func(t *testing.T, out string) {
		note := s.Explain(out, 0)
		low := strings.ToLower(out)
		for _, w := range []string{"denied", "permitted", "eacces", "eperm", "network", "resolve", "host", "name", "memory",
			"alloc", "segmentation", "fork", "unavailable", "thread"} {
			if strings.Contains(low, w) {
				return
			}
		}
		if note != "" {
			t.Fatalf("Explain(%q) = %q with no sign of a refusal", out, note)
		}
	})
}
