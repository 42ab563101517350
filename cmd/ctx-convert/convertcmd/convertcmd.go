// Package convertcmd is ctx convert: a real agent transcript in, an
// execution log out, ready for ctx pack.
package convertcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/convert"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-convert"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx convert [flags] [FILE|-]\n       ctx convert --to atif [--store DIR] PACK",
		Summary:  "Turn an agent transcript into an execution log for ctx pack.",
		Exits:    []string{"0 converted", "2 malformed input (the line or JSON path is named), tool calls lost, a companion file, an unknown format, or an I/O error"},
		Args:     cli.MaxArgs(1, "ctx convert takes one transcript file, or - for standard input"),
		Help: `Reads a transcript from FILE (or standard input: - or no argument) and
writes its execution log on stdout as NDJSON events (a run line, then
prompt, input, step and output lines), ready for 'ctx pack -'. Gzip input
is decompressed as a stream; a gzip input, or a member of a zip, that
expands past --max-expanded (default 32MiB) stops the conversion (exit 2).
With --from auto (the default) the format is recognised
from the content and named on stderr.

Formats:
` + convert.FormatListing("  ") + `
What the user typed becomes prompts; assistant text, model_call steps; each
tool call a tool_call step with its result (a refused one "outcome":
"rejected"); paths under the run's directory become relative; the rest is
kept under metadata. docs/CONVERT.md has each format's mapping.

With --to atif, the pack PACK is written as an ATIF trajectory (` + convert.ATIFVersion + `)
instead: prompts, model calls with their tool calls and results, metrics.

Every reader is accounted for: when the input holds tool calls and the
reader wrote none, the conversion fails (exit 2) naming the reader and
the counts; when it wrote fewer, a warning gives both. A file that goes
with a transcript but is not one (Cline's ui_messages.json, a member of
an Inspect .eval, Codex's history.jsonl) is refused naming the file to
give.`,
		Examples: `ctx convert ~/.claude/projects/-work-app/4f1c.jsonl | ctx pack -
ctx convert --from openai --model gpt-4o chat.json | ctx pack --tag baseline -
ctx convert run.traj > run.ndjson && ctx pack run.ndjson
ctx convert --sample 3 logs/2025-05-12_task.eval | ctx pack -
ctx convert output.jsonl | ctx pack -        # one pack per OpenHands record
ctx convert --subagents S/subagents - < S.jsonl   # a Claude Code session and its sub-agents, from stdin
ctx convert trace.json | jq -c 'select(.event == "step") | {type, tool}'
ctx convert --to atif latest > trajectory.json`,
	}
}

type config struct {
	from, model, sample, record, subagents string
	maxExpanded, to, store                 string
}

// Check refuses the flags --to atif cannot take: it reads a pack.
func (c *config) Check(args []string) error {
	switch {
	case c.to != "log" && c.to != "atif":
		return cli.Usagef("--to: unknown format %q (log or atif)", c.to)
	case c.to == "atif" && (len(args) != 1 || c.from != "auto" || c.model != "" || c.sample != "" || c.record != "" || c.subagents != ""):
		return cli.Usagef("ctx convert --to atif takes one pack name, and none of --from, --model, --sample, --record, --subagents")
	}
	return nil
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.from, "from", "auto", "the transcript's `FORMAT`: auto, "+strings.Join(convert.FormatNames(), ", "))
	fs.StringVar(&c.model, "model", "", "model identifier `ID` for transcripts that name none")
	fs.StringVar(&c.sample, "sample", "", "Inspect logs: convert only the sample `ID` (or ID:EPOCH); all converts every sample, each sample and epoch a log of its own (default all)")
	fs.StringVar(&c.record, "record", "", strings.Join(convert.RecordFiles(), ", ")+": convert only the record `ID` (instance_id, TASK:ROLLOUT, or #N by place; default: every record, each a log of its own)")
	fs.StringVar(&c.subagents, "subagents", "", "Claude Code: the folder `DIR` (or a file) of the session's sub-agent transcripts, agent-ID.jsonl (default: found beside FILE)")
	fs.StringVar(&c.maxExpanded, "max-expanded", convert.FormatSize(convert.DefaultMaxExpanded), "stop when a gzip input or a zip member expands past `SIZE` (64M, 2G)")
	fs.StringVar(&c.to, "to", "log", "the `FORMAT` to write: log (an execution log, from a transcript) or atif (an ATIF trajectory, from a pack)")
	cli.StoreFlag(fs, &c.store)
}

// Main runs ctx convert with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx convert.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	if cfg.to == "atif" {
		st, m, err := cli.OpenPack(cfg.store, args[0])
		if err != nil {
			return err
		}
		return convert.WriteATIF(stdout, m, func(ref string) ([]byte, error) { h, _ := store.ParseRef(ref); return st.ReadAll(h) })
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(40 << 20) // a soft bound, so the collector keeps up on a busy machine
	}
	msg := cli.Messenger{Name: name, W: stderr}
	in, err := cli.OpenInput(cli.First(args), "", stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	maxExpanded, err := convert.ParseSize(cfg.maxExpanded)
	if err != nil {
		return cli.Usagef("--max-expanded: %v", err)
	}
	opts := convert.Options{MaxExpanded: maxExpanded, From: cfg.from, Model: cfg.model, Sample: cfg.sample, Record: cfg.record, Subagents: []string{cfg.subagents},
		Warn:     func(s string) { msg.Warnf("%s: %s", in.Name, s) },
		Note:     func(s string) { msg.Notef("%s: %s", in.Name, s) },
		Detected: func(f string) { msg.Notef("%s: reading as %s (detected; --from to choose)", in.Name, f) }}
	if _, err := convert.Convert(in, in.File, stdout, opts); err != nil {
		return convertError(in.Name, err)
	}
	return nil
}

// convertError puts what the converter reports into the message format:
// the source named, and what to do with an incomplete log.
func convertError(src string, err error) error {
	var ie *convert.InputError
	var uf *convert.UnknownFormatError
	var le *convert.LossError
	switch {
	case errors.As(err, &le):
		return cli.Errorf(cli.ExitTrouble, "%s: %v", src, le).WithHint("the log written is incomplete; do not pack it (docs/CONVERT.md: accounting)")
	case errors.As(err, &uf):
		return cli.Usagef("--from: %v", uf)
	case errors.As(err, &ie):
		return cli.Errorf(cli.ExitTrouble, "%s: %v", src, ie).WithHint("the log written so far is incomplete; do not pack it")
	}
	return cli.Wrap(cli.ExitTrouble, fmt.Errorf("%s: %w", src, err))
}
