package cli

import (
	"bytes"
	"errors"
	"flag"
	"strings"
	"testing"
)

// testFlags is the flag set the Parse tests share: a string, a bool, a
// repeatable string, an int with a one-letter name and a dashed bool.
type testFlags struct {
	store      string
	json       bool
	tags       Strings
	n          int
	noSidecars bool
}

func newTestFlags() (*flag.FlagSet, *testFlags) {
	var c testFlags
	fs := flag.NewFlagSet("ctx-test", flag.ContinueOnError)
	StoreFlag(fs, &c.store)
	fs.BoolVar(&c.json, "json", false, "print JSON")
	fs.Var(&c.tags, "tag", "a `NAME` (repeatable)")
	fs.IntVar(&c.n, "n", 0, "limit to `N`")
	fs.BoolVar(&c.noSidecars, "no-sidecars", false, "no sidecars")
	return fs, &c
}

func testUsage() Usage {
	return Usage{
		Name:     "ctx-test",
		Synopsis: "ctx test [flags] A B",
		Summary:  "Test the flag parser.",
		Help:     "A paragraph of help.",
		Examples: "ctx test a b\nctx test --json a b | jq .",
	}
}

func TestParseFlagsAnywhere(t *testing.T) {
	tests := []struct {
		name string
		args []string
		pos  []string
		want testFlags
	}{
		{"none", nil, nil, testFlags{}},
		{"before", []string{"--json", "a", "b"}, []string{"a", "b"}, testFlags{json: true}},
		{"between", []string{"a", "--json", "b"}, []string{"a", "b"}, testFlags{json: true}},
		{"after", []string{"a", "b", "--store", "s"}, []string{"a", "b"}, testFlags{store: "s"}},
		{"single dash and equals", []string{"-store=s", "a", "-n", "3"}, []string{"a"}, testFlags{store: "s", n: 3}},
		{"bool with value", []string{"--json=false", "a"}, []string{"a"}, testFlags{}},
		{"repeated", []string{"--tag", "x", "a", "--tag", "y"}, []string{"a"}, testFlags{tags: Strings{"x", "y"}}},
		{"dash is positional", []string{"-", "--json"}, []string{"-"}, testFlags{json: true}},
		{"dash between", []string{"a", "-", "b"}, []string{"a", "-", "b"}, testFlags{}},
		{"terminator first", []string{"--", "--json", "-n"}, []string{"--json", "-n"}, testFlags{}},
		{"terminator after flags", []string{"--json", "--", "--store", "x"}, []string{"--store", "x"}, testFlags{json: true}},
		{"terminator after positional", []string{"a", "--", "--json"}, []string{"a", "--json"}, testFlags{}},
		{"second terminator is positional", []string{"--", "a", "--"}, []string{"a", "--"}, testFlags{}},
		{"terminator as a value", []string{"--tag", "--", "a", "--json"}, []string{"a"}, testFlags{json: true, tags: Strings{"--"}}},
		{"terminator as a value in equals form", []string{"--store=--", "a"}, []string{"a"}, testFlags{store: "--"}},
		// --tag takes --store as its value, so the "--" that follows ends
		// the flags and --json is a positional argument.
		{"flag name as a value then terminator", []string{"--tag", "--store", "--", "a", "--json"}, []string{"a", "--json"}, testFlags{tags: Strings{"--store"}}},
		{"value that looks like a terminator then terminator", []string{"--store", "--", "--", "--json"}, []string{"--json"}, testFlags{store: "--"}},
		{"empty positional", []string{"", "--json"}, []string{""}, testFlags{json: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, got := newTestFlags()
			var stdout bytes.Buffer
			pos, err := Parse(fs, tt.args, testUsage(), &stdout)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.args, err)
			}
			if strings.Join(pos, "|") != strings.Join(tt.pos, "|") || len(pos) != len(tt.pos) {
				t.Errorf("Parse(%q) positional = %q, want %q", tt.args, pos, tt.pos)
			}
			if !sameFlags(*got, tt.want) {
				t.Errorf("Parse(%q) flags = %+v, want %+v", tt.args, *got, tt.want)
			}
			if stdout.Len() != 0 {
				t.Errorf("Parse(%q) wrote to stdout: %q", tt.args, stdout.String())
			}
		})
	}
}

// sameFlags compares parsed flags, a nil and an empty tag list alike.
func sameFlags(a, b testFlags) bool {
	return a.store == b.store && a.json == b.json && a.n == b.n && a.noSidecars == b.noSidecars &&
		len(a.tags) == len(b.tags) && strings.Join(a.tags, "\x00") == strings.Join(b.tags, "\x00")
}

