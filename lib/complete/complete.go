// Package complete is shell completion for ctx: the scripts that bash, zsh
// and fish load, and the candidates they ask for as the user types. The
// scripts hold no list: at each TAB they run `ctx completion --complete`,
// which reads what is there now (the verbs on the lookup path, plugins
// included; a verb's subcommands and flags from its --help; the store's
// tags, packs and suites).
// It changes nothing in the store (reading the index may refresh ctx log's
// cache, as ctx log does).
package complete

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/execpath"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Shells are the shells Script writes for.
func Shells() []string { return []string{"bash", "zsh", "fish"} }

// Script is the completion script of shell for the program ctx.
func Script(shell string) (string, error) {
	switch shell {
	case "bash":
		return `# ctx completion for bash: source <(ctx completion bash)
_ctx_complete() {
  local IFS=$'\n'
  COMPREPLY=($(ctx completion --complete -- "${COMP_WORDS[@]:0:COMP_CWORD+1}" 2>/dev/null))
}
complete -o default -F _ctx_complete ctx
`, nil
	case "zsh":
		return `#compdef ctx
# ctx completion for zsh: source <(ctx completion zsh)
_ctx() {
  local -a candidates
  candidates=("${(@f)$(ctx completion --complete -- "${(@)words[1,CURRENT]}" 2>/dev/null)}")
  if [[ -n "${candidates[1]}" ]]; then
    compadd -- "${candidates[@]}"
  else
    _files
  fi
}
compdef _ctx ctx
`, nil
	case "fish":
		return `# ctx completion for fish: ctx completion fish | source
function __ctx_complete
    ctx completion --complete -- (commandline -opc) (commandline -ct) 2>/dev/null
end
complete -c ctx -a '(__ctx_complete)'
`, nil
	}
	return "", fmt.Errorf("no completion for shell %q (%s)", shell, strings.Join(Shells(), ", "))
}

// packVerbs are the verbs whose arguments are pack names.
func packVerbs() map[string]bool {
	m := map[string]bool{}
	for _, v := range []string{"show", "log", "diff", "replay", "verify", "cat", "checkout", "export", "fork", "push", "tag", "rm", "redact", "attest", "convert", "restore"} {
		m[v] = true
	}
	return m
}

// suiteCommands are the subcommands of ctx suite whose arguments are
// suites, by how many (0: any number).
func suiteCommands() map[string]int {
	return map[string]int{"show": 1, "diff": 2, "export": 0, "rm": 0, "push": 1}
}

// builtins are the dispatcher's own words, beside the ctx-VERB programs.
func builtins() []string { return []string{"help", "version"} }

// Candidates returns the completions of the last of words, the command
// line so far ("ctx", "show", "--hu"): a verb after ctx; a subcommand
// after a verb that has them (ctx suite, ctx key: what its --help's
// synopsis names); a flag of the verb, or of its subcommand, after "-";
// else for a verb that takes packs the store's names (latest, its tags,
// the short hashes of its packs, newest first), and for a subcommand of
// ctx suite that takes suites the store's suite names. st may be nil
// (no store). None means: let the shell complete file names.
func Candidates(words []string, dirs []string, st *store.Store) []string {
	if len(words) < 2 {
		return nil
	}
	cur := words[len(words)-1]
	if len(words) == 2 {
		return matching(verbs(dirs), cur)
	}
	verb := words[1]
	var subs []string
	if !packVerbs()[verb] {
		subs = Subcommands(verb, dirs)
	}
	sub := ""
	if len(words) > 3 && slices.Contains(subs, words[2]) {
		sub = words[2]
	}
	switch {
	case strings.HasPrefix(cur, "-") && sub != "":
		return matching(Flags(verb, dirs, sub), cur)
	case strings.HasPrefix(cur, "-"):
		return matching(Flags(verb, dirs), cur)
	case len(words) == 3 && len(subs) > 0:
		return matching(subs, cur)
	case verb == "suite" && sub != "" && st != nil:
		n, ok := suiteCommands()[sub]
		if !ok || n > 0 && args(words[3:len(words)-1]) >= n {
			return nil
		}
		names, _ := st.SuiteRefs()
		return matching(names, cur)
	case !packVerbs()[verb] || st == nil:
		return nil
	}
	return matching(packNames(st), cur)
}

