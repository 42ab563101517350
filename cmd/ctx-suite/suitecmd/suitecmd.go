// Package suitecmd is ctx suite: the runs of an evaluation stored as one
// suite, listed and compared task by task.
package suitecmd

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/addcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/diffcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/exportcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/showcmd"
	"github.com/contextsubstrate/ctx/lib/cli"
)

const name = "ctx-suite"

func usage() cli.Usage {
	return cli.Usage{
		Name: name,
		Synopsis: `ctx suite add NAME [SOURCE...] [--results FILE]
ctx suite show NAME
ctx suite diff A B [--fail-on regressed|changed|never] [--junit FILE]
ctx suite export --parquet DIR NAME...`,
		Summary: "Store the runs of an evaluation as a suite and compare two suites task by task.",
		Help: `A suite is the runs of one evaluation: a benchmark's tasks, an Inspect
eval's samples, several rollouts of one task. 'add' packs every run of its
sources and records, task by task, which pack each run is and how it was
judged, under the name NAME (refs/suites/NAME). 'show' lists a suite's
runs and pass@k; 'diff' pairs the runs of two suites by task and says
which tasks regressed or improved (by pass rate when tasks were run more
than once), how each pair's steps drifted, and whether the change is
more than chance (McNemar's exact test, or the sign test over pass
rates); runs that errored are counted apart. 'export' writes a suite's
runs and steps as Parquet tables.

'ctx suite COMMAND --help' says more of each.`,
		Examples: `ctx suite add baseline logs/2026-05-01_eval.eval
ctx suite add candidate trajs/ --results results.json
ctx suite show baseline --human
ctx suite diff baseline candidate --human
ctx suite diff baseline candidate --markdown >> "$GITHUB_STEP_SUMMARY"
ctx suite export --parquet out/ baseline candidate`,
	}
}

// commands maps each subcommand to its run.
func commands() map[string]func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return map[string]func(context.Context, []string, io.Reader, io.Writer, io.Writer) error{
		"add": addcmd.Run, "show": showcmd.Run, "diff": diffcmd.Run, "export": exportcmd.Run,
	}
}

// Main runs ctx suite with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx suite: its subcommand, with the rest of the arguments.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		// ctx suite --help, or flags without a command.
		var none noFlags
		if _, err := cli.ParseArgs(&none, args, usage(), stdout); err != nil {
			return err
		}
		return cli.Usagef("ctx suite takes a command: add, show, diff or export")
	}
	run, ok := commands()[args[0]]
	if !ok {
		return cli.Usagef("ctx suite has no command %q (add, show, diff or export)", args[0])
	}
	return run(ctx, args[1:], stdin, stdout, stderr)
}

type noFlags struct{}

func (noFlags) RegisterFlags(*flag.FlagSet) {}
