package ctx_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// helpNotYet are the verbs whose --help these tests leave out, with why.
func helpNotYet() map[string]string {
	return map[string]string{
		"suite": "its help and its subcommands' are reworked with its completion (issue 42, points 12 and 13)",
	}
}

// verbHelps runs every verb's --help and returns its text by verb.
func verbHelps(t *testing.T) map[string]string {
	t.Helper()
	dirs, err := filepath.Glob("cmd/ctx-*")
	if err != nil {
		t.Fatal(err)
	}
	helps := map[string]string{}
	for _, d := range dirs {
		verb := strings.TrimPrefix(filepath.Base(d), "ctx-")
		if _, skip := helpNotYet()[verb]; skip {
			continue
		}
		out, err := exec.Command("ctx-"+verb, "--help").Output()
		if err != nil {
			t.Fatalf("ctx-%s --help: %v", verb, err)
		}
		helps[verb] = string(out)
	}
	if len(helps) < 25 {
		t.Fatalf("found %d verbs under cmd/", len(helps))
	}
	return helps
}

// section is the block of a --help text under title ("flags:"), up to
// the next blank line.
func section(help, title string) []string {
	_, rest, ok := strings.Cut(help, "\n"+title+"\n")
	if !ok {
		return nil
	}
	block, _, _ := strings.Cut(rest, "\n\n")
	return strings.Split(strings.TrimRight(block, "\n"), "\n")
}

// flagColumn is the flag and its placeholder of a line of the flags
// section: the left column, 24 wide, or a whole line when it is longer
// (its text then goes on the next line).
func flagColumn(line string) (flag, placeholder string, ok bool) {
	if !strings.HasPrefix(line, "  -") {
		return "", "", false
	}
	left := line[2:]
	if len(line) > 26 && line[26] == ' ' {
		left = line[2:26]
	}
	flag, placeholder, _ = strings.Cut(strings.TrimSpace(left), " ")
	return flag, placeholder, true
}

// placeholderTable is the words of docs/CLI.md's table of placeholders.
func placeholderTable(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("docs/CLI.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "#### Placeholders\n")
	if !ok {
		t.Fatal("docs/CLI.md has no section #### Placeholders")
	}
	rest, _, _ = strings.Cut(rest, "\n#")
	words := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(rest, -1) {
		words[m[1]] = true
	}
	if len(words) < 10 {
		t.Fatalf("docs/CLI.md's table of placeholders has %d words", len(words))
	}
	return words
}

// TestHelpPlaceholders holds the word after each flag in every verb's
// --help to one word per kind of value: every word is one of docs/CLI.md's
// table (and every word of the table is used), and a flag spelled the same
// in two verbs takes the same word.
func TestHelpPlaceholders(t *testing.T) {
	table := placeholderTable(t)
	used := map[string]bool{}
	byFlag := map[string]map[string][]string{} // flag -> placeholder -> verbs
	for verb, help := range verbHelps(t) {
		lines := section(help, "flags:")
		if len(lines) == 0 {
			continue
		}
		for _, line := range lines {
			flag, ph, ok := flagColumn(line)
			if !ok || ph == "" {
				continue
			}
			if !table[ph] {
				t.Errorf("ctx %s: %s %s: %q is not a word of docs/CLI.md's table of placeholders", verb, flag, ph, ph)
			}
			used[ph] = true
			if byFlag[flag] == nil {
				byFlag[flag] = map[string][]string{}
			}
			byFlag[flag][ph] = append(byFlag[flag][ph], verb)
		}
	}
	// The flags that name another kind of thing in some verbs (docs/CLI.md):
	// an agent for capture and restore, a format for convert.
	for _, flag := range []string{"--from", "--to"} {
		delete(byFlag[flag], "AGENT")
	}
	for flag, phs := range byFlag {
		if len(phs) > 1 {
			var spellings []string
			for ph, verbs := range phs {
				sort.Strings(verbs)
				spellings = append(spellings, flag+" "+ph+" ("+strings.Join(verbs, ", ")+")")
			}
			sort.Strings(spellings)
			t.Errorf("%s takes different words: %s", flag, strings.Join(spellings, "; "))
		}
	}
	for w := range table {
		if !used[w] {
			t.Errorf("docs/CLI.md's table of placeholders has %s, which no flag uses", w)
		}
	}
}

// TestHelpExitCodes holds the exit status every verb's --help ends with
// to the codes the verb can return: 0 and 2 always (--help, a usage
// error), 1, 3 and 4 exactly when its package returns cli.ExitFinding,
// cli.ExitFailed and cli.ExitUnverified, and N when it passes another
// program's status on.
func TestHelpExitCodes(t *testing.T) {
	returns := regexp.MustCompile(`cli\.Exit\(([\w.]+)\)|cli\.(ExitFinding|ExitFailed|ExitUnverified)\b`)
	code := map[string]string{"ExitFinding": "1", "ExitFailed": "3", "ExitUnverified": "4", "ExitTrouble": "2"}
	for verb, help := range verbHelps(t) {
		want := map[string]bool{"0": true, "2": true}
		files, _ := filepath.Glob(filepath.Join("cmd", "ctx-"+verb, "*", "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range returns.FindAllStringSubmatch(string(b), -1) {
				c, ok := code[strings.TrimPrefix(m[1]+m[2], "cli.")]
				if !ok {
					c = "N" // cli.Exit(status): another program's status passed on
				}
				want[c] = true
			}
		}
		got := map[string]bool{}
		for _, line := range section(help, "exit status:") {
			if c, _, ok := strings.Cut(strings.TrimSpace(line), "  "); ok && !strings.HasPrefix(line, "    ") {
				if got[c] {
					t.Errorf("ctx %s --help lists exit code %s twice", verb, c)
				}
				got[c] = true
			}
		}
		for c := range want {
			if !got[c] {
				t.Errorf("ctx %s can exit %s, which its --help does not list:\n%s", verb, c, strings.Join(section(help, "exit status:"), "\n"))
			}
		}
		for c := range got {
			if !want[c] {
				t.Errorf("ctx %s --help lists exit code %s, which it never returns", verb, c)
			}
		}
	}
}

// TestREADMETestsRunWithoutCgo holds the go test commands README.md gives
// to CGO_ENABLED=0: with cgo every program is about 10 MiB larger in
// memory, past the bounds of the memory tests, so a command run as
// written would fail them.
func TestREADMETestsRunWithoutCgo(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	// Inline code, which may be broken across lines, and lines of code
	// blocks.
	cmds := regexp.MustCompile("`[^`]*go test [^`]*`").FindAllString(strings.ReplaceAll(string(b), "\n", " "), -1)
	inBlock := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			inBlock = !inBlock
			continue
		}
		if c, _, _ := strings.Cut(line, "#"); inBlock && strings.Contains(c, "go test ") {
			cmds = append(cmds, c)
		}
	}
	if len(cmds) < 2 {
		t.Fatalf("README.md gives %d go test commands", len(cmds))
	}
	for _, c := range cmds {
		if strings.Contains(c, "go test -") && !strings.Contains(c, "CGO_ENABLED=0 go test") {
			t.Errorf("README.md: %s runs go test without CGO_ENABLED=0", c)
		}
	}
}
