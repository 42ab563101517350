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
		Summary:  "Compare two suites task by task: outcome changes, step drift, a test of the change.",
		Args:     cli.ExactArgs(2, "ctx suite diff takes two suite names"),
		Help: `A and B are suites' names, their ctx:// names, or registry references
host/repo:tag (or @sha256:HEX) of suites 'ctx suite push' sent: such a
suite is pulled into the store first (as 'ctx suite pull', named by no
ref), with the registry flags of 'ctx suite pull'.

Pairs the runs of suites A and B by task. With one run of each task a
side, each pair is compared by verdict (else by numeric score): regressed,
improved, same; the summary gives McNemar's exact test over the pairs
whose verdict changed (mcnemar_p). When a task was run more than once
(trials), every task is compared by its pass rate (a.rate, b.rate over
the runs with a verdict), the summary gives the exact sign test over the
tasks whose rate moved (sign_test_p), and the drift is that of a
representative pair (pair.chosen says which). Both give each side's pass
rate and the mean difference of the tasks' rates with its 95% confidence
interval.

A run without a verdict because the harness failed (a test timeout, a
verifier's exception: its end is an error) is errored: a task whose change
involves one is errored, never a regression; --errors-as-failures counts
such runs as failures, as a harness's accuracy does. A task whose change
involves a run nothing judged is no_verdict. Tasks of one side only are
only_a, only_b. Each pair's step drift comes from ctx diff's engine.

JSON by default: {"a", "b", "summary", "tasks"}. --human prints a table,
regressions first; --markdown a summary for a CI job summary or a pull
request comment; --html one self-contained page (-o FILE); --junit FILE
writes JUnit XML beside any of them (a testcase per task, a failure per
regression, an error per errored task; --junit - on standard output).`,
		Exits: []string{"0 no task regressed (or what --fail-on names did not happen); errored and unjudged tasks never count",
			"1 a task regressed (--fail-on changed: a task regressed, improved or is on one side only; --fail-on never: never)",
			"2 the comparison could not be made: a suite not found or unreadable, two suites with no task in common, a registry error, a usage error"},
		Examples: `ctx suite diff baseline candidate
ctx suite diff baseline candidate --human
ctx suite diff baseline candidate --markdown --junit report.xml >> "$GITHUB_STEP_SUMMARY"
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
	errors bool
	reg    oci.Options
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{
		cli.JSON:     "print the comparison as JSON",
		cli.Human:    "print a table, regressions first",
		cli.Markdown: "print a Markdown summary (for a CI job summary or a pull request comment)",
		cli.HTML:     "write one self-contained HTML page: the tasks, each opening onto the two runs' steps",
		cli.JUnit:    "write JUnit XML into `FILE` too (- for standard output)",
	})
	fs.BoolVar(&c.errors, "errors-as-failures", false, "count runs that errored as failures, as a harness's accuracy does")
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
	opts := suite.DiffOptions{Options: diff.Options{Align: cfg.align}, Judging: suite.Judging{ErrorsAsFailures: cfg.errors}}
	if cfg.out.Format() == cli.HTML {
		opts.Keep = suite.PageLanes
	}
	rep, err := suite.Diff(st, a, b, opts)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	switch cfg.out.Format() {
	case cli.JUnit:
		err = suite.WriteDiffJUnit(stdout, rep)
	case cli.Markdown:
		err = suite.WriteDiffMarkdown(stdout, rep)
	case cli.HTML:
		err = cfg.out.Write(stdout, func(w io.Writer) error { return suite.WriteDiffPage(w, st, rep, cfg.align) })
	case cli.Human:
		err = suite.WriteDiffHuman(stdout, rep, cli.Painter(stdout))
	default:
		err = cli.WriteJSON(stdout, rep)
	}
	if err == nil {
		err = cfg.out.WriteFile(cli.JUnit, func(w io.Writer) error { return suite.WriteDiffJUnit(w, rep) })
	}
	if err != nil {
		return err
	}
	if rep.Fails(cfg.failOn) {
		return cli.Exit(cli.ExitFinding)
	}
	return nil
}
