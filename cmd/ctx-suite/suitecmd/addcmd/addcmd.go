// Package addcmd is ctx suite add: every run of the sources packed and
// recorded as a suite.
package addcmd

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/suite"
	"github.com/contextsubstrate/ctx/lib/text"
)

const name = "ctx-suite"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx suite add [flags] NAME SOURCE...",
		Summary:  "Pack every run of the sources and record them as the suite NAME.",
		Args:     cli.MinArgs(2, "ctx suite add takes a suite name and at least one source"),
		Help: `Each SOURCE is a transcript file holding one run or many (an Inspect log:
one run per sample and epoch; an OpenHands output.jsonl: one per record),
a directory of transcripts (a SWE-bench submission's trajs/, one file or
one folder per instance; files that are not transcripts are skipped and
counted), an execution log, '-' for a stream of logs on standard input
(as 'ctx convert ... | ctx pack -' reads), or the name of a pack already
stored. Every run is packed as 'ctx pack -' packs a stream of logs, and
the suite object (RFC 8785 canonical JSON, in the store like a pack)
lists task by task each run's pack and outcome; refs/suites/NAME names
it. A NAME that names a suite already is refused before anything is
packed, unless -f (as a tag: -f replaces it and says which suite it
replaced; the packs of that suite stay, as ctx rm leaves them until gc).
The suite's ctx:// name is printed; every suite command takes it.

A run's task is the one its log gives (docs/FORMAT.md: task, outcome,
end; else a task_id, task or instance_id of its metadata, as ctx log
names it); a run without one takes its file's name when the file holds
one run, else its index in its source (said once). Several runs of one task
are its epochs; runs that repeat an epoch are numbered 1, 2, ... (said).

--results FILE (repeatable) reads outcomes kept beside the runs:
SWE-bench's results.json ({"resolved": [...]}; a run it does not list did
not pass), a results_summary.json (instances[] {instance_id, resolved}),
a report.json, or a folder of logs/<id>/report.json. Tasks a results file
names without a run are noted and counted.

Every source and results file is checked before anything is packed; a
run that cannot be packed stops the command, and no suite is recorded.`,
		Exits: []string{"0 the suite was recorded", "2"},
		Examples: `ctx suite add baseline logs/2026-05-01_popularity.eval
ctx suite add candidate trajs/ --results results.json
ctx convert output.jsonl | ctx suite add oh-run -
ctx suite add picked latest baseline-pack 3f2a9c`,
	}
}

type config struct {
	store   string
	model   string
	strict  bool
	force   bool
	results cli.Strings
	out     cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.Var(&c.results, "results", "read outcomes from `FILE` (results.json, results_summary.json, report.json, or a folder of logs/<id>/report.json; repeatable)")
	fs.StringVar(&c.model, "model", "", "the model `ID` of transcripts that name none")
	fs.BoolVar(&c.strict, "strict", false, "treat unknown fields of a log as errors")
	fs.BoolVar(&c.force, "f", false, "replace the suite NAME names already")
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print {name, suite, runs, tasks, passed, skipped, previous}", cli.Human: "print ctx://<hex> of the suite"})
}

// Run is ctx suite add, with the arguments after "add".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	_, rep, err := suite.Add(st, args[0], suite.AddOptions{
		Sources: args[1:], Results: cfg.results, Stdin: stdin, Model: cfg.model, Strict: cfg.strict,
		Note: msg.Note, Warn: msg.Warn, Interrupt: cli.OnSignal, Force: cfg.force,
	})
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if rep.Previous != "" {
		msg.Notef("suite %s replaced %s", rep.Name, rep.Previous)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, rep)
	}
	msg.Notef("suite %s: %s of %s, %d passed", rep.Name, text.Plural(rep.Runs, "run"), text.Plural(rep.Tasks, "task"), rep.Passed)
	_, err = fmt.Fprintln(stdout, rep.Suite)
	return err
}
