// Package diffcmd is ctx diff: the drift report between two runs, each a
// pack, a manifest file, an execution log or a replay stream.
package diffcmd

import (
	"context"
	"flag"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/diff"
	"github.com/contextsubstrate/ctx/lib/htmlview"
	"github.com/contextsubstrate/ctx/lib/side"
)

const name = "ctx-diff"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx diff [flags] A B",
		Summary:  "Report the drift between two runs: prompts, tools, parameters, outputs.",
		Exits:    []string{"0 no drift", "1 drift found", "2 a side not found, not readable or malformed, or another error"},
		Args:     cli.ExactArgs(2, "ctx diff takes two runs, A and B"),
		Help: `A and B are each a pack (ctx://HEX, sha256:HEX, HEX, a unique prefix of
4+ hex digits, latest, or a tag), a manifest file, an execution log file,
or - for standard input holding a manifest, a log, or the NDJSON stream of
'ctx replay' (that side is then the replayed run). An argument is a file
when it names an existing file or contains a slash (ctx://HEX excepted).
A log is turned into a manifest in memory: nothing is written, and no
store is needed to diff two files.

The report is one JSON document: {"a", "b", "drift": [...], "summary",
"first_divergence"}, each drift entry typed (prompt_drift, tool_drift,
param_drift, reasoning_drift, output_drift, model_drift, input_drift,
environment_drift) with the section, step or name, the change (modified,
added, removed), both sides' values and a plain sentence in "detail".
--human prints those sentences grouped by section, with the first line
where a changed text differs. --html writes one self-contained HTML page
(-o FILE, or standard output): the two runs side by side, step by step,
with each change shown as a diff.

Steps are compared by index: step i of A with step i of B, the surplus of
the longer run added or removed. --align=sequence aligns the sequences of
tool calls instead, so one inserted step is one added entry, and --human
shows each step's index in A and in B in two columns; when the steps of
one run are shifted against the other's, a hint on stderr says so. Parameters
compare canonically: key order, white space and JSON held in a string
argument never count as drift.`,
		Examples: `ctx diff baseline latest
ctx diff --human 3f2b71b8 9c1e4d20
ctx diff baseline.json new-run.json        # two logs, no store needed
ctx diff --align=sequence a.json b.json | jq '.drift[] | select(.type == "param_drift")'
ctx diff baseline latest | jq -e '.summary.prompt_drift == 0'
ctx replay latest | ctx diff latest -
ctx diff --html -o drift.html baseline latest`,
	}
}

type config struct {
	store string
	out   cli.Output
	align string
}

// RegisterFlags registers the flags of ctx diff on fs.
func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{
		cli.JSON:  "print the report as one JSON document",
		cli.Human: "print plain sentences grouped by section",
		cli.HTML:  "write the drift as one self-contained HTML page: the two runs side by side",
	})
	fs.StringVar(&c.align, "align", diff.AlignIndex, "how steps align (`MODE`): index (step i with step i) or sequence (by the sequence of tool calls)")
}

// Check refuses standard input on both sides and an unknown alignment.
func (c *config) Check(args []string) error {
	if args[0] == "-" && args[1] == "-" {
		return cli.Usagef("standard input can be only one side")
	}
	if c.align != diff.AlignIndex && c.align != diff.AlignSequence {
		return cli.Usagef("--align: %q is not index or sequence", c.align)
	}
	return nil
}

// Main runs ctx diff with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx diff.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	st, err := cli.FindStore(cfg.store)
	if err != nil {
		return err
	}
	l := side.NewLoader(st, stdin, cfg.out.Format() != cli.JSON)
	defer l.Close()
	if cfg.out.Format() != cli.HTML {
		l.StreamSteps() // the page draws every step; the reports need one at a time
	}
	sides := l.LoadBoth(args[0], args[1])
	msg := cli.Messenger{Name: name, W: stderr}
	for _, s := range sides {
		for _, w := range s.Warnings {
			msg.Warnf("%s", w)
		}
	}
	for _, s := range sides {
		if s.Err != nil {
			return s.Err
		}
	}
	r, err := diff.CompareSteps(sides[0].Manifest, sides[1].Manifest, sides[0].Steps, sides[1].Steps, diff.Options{Align: cfg.align, Advise: true})
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	switch cfg.out.Format() {
	case cli.HTML:
		page := htmlview.Diff{A: htmlview.Side{Label: args[0], Manifest: sides[0].Manifest, Replay: sides[0].Replay},
			B: htmlview.Side{Label: args[1], Manifest: sides[1].Manifest, Replay: sides[1].Replay}, Report: r, Align: cfg.align, Blobs: l.Blobs()}
		err = cfg.out.Write(stdout, func(w io.Writer) error { return htmlview.WriteDiff(w, page) })
	case cli.Human:
		err = diff.WriteHuman(stdout, r, l.Blobs(), cli.Painter(stdout))
	default:
		err = cli.WriteJSON(stdout, r)
	}
	if err != nil {
		return err
	}
	if r.Advice != "" {
		msg.Hintf("%s", r.Advice)
	}
	if r.Summary.Total > 0 {
		return cli.Exit(cli.ExitFinding)
	}
	return nil
}
