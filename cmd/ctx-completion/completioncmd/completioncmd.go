// Package completioncmd is ctx completion: the shell completion scripts of
// ctx, and the candidates they ask for.
package completioncmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/complete"
	"github.com/contextsubstrate/ctx/lib/execpath"
)

const name = "ctx-completion"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx completion bash|zsh|fish\nctx completion --complete -- WORDS...",
		Summary:  "Print a shell completion script: verbs, flags, tags and packs.",
		Exits:    []string{"0", "2"},
		Args:     cli.MinArgs(1, "ctx completion takes a shell: bash, zsh or fish"),
		Help: `Prints the script that makes TAB complete ctx commands in the shell:
the verbs (every ctx-VERB program on the lookup path, plugins too), each
verb's flags (read from its --help), and for verbs that name packs, latest,
the tags and the short hashes of the store's packs. The script holds no
list: at each TAB it runs 'ctx completion --complete -- WORDS...', which
prints the candidates for the last word, one per line (none: the shell
completes file names), so new verbs, tags and packs complete at once.`,
		Examples: `source <(ctx completion bash)             # in ~/.bashrc
ctx completion zsh > "${fpath[1]}/_ctx"     # zsh, or source <(ctx completion zsh)
ctx completion fish > ~/.config/fish/completions/ctx.fish
ctx completion --complete -- ctx show ba    # what TAB offers: baseline`,
	}
}

type config struct {
	complete bool
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	fs.BoolVar(&c.complete, "complete", false, "print the candidates for the last of WORDS (what the scripts run)")
}

// Check takes one shell, unless --complete.
func (c *config) Check(args []string) error {
	if !c.complete && len(args) != 1 {
		return cli.Usagef("ctx completion takes one shell: %s", strings.Join(complete.Shells(), ", "))
	}
	return nil
}

// Main runs ctx completion with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx completion.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	if cfg.complete {
		// The store the command line names, else the nearest; none is no error.
		st, _ := cli.FindStore(storeWord(args))
		for _, c := range complete.Candidates(args, execpath.Dirs(), st) {
			if _, err := fmt.Fprintln(stdout, c); err != nil {
				return err
			}
		}
		return nil
	}
	script, err := complete.Script(args[0])
	if err != nil {
		return cli.Usagef("%v", err)
	}
	_, err = io.WriteString(stdout, script)
	return err
}

// storeWord is the value of --store among the words typed, if any.
func storeWord(words []string) string {
	for i, w := range words {
		if v, ok := strings.CutPrefix(w, "--store="); ok {
			return v
		}
		if w == "--store" && i+2 < len(words) {
			return words[i+1]
		}
	}
	return ""
}
