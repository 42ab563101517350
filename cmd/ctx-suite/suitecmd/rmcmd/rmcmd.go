// Package rmcmd is ctx suite rm: suites' names removed, their packs kept.
package rmcmd

import (
	"context"
	"flag"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/suite"
)

const name = "ctx-suite"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx suite rm [flags] NAME...",
		Summary:  "Remove suites' names; their packs stay.",
		Args:     cli.MinArgs(1, "ctx suite rm takes the names of the suites to remove"),
		Help: `Deletes refs/suites/NAME of each NAME, as 'ctx tag -d' deletes tags:
each must name a suite, else nothing is removed (exit 2). The packs of
the suite stay in the store, in the index, as every pack does until
'ctx rm' takes it out; the suite object goes at the next 'ctx gc' unless
another name keeps it. Prints a JSON array of what was removed, [{"name",
"suite", "runs", "tasks", "passed"}] ("suite" what the name named when it
went); --human a line per suite.`,
		Examples: `ctx suite rm nightly-2026-05-01
ctx suite list | jq -r '.[] | select(.name | startswith("tmp-")) | .name' | xargs ctx suite rm`,
		Exits: []string{"0 the names were removed", "2"},
	}
}

type config struct {
	store string
	out   cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print a JSON array of the suites removed", cli.Human: "print a line per suite removed"})
}

// Run is ctx suite rm, with the arguments after "rm".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	removed, err := suite.Remove(st, args)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, removed)
	}
	return suite.WriteListHuman(stdout, removed, "removed suite ")
}
