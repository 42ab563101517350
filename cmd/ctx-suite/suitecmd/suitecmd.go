// Package suitecmd is ctx suite: the runs of an evaluation stored as one
// suite, listed, compared task by task, and moved through registries.
package suitecmd

import (
	"context"
	"flag"
	"io"
	"strings"

	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/addcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/diffcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/exportcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/listcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/pullcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/pushcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/rmcmd"
	"github.com/contextsubstrate/ctx/cmd/ctx-suite/suitecmd/showcmd"
	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/text"
)

const name = "ctx-suite"

func usage() cli.Usage {
	return cli.Usage{
		Name: name,
		Synopsis: `ctx suite add NAME [SOURCE...] [--results FILE] [-f]
ctx suite show SUITE
ctx suite diff A B [--fail-on regressed|changed|never] [--junit FILE]
ctx suite list
ctx suite rm NAME...
ctx suite push SUITE REF
ctx suite pull REF [--name NAME] [-f]
ctx suite export --parquet DIR SUITE...`,
		Summary: "Store the runs of an evaluation as a suite and compare two suites task by task.",
		Help: `A suite is the runs of one evaluation: a benchmark's tasks, an Inspect
eval's samples, several rollouts of one task. 'add' packs every run of its
sources and records, task by task, which pack each run is and how it was
judged, under the name NAME (refs/suites/NAME; a name in use is replaced
only with -f). 'show' lists a suite's runs and pass@k; 'diff' pairs the
runs of two suites by task and says which tasks regressed or improved (by
pass rate when tasks were run more than once), how each pair's steps
drifted, and whether the change is more than chance (McNemar's exact
test, or the sign test over pass rates); runs that errored are counted
apart. 'list' lists the suites, 'rm' removes a suite's name; 'push' and
'pull' move a suite and all its packs through an OCI registry as one
artifact; 'export' writes runs and steps as Parquet.

SUITE is a suite's name, or the ctx:// name 'ctx suite add' printed (or
sha256:HEX, or a prefix of 4+ hex digits). diff also takes a registry
reference host/repo:tag for A or B, pulled into the store first.

'ctx suite COMMAND --help' says more of each.`,
		Examples: `ctx suite add baseline logs/2026-05-01_eval.eval
ctx suite add candidate trajs/ --results results.json
ctx suite show baseline --human
ctx suite diff baseline candidate --human
ctx suite diff ghcr.io/acme/evals:baseline candidate --markdown >> "$GITHUB_STEP_SUMMARY"
ctx suite push baseline ghcr.io/acme/evals:baseline
ctx suite list | jq -r '.[].name'`,
		Exits: []string{"0 success; for diff, no task regressed (or what --fail-on names did not happen)",
			"1 diff: a task regressed (--fail-on changed: a task changed or is on one side only); push: a pack holds what looks like a secret, and nothing was pushed", "2"},
	}
}

// commands are the subcommands, in the order the help gives them.
func commands() []string {
	return []string{"add", "show", "diff", "list", "rm", "push", "pull", "export"}
}

// run is each subcommand's Run.
func run(command string) cli.RunFunc {
	return map[string]cli.RunFunc{
		"add": addcmd.Run, "show": showcmd.Run, "diff": diffcmd.Run, "list": listcmd.Run, "rm": rmcmd.Run,
		"push": pushcmd.Run, "pull": pullcmd.Run, "export": exportcmd.Run,
	}[command]
}

// Main runs ctx suite with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx suite: its subcommand, with the rest of the arguments. A
// subcommand's usage errors point to its own --help.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	all := strings.Join(commands()[:len(commands())-1], ", ") + " or " + commands()[len(commands())-1]
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		// ctx suite --help, or flags without a command.
		var none noFlags
		if _, err := cli.ParseArgs(&none, args, usage(), stdout); err != nil {
			return err
		}
		return cli.Usagef("ctx suite takes a command: %s", all)
	}
	f := run(args[0])
	if f == nil {
		err := cli.Usagef("ctx suite has no command %q (%s)", args[0], all)
		if hint := text.DidYouMean(args[0], commands()); hint != "" {
			err.WithHint("%s", hint)
		}
		return err
	}
	return cli.In("ctx suite "+args[0], f(ctx, args[1:], stdin, stdout, stderr))
}

type noFlags struct{}

func (noFlags) RegisterFlags(*flag.FlagSet) {}
