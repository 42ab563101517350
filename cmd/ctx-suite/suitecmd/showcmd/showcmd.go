// Package showcmd is ctx suite show: a suite's runs, listed.
package showcmd

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
		Synopsis: "ctx suite show [flags] NAME",
		Summary:  "List a suite's runs: one entry per task and epoch, with totals.",
		Args:     cli.ExactArgs(1, "ctx suite show takes one suite name"),
		Help: `Prints {"name", "suite", "runs", "passed", "tasks": [{"task", "epoch",
"passed", "score", "tool_calls", "steps", "pack", "model", "end", "tokens",
"cost_usd", "duration_s"}], "totals"}: "passed" counts the runs that passed;
a task run five times is five entries, epochs 1 to 5; tokens, cost and
duration appear where the runs record them. --human prints a table.`,
		Exits: []string{"0 the suite was listed", "2"},
		Examples: `ctx suite show baseline
ctx suite show baseline --human
ctx suite show baseline | jq -r '.tasks[] | select(.passed == false) | .task'`,
	}
}

type config struct {
	store string
	out   cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print the suite as JSON", cli.Human: "print a table"})
}

// Run is ctx suite show, with the arguments after "show".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	s, err := suite.Resolve(st, args[0])
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	rep := suite.Show(s)
	if cfg.out.Human() {
		return suite.WriteShowHuman(stdout, rep)
	}
	return cli.WriteJSON(stdout, rep)
}
