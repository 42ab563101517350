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
		Help: `Prints a table: a row per task and epoch, with totals, as ctx show prints
a pack. --json prints {"name", "suite", "runs", "passed", "failed",
"errored", "no_verdict", "pass_at_k", "tasks": [{"task", "epoch", "passed",
"errored", "score", "tool_calls", "steps", "pack", "model", "end",
"tokens", "cost_usd", "duration_s"}], "totals"}: the runs counted by
verdict (a run without one because the harness failed is errored, never
failed; one nothing judged is no_verdict); pass_at_k for k = 1 up to the
fewest runs with a verdict any task has, the unbiased estimator
1 - C(n-c,k)/C(n,k) averaged over the tasks, as harnesses report it. A
task run five times is five entries, epochs 1 to 5; tokens, cost and
duration appear where the runs record them. --errors-as-failures counts
errored runs as failed, as a harness's accuracy does.`,
		Exits: []string{"0 the suite was listed", "2"},
		Examples: `ctx suite show baseline
ctx suite show baseline --json | jq '.pass_at_k["1"]'
ctx suite show baseline --json | jq -r '.tasks[] | select(.passed == false) | .task'`,
	}
}

type config struct {
	store  string
	out    cli.Output
	errors bool
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print the suite as JSON", cli.Human: "print a table"})
	fs.BoolVar(&c.errors, "errors-as-failures", false, "count runs that errored as failures, as a harness's accuracy does")
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
	rep := suite.Show(s, suite.Judging{ErrorsAsFailures: cfg.errors})
	if cfg.out.Human() {
		return suite.WriteShowHuman(stdout, rep)
	}
	return cli.WriteJSON(stdout, rep)
}
