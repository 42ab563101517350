package complete

import (
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	help := "usage: ctx tag [flags]\n\nflags:\n  -d                  delete [$CTX_D]\n  --human             print lines\n  --store .ctx        the store\n\nexit status:\n  0  success\n  -1 not a flag\n"
	if got := strings.Join(ParseFlags([]byte(help)), " "); got != "-d --human --store" {
		t.Errorf("ParseFlags = %q", got)
	}
	if got := ParseFlags([]byte("no flags section\n  -x\n")); got != nil {
		t.Errorf("outside flags: %q", got)
	}
}

func TestParseSubcommands(t *testing.T) {
	help := "usage: ctx suite add NAME SOURCE...\n       ctx suite show SUITE\n       ctx suite add -f X\n       ctx other thing\n\nflags:\n       ctx suite hidden\n"
	if got := strings.Join(ParseSubcommands("suite", []byte(help)), " "); got != "add show" {
		t.Errorf("ParseSubcommands = %q", got)
	}
	none := map[string]string{
		"usage: ctx show [flags] PACK\n":        "show",       // a flag, not a subcommand
		"usage: ctx completion bash|zsh|fish\n": "completion", // a list of values
		"usage: ctx record --mcp -- CMD\n":      "record",
		"ctx suite add\n":                       "suite", // no usage line
		"usage: ctx suite add\n":                "other", // another verb's
		"":                                      "suite",
	}
	for h, verb := range none {
		if got := ParseSubcommands(verb, []byte(h)); got != nil {
			t.Errorf("ParseSubcommands(%q, %q) = %q", verb, h, got)
		}
	}
}

func TestCandidatesWithoutStore(t *testing.T) {
	if got := Candidates([]string{"ctx"}, nil, nil); got != nil {
		t.Errorf("no word: %q", got)
	}
	if got := Candidates([]string{"ctx", "he"}, nil, nil); strings.Join(got, " ") != "help" {
		t.Errorf("builtins: %q", got)
	}
	if got := Candidates([]string{"ctx", "show", "l"}, nil, nil); got != nil {
		t.Errorf("no store: %q", got)
	}
}

func FuzzParseFlags(f *testing.F) {
	f.Add([]byte("flags:\n  --human  x\n  -d\n"))
	f.Add([]byte("flags:\n\n  -\n"))
	f.Fuzz(func(t *testing.T, help []byte) {
		for _, fl := range ParseFlags(help) {
			if !strings.HasPrefix(fl, "-") || strings.ContainsAny(fl, " \t\n") {
				t.Fatalf("flag %q", fl)
			}
		}
	})
}

func FuzzParseSubcommands(f *testing.F) {
	f.Add([]byte("usage: ctx suite add NAME\n       ctx suite show X\n"))
	f.Add([]byte("usage: ctx suite\n       ctx suite \xff\n"))
	f.Fuzz(func(t *testing.T, help []byte) {
		for _, s := range ParseSubcommands("suite", help) {
			if !isWord(s) {
				t.Fatalf("subcommand %q", s)
			}
		}
	})
}