func TestParseEnvironment(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want testFlags
	}{
		{"env fills an unset flag", map[string]string{"CTX_STORE": "/env"}, nil, testFlags{store: "/env"}},
		{"command line wins", map[string]string{"CTX_STORE": "/env"}, []string{"--store", "/cli"}, testFlags{store: "/cli"}},
		{"command line wins even when empty", map[string]string{"CTX_STORE": "/env"}, []string{"--store="}, testFlags{}},
		{"bool", map[string]string{"CTX_JSON": "true"}, nil, testFlags{json: true}},
		{"bool off on the command line", map[string]string{"CTX_JSON": "1"}, []string{"--json=false"}, testFlags{}},
		{"dashed name", map[string]string{"CTX_NO_SIDECARS": "1"}, nil, testFlags{noSidecars: true}},
		{"one letter", map[string]string{"CTX_N": "7"}, nil, testFlags{n: 7}},
		{"repeatable: command line replaces env", map[string]string{"CTX_TAG": "e"}, []string{"--tag", "c"}, testFlags{tags: Strings{"c"}}},
		{"repeatable from env", map[string]string{"CTX_TAG": "e"}, nil, testFlags{tags: Strings{"e"}}},
		{"empty env is unset", map[string]string{"CTX_STORE": ""}, nil, testFlags{}},
		{"other prefixes ignored", map[string]string{"STORE": "/x", "CTXSTORE": "/y"}, nil, testFlags{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, k := range []string{"CTX_STORE", "CTX_JSON", "CTX_TAG", "CTX_N", "CTX_NO_SIDECARS"} {
				t.Setenv(k, "")
			}
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fs, got := newTestFlags()
			if _, err := Parse(fs, tt.args, testUsage(), &bytes.Buffer{}); err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !sameFlags(*got, tt.want) {
				t.Errorf("flags = %+v, want %+v", *got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want string // the whole error message
	}{
		{"unknown long flag", nil, []string{"a", "--nope"}, "unknown flag --nope"},
		{"unknown short flag", nil, []string{"-x"}, "unknown flag -x"},
		{"missing value", nil, []string{"a", "--store"}, "flag --store needs a value"},
		{"missing value short", nil, []string{"-n"}, "flag -n needs a value"},
		{"bad int", nil, []string{"-n", "many"}, `invalid value "many" for flag -n: parse error`},
		{"bad bool in env", map[string]string{"CTX_JSON": "yes"}, nil, `CTX_JSON="yes" is not a valid value for --json: parse error`},
		{"bad int in env", map[string]string{"CTX_N": "lots"}, []string{"a"}, `CTX_N="lots" is not a valid value for -n: parse error`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			fs, _ := newTestFlags()
			var stdout bytes.Buffer
			_, err := Parse(fs, tt.args, testUsage(), &stdout)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded, want %q", tt.args, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("Parse(%q) error = %q, want %q", tt.args, err.Error(), tt.want)
			}
			if code := ExitCode(err); code != ExitTrouble {
				t.Errorf("exit code = %d, want %d", code, ExitTrouble)
			}
			var stderr bytes.Buffer
			Report("ctx-test", err, &stderr)
			wantMsg := "ctx-test: error: " + tt.want + "\nctx-test: hint: see 'ctx test --help'\n"
			if stderr.String() != wantMsg {
				t.Errorf("reported\n%s\nwant\n%s", stderr.String(), wantMsg)
			}
			if stdout.Len() != 0 {
				t.Errorf("a usage error wrote to stdout: %q", stdout.String())
			}
		})
	}
}

func TestParseHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"a", "--help"}, {"--json", "b", "-h", "--nope"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Setenv("CTX_JSON", "not a bool") // help wins over a bad environment
			fs, _ := newTestFlags()
			var stdout bytes.Buffer
			_, err := Parse(fs, args, testUsage(), &stdout)
			if !errors.Is(err, flag.ErrHelp) {
				t.Fatalf("Parse(%q) = %v, want flag.ErrHelp", args, err)
			}
			var stderr bytes.Buffer
			if code := Report("ctx-test", err, &stderr); code != ExitOK || stderr.Len() != 0 {
				t.Errorf("Report(help) = %d, stderr %q; want 0 and nothing", code, stderr.String())
			}
			out := stdout.String()
			for _, want := range []string{
				"usage: ctx test [flags] A B\n",
				"\nTest the flag parser.\n",
				"\nA paragraph of help.\n",
				"  --store DIR ",
				"[$CTX_STORE]",
				"  --no-sidecars ",
				"[$CTX_NO_SIDECARS]",
				"  -n N ",
				"  --tag NAME ",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("usage lacks %q:\n%s", want, out)
				}
			}
			if !strings.HasSuffix(out, "\nexamples:\n  ctx test a b\n  ctx test --json a b | jq .\n") {
				t.Errorf("usage does not end with the examples:\n%s", out)
			}
		})
	}
}

func TestEnvName(t *testing.T) {
	for flagName, want := range map[string]string{
		"store":       "CTX_STORE",
		"no-sidecars": "CTX_NO_SIDECARS",
		"allow-exec":  "CTX_ALLOW_EXEC",
		"a.b":         "CTX_A_B",
		"n":           "CTX_N",
	} {
		if got := EnvName(flagName); got != want {
			t.Errorf("EnvName(%q) = %q, want %q", flagName, got, want)
		}
	}
}

