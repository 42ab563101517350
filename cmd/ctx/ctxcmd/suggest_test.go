package ctxcmd

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"pack", "pack", 0},
		{"", "pack", 4},
		{"pakc", "pack", 1}, // a swap is one edit
		{"sho", "show", 1},
		{"shwo", "show", 1},
		{"fsk", "fsck", 1},
		{"replya", "replay", 1},
		{"rpelay", "replay", 1},
		{"chekout", "checkout", 1},
		{"dif", "diff", 1},
		{"Pack", "pack", 1},
		{"ca", "abc", 3}, // optimal string alignment, not full Damerau
		{"kitten", "sitting", 3},
		{"évite", "evite", 1}, // runes, not bytes
		{"impot", "export", 3},
	}
	for _, tt := range tests {
		if got := distance(tt.a, tt.b); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := distance(tt.b, tt.a); got != tt.want {
			t.Errorf("distance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	all := []string{"help", "version"}
	for _, v := range verbs() {
		all = append(all, v.name)
	}
	tests := []struct {
		name       string
		candidates []string
		want       string // comma-separated
	}{
		{"shw", all, "show"},
		{"pakc", all, "pack"},
		{"sh", all, "show"},         // unique prefix
		{"rep", all, "replay"},      // unique prefix
		{"ch", all, "checkout"},     // unique prefix
		{"c", all, "gc"},            // cat, checkout, convert: no unique prefix; gc is one edit away
		{"i", all, ""},              // init, import
		{"lg", all, "log"},          // one edit
		{"versoin", all, "version"}, // built-ins are candidates
		{"hlep", all, "help"},
		{"fixk", all, ""},                                 // two edits apart is too far for four letters
		{"expotr", all, "export"},                         // two edits allowed past four letters
		{"imports", all, "import"},                        // import is not a prefix of imports, but one edit
		{"cot", all, "cat"},                               // cot: cat at one edit
		{"xyzzy", all, ""},                                // nothing close
		{"at", all, "attest"},                             // a unique prefix before one edit (cat)
		{"pack", all, ""},                                 // an exact name is not a suggestion
		{"fo", []string{"foo", "fob"}, "fob,foo"},         // two at one edit, no unique prefix
		{"bat", []string{"cat", "bar", "cat"}, "bar,cat"}, // sorted, repeats once
		{"", all, ""},
	}
	for _, tt := range tests {
		if got := strings.Join(suggest(tt.name, tt.candidates), ","); got != tt.want {
			t.Errorf("suggest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestCheckVerb(t *testing.T) {
	for _, v := range []string{"pack", "foo", "foo-bar", "foo.sh", "x", "tool", "tools-x", "Pack", "ünï"} {
		if err := checkVerb(v); err != nil {
			t.Errorf("checkVerb(%q) = %v, want nil", v, err)
		}
	}
	refused := map[string]string{
		"":          "an empty verb name is not a ctx command",
		"-":         "'-' is not a ctx command",
		"--store":   "unknown flag --store: ctx takes no flags before the verb",
		"-x":        "unknown flag -x: ctx takes no flags before the verb",
		"--":        "unknown flag --: ctx takes no flags before the verb",
		".":         "'.' is not a ctx command: a verb is a plain name, never a path",
		"..":        "'..' is not a ctx command: a verb is a plain name, never a path",
		"a/b":       "'a/b' is not a ctx command: a verb is a plain name, never a path",
		"../x":      "'../x' is not a ctx command: a verb is a plain name, never a path",
		"/bin/sh":   "'/bin/sh' is not a ctx command: a verb is a plain name, never a path",
		`a\b`:       `"a\\b" is not a ctx command: a verb is a plain name, never a path`,
		"a\x00b":    `"a\x00b" is not a ctx command: a verb is a plain name, never a path`,
		"tool-bash": "'tool-bash' is a replay executor, not a ctx command",
		"tool-":     "'tool-' is a replay executor, not a ctx command",
		"-\nforged": `unknown flag "-\nforged": ctx takes no flags before the verb`,
	}
	for v, want := range refused {
		err := checkVerb(v)
		if err == nil {
			t.Errorf("checkVerb(%q) = nil, want %q", v, want)
			continue
		}
		if err.Error() != want {
			t.Errorf("checkVerb(%q) = %q, want %q", v, err.Error(), want)
		}
	}
}

func TestVerbTable(t *testing.T) {
	want := "init pack show log diff suite replay verify key attest fork cat fsck tag rm gc redact checkout export import push pull convert record capture restore serve completion"
	var names []string
	for _, v := range verbs() {
		names = append(names, v.name)
		if v.summary == "" || strings.ToLower(v.summary) != v.summary || strings.HasSuffix(v.summary, ".") {
			t.Errorf("verb %s: summary %q is not a lower-case phrase without a period", v.name, v.summary)
		}
		if err := checkVerb(v.name); err != nil || builtin(v.name) {
			t.Errorf("verb %s cannot be dispatched: %v", v.name, err)
		}
	}
	if got := strings.Join(names, " "); got != want {
		t.Errorf("verbs() = %s, want %s", got, want)
	}
}

// FuzzVerbName checks, for any verb name, that a name checkVerb accepts
// can only name a file inside a lookup directory, and that suggestions are
// always among the candidates.
func FuzzVerbName(f *testing.F) {
	for _, s := range []string{"pack", "../x", "a/b", `a\b`, "..", ".", "-", "--store", "tool-x", "shw", "\x00", "é", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if checkVerb(v) == nil {
			if v == "" || v == "." || v == ".." || strings.ContainsAny(v, "/\\\x00") || strings.HasPrefix(v, "-") || strings.HasPrefix(v, "tool-") {
				t.Fatalf("checkVerb(%q) accepted a name it must refuse", v)
			}
		}
		candidates := []string{"help", "version", "pack", "show", "init"}
		for _, s := range suggest(v, candidates) {
			if s == v || !strings.Contains(strings.Join(candidates, "\n")+"\n", s+"\n") {
				t.Fatalf("suggest(%q) = %q: not a candidate", v, s)
			}
		}
		if d1, d2 := distance(v, "pack"), distance("pack", v); d1 != d2 || d1 < 0 {
			t.Fatalf("distance(%q, pack) = %d, reverse %d", v, d1, d2)
		}
	})
}