// args counts the words that are not flags (a flag's value is counted
// too: completion cannot tell, and offers nothing rather than too much).
func args(words []string) int {
	n := 0
	for _, w := range words {
		if !strings.HasPrefix(w, "-") {
			n++
		}
	}
	return n
}

func matching(all []string, prefix string) []string {
	var out []string
	for _, s := range all {
		if strings.HasPrefix(s, prefix) {
			out = append(out, s)
		}
	}
	return out
}

// verbs are the programs ctx runs: ctx-VERB on the lookup path.
func verbs(dirs []string) []string {
	out := builtins()
	for _, p := range execpath.List("ctx-", dirs) {
		if v := strings.TrimPrefix(p.Name, "ctx-"); p.Runs() && v != "" {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// Flags lists the flags of a verb (or of its subcommand sub, ctx suite
// diff) as its --help prints them ("  --human ..." under "flags:"): what
// the program itself takes, plugins included.
func Flags(verb string, dirs []string, sub ...string) []string {
	return ParseFlags(help(verb, dirs, sub...))
}

// Subcommands lists the subcommands of a verb as its --help's synopsis
// names them: the word after "ctx VERB" on each line of "usage:", when it
// is a plain word (ctx suite add, ctx key generate; not "[flags]").
func Subcommands(verb string, dirs []string) []string {
	return ParseSubcommands(verb, help(verb, dirs))
}

// help is what ctx-VERB [SUB] --help prints, or nothing.
func help(verb string, dirs []string, sub ...string) []byte {
	if execpath.CheckName(verb) != nil {
		return nil
	}
	path, ok := execpath.Lookup("ctx-"+verb, dirs)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, append(sub, "--help")...).Output()
	return out
}

// ParseSubcommands reads the subcommands of verb from a usage text: the
// synopsis lines (the "usage:" line and those indented under it) of the
// form "ctx VERB WORD ...", WORD lower-case letters.
func ParseSubcommands(verb string, help []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(help))
	for i := 0; sc.Scan(); i++ {
		line := sc.Text()
		if i == 0 {
			var ok bool
			if line, ok = strings.CutPrefix(line, "usage:"); !ok {
				return nil
			}
		} else if !strings.HasPrefix(line, "       ctx ") {
			break
		}
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "ctx" && f[1] == verb && isWord(f[2]) && !slices.Contains(out, f[2]) {
			out = append(out, f[2])
		}
	}
	return out
}

func isWord(s string) bool {
	for _, r := range s {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return s != ""
}

// ParseFlags reads the flags of a usage text: the first word of each
// indented line of its "flags:" section that starts with '-'.
func ParseFlags(help []byte) []string {
	var out []string
	in := false
	sc := bufio.NewScanner(bytes.NewReader(help))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "flags:":
			in = true
		case in && !strings.HasPrefix(line, " "):
			in = false
		case in:
			f := strings.Fields(line)
			if len(f) > 0 && strings.HasPrefix(f[0], "-") {
				out = append(out, strings.TrimRight(f[0], ","))
			}
		}
	}
	return out
}

// maxPacks bounds the short hashes offered: the newest are the ones typed.
const maxPacks = 200

// packNames are latest, the tags and the short hashes of the packs, the
// newest first.
func packNames(st *store.Store) []string {
	out := []string{store.LatestRef}
	if tags, err := st.Tags(); err == nil {
		sort.Strings(tags)
		out = append(out, tags...)
	}
	if ix, err := pack.ReadIndex(st, time.Now()); err == nil {
		for _, e := range pack.Select(ix.Entries, pack.Query{Limit: maxPacks}) {
			out = append(out, e.Hash.Hex()[:12])
		}
	}
	return out
}