// FuzzParse checks, for any command line, that Parse never panics, that a
// successful parse keeps the positional words in their order, and that
// every word after a terminating "--" is positional.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"a b --json",
		"--tag -- a --json",
		"--tag --store -- a --json",
		"- -- -",
		"--store=-- -- --",
		"-n 3 a -h",
		"--nope",
		"a\x00b --json=maybe",
		"",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		fs, _ := newTestFlags()
		var stdout bytes.Buffer
		pos, err := Parse(fs, args, testUsage(), &stdout)
		if err != nil {
			if !errors.Is(err, flag.ErrHelp) && ExitCode(err) != ExitTrouble {
				t.Fatalf("Parse(%q) error %v has exit code %d", args, err, ExitCode(err))
			}
			return
		}
		// The positional words are a subsequence of args, in order.
		j := 0
		for _, w := range args {
			if j < len(pos) && pos[j] == w {
				j++
			}
		}
		if j != len(pos) {
			t.Fatalf("Parse(%q) positional %q is not a subsequence of the arguments", args, pos)
		}
		// Without any "--" or value flag in play, nothing that starts with
		// a dash (other than "-") can be positional.
		for _, w := range pos {
			if strings.HasPrefix(w, "-") && w != "-" && !containsWord(args, "--") {
				t.Fatalf("Parse(%q) took flag-like %q as positional", args, w)
			}
		}
	})
}

func containsWord(args []string, w string) bool {
	for _, a := range args {
		if a == w {
			return true
		}
	}
	return false
}

func TestFirstBoolKeepsTheFirstValue(t *testing.T) {
	var b FirstBool
	if err := b.Set("true"); err != nil {
		t.Fatal(err)
	}
	if err := b.Set("false"); err != nil || !b.Value {
		t.Errorf("a later value replaced the first: %v %v", b.Value, err)
	}
	if err := new(FirstBool).Set("maybe"); err == nil {
		t.Errorf("a non-boolean was accepted")
	}
}

// A Shared flag takes every value of the command line, and from the
// environment only those it accepts: another verb's value is left out,
// and said.
func TestSharedTakesOnlyItsOwnFromTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		env, args  []string
		want, left string
	}{
		{[]string{"CTX_TO", "codex"}, nil, "codex", ""},
		{[]string{"CTX_TO", "atif"}, nil, "", "atif"},
		{[]string{"CTX_TO", "atif"}, []string{"--to", "gemini"}, "gemini", ""},
		{nil, []string{"--to", "atif"}, "atif", ""},
	} {
		if c.env != nil {
			t.Setenv(c.env[0], c.env[1])
		} else {
			t.Setenv("CTX_TO", "")
		}
		to := Shared{Accept: func(v string) bool { return v == "codex" || v == "gemini" }}
		fs := flag.NewFlagSet("ctx-test", flag.ContinueOnError)
		fs.Var(&to, "to", "the `AGENT`")
		if _, err := Parse(fs, c.args, testUsage(), &bytes.Buffer{}); err != nil {
			t.Fatal(err)
		}
		if to.Value != c.want || to.Ignored != c.left {
			t.Errorf("env %v, args %v: value %q, left out %q; want %q, %q", c.env, c.args, to.Value, to.Ignored, c.want, c.left)
		}
		if note := to.IgnoredNote("to", "an agent", "ctx convert's"); (note != "") != (c.left != "") {
			t.Errorf("env %v, args %v: note %q", c.env, c.args, note)
		}
	}
}

// A usage that declares its exit codes lists those and no others, each in
// the words it gives or else the table's; one that declares none lists
// the whole table. A flag too long for the column has its text on the
// next line, so the flag and its placeholder stand apart.
func TestUsageExitCodesAndLongFlags(t *testing.T) {
	u := testUsage()
	u.Exits = []string{"0 no drift", "1 drift found", "2"}
	fs := flag.NewFlagSet("ctx-test", flag.ContinueOnError)
	var s string
	fs.StringVar(&s, "system-prompt-file", "", "read it from `FILE`")
	var b strings.Builder
	u.Write(&b, fs)
	want := "\nexit status:\n  0  no drift\n  1  drift found\n  2  the command could not do its job:"
	if !strings.Contains(b.String(), want) {
		t.Errorf("usage lacks %q:\n%s", want, b.String())
	}
	for _, c := range []string{"3", "4"} {
		if strings.Contains(b.String(), "\n  "+c+"  ") {
			t.Errorf("usage lists exit code %s, which it does not declare:\n%s", c, b.String())
		}
	}
	if want := "  --system-prompt-file FILE\n" + strings.Repeat(" ", 27) + "read it from FILE [$CTX_SYSTEM_PROMPT_FILE]\n"; !strings.Contains(b.String(), want) {
		t.Errorf("usage lacks %q:\n%s", want, b.String())
	}

	u.Exits = []string{"0", "2", "3"}
	b.Reset()
	u.Write(&b, nil)
	if want := "\n  0  success\n  2  the command"; !strings.Contains(b.String(), want) {
		t.Errorf("usage lacks %q:\n%s", want, b.String())
	}
	if want := "\n  3  replay failed: at least one step could not execute\n"; !strings.Contains(b.String(), want) {
		t.Errorf("usage lacks %q:\n%s", want, b.String())
	}
}
