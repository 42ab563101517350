package sandbox

import (
	"encoding/json"
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
	s := &Sandbox{launcher: "/bin/ctx-replay", policy: Policy{Workspace: "/w", ReadOnly: []string{"/r/objects"}}, scratch: "/s", abi: 7}
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
	if !reflect.DeepEqual(prog, []string{"/bin/sh", "-c", "echo hi"}) || !r.NoNet || r.ABI != 7 ||
		!reflect.DeepEqual(r.RW, []string{"/w", "/s"}) || r.RO[len(r.RO)-1] != "/r/objects" {
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
