// Package listcmd is ctx suite list: the suites of the store.
package listcmd

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
		Synopsis: "ctx suite list [flags]",
		Summary:  "List the suites of the store: name, suite object, runs, tasks, passed.",
		Args:     cli.ExactArgs(0, "ctx suite list takes no arguments"),
		Help: `Prints a JSON array, sorted by name: [{"name", "suite", "runs", "tasks",
"passed"}], "suite" the ctx:// name of the suite object (every suite
command takes it), "passed" the runs that passed; [] when there is none.
--human prints a line per suite. A suite whose ref or object cannot be
read is warned about on stderr (run 'ctx fsck') and left out.`,
		Examples: `ctx suite list
ctx suite list --human
ctx suite list | jq -r '.[] | select(.passed < .runs) | .name'`,
		Exits: []string{"0 the suites were listed", "2"},
	}
}

type config struct {
	store string
	out   cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print a JSON array of the suites", cli.Human: "print a line per suite"})
}

// Run is ctx suite list, with the arguments after "list".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	_, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	suites, bad, err := suite.List(st)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	msg := cli.Messenger{Name: name, W: stderr}
	for _, e := range bad {
		msg.Warnf("%v (run 'ctx fsck')", e)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, suites)
	}
	return suite.WriteListHuman(stdout, suites, "")
}
