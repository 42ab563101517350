package ctxcmd

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/text"
)

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
		if got := strings.Join(text.Suggest(tt.name, tt.candidates), ","); got != tt.want {
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

// TestVerbTable holds verbs() to the programs of cmd/: every cmd/ctx-VERB
// (but the dispatcher's own) once, nothing else, each with a summary
// 'ctx help' can show, and none a name the dispatcher keeps.
func TestVerbTable(t *testing.T) {
	entries, err := os.ReadDir("../..")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		if v, ok := strings.CutPrefix(e.Name(), "ctx-"); ok && e.IsDir() {
			want = append(want, v)
		}
	}
	if len(want) < 20 {
		t.Fatalf("found %d programs under cmd/: %v", len(want), want)
	}
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
	got := slices.Clone(names)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("verbs() lists %v; cmd/ holds ctx-%s", names, strings.Join(want, ", ctx-"))
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
		for _, s := range text.Suggest(v, candidates) {
			if s == v || !strings.Contains(strings.Join(candidates, "\n")+"\n", s+"\n") {
				t.Fatalf("suggest(%q) = %q: not a candidate", v, s)
			}
		}
	})
}
