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
