// Package diffcmd is ctx suite diff: two suites compared task by task.
package diffcmd

import (
	"context"
	"flag"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/diff"
	"github.com/contextsubstrate/ctx/lib/oci"
	"github.com/contextsubstrate/ctx/lib/suite"
)

const name = "ctx-suite"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx suite diff [flags] A B",
		Summary:  "Compare two suites task by task: outcome changes, step drift, McNemar's test.",
		Args:     cli.ExactArgs(2, "ctx suite diff takes two suite names"),
		Help: `A and B are suites' names, their ctx:// names, or registry references
host/repo:tag (or @sha256:HEX) of suites 'ctx suite push' sent: such a
suite is pulled into the store first (as 'ctx suite pull', named by no
ref), with the registry flags of 'ctx suite pull'.

Pairs the runs of suites A and B by task id and epoch. Each task gets its
change (regressed, improved, same, only_a, only_b: by verdict when both
runs have one, else by numeric score) and, for a pair, the step drift of
its two runs from ctx diff's engine (drift.first_divergence, and counts
by drift type). The summary counts the pairs by change, gives each side's
pass rate, the mean score delta, the two-sided p-value of McNemar's exact
test over the pairs whose verdict changed (mcnemar_p: how likely a split
that uneven is if B were no different from A), and for tasks run more
than once each side's pass rate.

JSON by default: {"a", "b", "summary", "tasks"}. --human prints a table,
regressions first; --markdown a summary for a CI job summary or a pull
request comment; --html one self-contained page (-o FILE to write it to a
file): the table of tasks, changes first, each opening onto the two
runs' steps side by side.

Exit status 1 when a task regressed (--fail-on changed: when any task
changed or is on one side only; --fail-on never: never), 0 otherwise, 2
on error, including two suites with no task in common.`,
		Exits: []string{"0 no task regressed (or what --fail-on names did not happen)",
			"1 a task regressed (--fail-on changed: a task changed or is on one side only)", "2"},
		Examples: `ctx suite diff baseline candidate
ctx suite diff baseline candidate --human
ctx suite diff baseline candidate --markdown >> "$GITHUB_STEP_SUMMARY"
ctx suite diff ghcr.io/acme/evals:baseline candidate --human
ctx suite diff --html -o suites.html baseline candidate
ctx suite diff baseline candidate | jq '.tasks[] | select(.change == "regressed") | .task'`,
	}
}

type config struct {
	store  string
	out    cli.Output
	failOn string
	align  string
	reg    oci.Options
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{
		cli.JSON:     "print the comparison as JSON",
		cli.Human:    "print a table, regressions first",
		cli.Markdown: "print a Markdown summary (for a CI job summary or a pull request comment)",
		cli.HTML:     "write one self-contained HTML page: the tasks, each opening onto the two runs' steps",
	})
	fs.StringVar(&c.failOn, "fail-on", "regressed", "exit 1 when any task `regressed`, or `changed`, or `never`")
	fs.StringVar(&c.align, "align", diff.AlignIndex, "how the steps of a pair line up: index or sequence (as ctx diff)")
	c.reg.RegisterAccessFlags(fs)
}

func (c *config) Check(args []string) error {
	switch c.failOn {
	case "regressed", "changed", "never":
	default:
		return cli.Usagef("--fail-on %q: give regressed (the default), changed or never", c.failOn)
	}
	if err := c.reg.Login(); err != nil {
		return cli.Usagef("%v", err)
	}
	return nil
}

// Run is ctx suite diff, with the arguments after "diff".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	cfg.reg.UserAgent = "ctx/" + cli.Version()
	open := suite.OpenOptions{Registry: cfg.reg, Note: cli.Messenger{Name: name, W: stderr}.Note, Interrupt: cli.OnSignal}
	a, err := suite.Open(ctx, st, args[0], open)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	b, err := suite.Open(ctx, st, args[1], open)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	opts := suite.DiffOptions{Options: diff.Options{Align: cfg.align}}
	if cfg.out.Format() == cli.HTML {
		opts.Keep = suite.PageLanes
	}
	rep, err := suite.Diff(st, a, b, opts)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	switch cfg.out.Format() {
	case cli.Markdown:
		err = suite.WriteDiffMarkdown(stdout, rep)
	case cli.HTML:
		err = cfg.out.Write(stdout, func(w io.Writer) error { return suite.WriteDiffPage(w, st, rep, cfg.align) })
	case cli.Human:
		err = suite.WriteDiffHuman(stdout, rep, cli.Painter(stdout))
	default:
		err = cli.WriteJSON(stdout, rep)
	}
	if err != nil {
		return err
	}
	if rep.Fails(cfg.failOn) {
		return cli.Exit(cli.ExitFinding)
	}
	return nil
}
