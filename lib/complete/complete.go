// Package complete is shell completion for ctx: the scripts that bash, zsh
// and fish load, and the candidates they ask for as the user types. The
// scripts hold no list: at each TAB they run `ctx completion --complete`,
// which reads what is there now (the verbs on the lookup path, plugins
// included; a verb's flags from its --help; the store's tags and packs).
// It changes nothing in the store (reading the index may refresh ctx log's
// cache, as ctx log does).
package complete

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
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

// builtins are the dispatcher's own words, beside the ctx-VERB programs.
func builtins() []string { return []string{"help", "version"} }

// Candidates returns the completions of the last of words, the command
// line so far ("ctx", "show", "--hu"): a verb after ctx, a flag of the verb
// after "-", else for a verb that takes packs the store's names (latest,
// its tags, the short hashes of its packs, newest first). st may be nil
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
	if strings.HasPrefix(cur, "-") {
		return matching(Flags(verb, dirs), cur)
	}
	if !packVerbs()[verb] || st == nil {
		return nil
	}
	return matching(packNames(st), cur)
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

// Flags lists the flags of a verb as its --help prints them ("  --human
// ..." under "flags:"): what the program itself takes, plugins included.
func Flags(verb string, dirs []string) []string {
	if execpath.CheckName(verb) != nil {
		return nil
	}
	path, ok := execpath.Lookup("ctx-"+verb, dirs)
	if !ok {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, _ := exec.CommandContext(ctx, path, "--help").Output()
	return ParseFlags(out)
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
