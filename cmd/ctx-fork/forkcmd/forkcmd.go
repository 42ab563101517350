// Package forkcmd is ctx fork: a pack in, an editable draft log out.
package forkcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/share"
)

const name = "ctx-fork"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx fork [flags] PACK",
		Summary:  "Make an editable draft (an execution log) from a pack.",
		Exits:    []string{"0", "2"},
		Args:     cli.ExactArgs(1, "ctx fork takes one pack name"),
		Help: fmt.Sprintf(`The draft holds the pack's content and "parent": "sha256:<the pack>". It is
written to .ctx/drafts/ under a new name, and its path is printed; -o FILE
writes it to FILE instead, and -o - to standard output. Edit it, then make
it a pack with 'ctx pack DRAFT', which keeps the parent. Packed with no edit,
a draft gives a pack that differs from its parent only by "parent".

Text content up to %d KiB is written inline; larger content and content
that is not UTF-8 is written as a reference to its object (content_ref,
output_ref), so the draft packs only in a store that holds those objects.

--param KEY=VALUE sets model.parameters.KEY: VALUE is read as JSON when it
is valid JSON (0.7, true, null, [1,2], "text") and as a string otherwise.
--truncate N keeps the first N steps. --system-prompt-file - reads the new
system prompt from standard input.`, share.InlineMax>>10),
		Examples: `ctx fork latest
ctx fork 3f2b71b8 --model claude-opus-4-6 --param temperature=0.2
ctx fork baseline --truncate 3 -o retry.json && ctx pack retry.json
ctx fork latest -o - | jq '.prompts[0].content = "Try again"' | ctx pack -`,
	}
}

type config struct {
	store        string
	out          string
	model        string
	params       cli.Strings
	systemPrompt string
	truncate     int
	parsed       []share.Param // params, read
}

// RegisterFlags defines the flags of ctx fork on fs.
func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.StringVar(&c.out, "o", "", "write the draft to `FILE` (- for standard output) instead of .ctx/drafts/")
	fs.StringVar(&c.model, "model", "", "set model.identifier to `ID`")
	fs.Var(&c.params, "param", "set model.parameters `KEY=VALUE` (repeatable)")
	fs.StringVar(&c.systemPrompt, "system-prompt-file", "", "replace the system prompt with the content of `FILE` (- for standard input)")
	fs.IntVar(&c.truncate, "truncate", -1, "keep only the first `N` steps")
}

// Check refuses a negative --truncate, a blank --model and a --param that
// is not KEY=VALUE.
func (c *config) Check([]string) error {
	if c.truncate < -1 {
		return cli.Usagef("--truncate: %d is not a number of steps", c.truncate)
	}
	if strings.TrimSpace(c.model) == "" && c.model != "" {
		return cli.Usagef("--model: the identifier is blank")
	}
	for _, p := range c.params {
		param, err := share.ParseParam(p)
		if err != nil {
			return cli.Usagef("--param: %v", err)
		}
		c.parsed = append(c.parsed, param)
	}
	return nil
}

// Main runs ctx fork with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx fork.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg := config{truncate: -1}
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	edits := share.Edits{Model: cfg.model, Truncate: cfg.truncate, Params: cfg.parsed}
	if cfg.systemPrompt != "" {
		if edits.SystemPrompt, err = cli.ReadInput(cfg.systemPrompt, stdin); err != nil {
			return cli.Errorf(cli.ExitTrouble, "--system-prompt-file: %v", err)
		}
	}
	st, m, err := cli.OpenPack(cfg.store, args[0])
	if err != nil {
		return err
	}
	path, err := share.Fork(st, m, edits, cfg.out, stdout, cli.IsTerminal(stdout), cli.OnSignal)
	if err == nil && cfg.out == "" {
		_, err = fmt.Fprintln(stdout, cli.DisplayPath(path))
	}
	return cli.Wrap(cli.ExitTrouble, err)
}
