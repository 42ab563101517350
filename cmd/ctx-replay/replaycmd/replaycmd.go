// Package replaycmd is ctx replay: re-execute a pack's steps, compare outputs.
package replaycmd

import (
	"context"
	"flag"
	"io"
	"os"
	"time"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/pack/replaystream"
	"github.com/contextsubstrate/ctx/lib/replay"
	"github.com/contextsubstrate/ctx/lib/sandbox"
)

const name = "ctx-replay"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx replay [flags] PACK",
		Summary:  "Re-execute a pack's steps and compare each output with the recorded one.",
		Exits:    []string{"0 replay exact: nothing failed or diverged, and at least one step re-ran and matched", "1 replay degraded: no step failed; a deterministic step diverged", "2", "3", "4"},
		Args:     cli.ExactArgs(1, "ctx replay takes one pack name"),
		Help: `Each step runs in order through the first executor that has its tool: a
ctx-tool-NAME program on the lookup path (parameters as JSON on stdin,
output on stdout), a "tools" entry of .ctx/config.json, or a built-in
(read, list, glob, write and edit tools under the common agents' names and
SWE-agent's commands; shell tools only with --allow-exec). Its output's
SHA-256 is compared with the recorded one. A step is matched, diverged
(deterministic, other bytes), diverged_expected (non-deterministic),
failed (could not execute), recorded (nothing can run it: the recording
stands in), skipped_rejected (refused in the recorded run) or not_allowed
(needs a flag, named in its reason).

The workspace is a fresh temporary directory of the pack's inputs (--keep
keeps it), --workdir a real tree, or --repo CLONE a checkout of the run's
commit (environment.git) with the inputs laid over it. No path from a step
leaves it. Every program a replay starts runs in a sandbox (Landlock and
seccomp on Linux): the workspace only, the system directories read-only,
an environment of PATH, LANG, TZ... and --env's, no host Unix socket, no
network unless --allow-net, at most --max-procs processes of --max-memory
MiB each, nothing left running after its step. Without a sandbox here,
--allow-exec refuses unless --no-sandbox.

Output: NDJSON, a "step" line per step, then a "report" line (the status,
counts, diverged and failed steps, dependency drift); --human as text.`,
		Examples: `ctx replay latest
ctx replay --human 3f2b71b8
ctx replay latest | jq -c 'select(.event == "step" and .status != "matched")'
ctx replay --allow-exec --step-timeout 5m latest
ctx replay --allow-exec --env GOFLAGS --allow-net --max-procs 16384 latest
ctx replay --workdir . --save latest
ctx replay --allow-exec --repo ~/src/proj latest
ctx replay X | ctx diff X -`,
	}
}

type config struct {
	store       string
	place       replay.Place
	stepTimeout time.Duration
	out         cli.Output
	save        bool
	tags        cli.Strings
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	p := &c.place
	cli.StoreFlag(fs, &c.store)
	fs.StringVar(&p.Workdir, "workdir", "", "replay against the existing directory `DIR` instead of a temporary copy of the inputs")
	fs.BoolVar(&p.Keep, "keep", false, "keep the temporary workspace and print where it is")
	fs.BoolVar(&p.AllowExec, "allow-exec", false, "run shell tools (bash, shell, execute_command, ...) with /bin/sh -c")
	fs.StringVar(&p.Repo, "repo", "", "make the workspace a checkout of the run's commit from the clone in `DIR` (its own tree, index and HEAD untouched), then lay the inputs over it")
	fs.BoolVar(&p.NoSandbox, "no-sandbox", false, "run programs with your rights, environment and network (no sandbox)")
	fs.BoolVar(&p.AllowNet, "allow-net", false, "let sandboxed programs use the network")
	fs.Var((*cli.Strings)(&p.Env), "env", "pass the variable `NAME` of your environment to sandboxed programs (repeatable)")
	fs.DurationVar(&c.stepTimeout, "step-timeout", 2*time.Minute, "stop a step's program after this `DURATION` (0: no limit)")
	fs.IntVar(&p.MaxProcs, "max-procs", 4096, "let a sandboxed step run `N` processes and threads at once (0: no bound)")
	fs.Int64Var(&p.MaxMemoryMiB, "max-memory", 4096, "let each process of a sandboxed step allocate `MiB` of memory (0: no bound)")
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print NDJSON: a line per step, then the report", cli.Human: "print the steps and the report as text"})
	fs.BoolVar(&c.save, "save", false, "store the replay as a new pack whose parent is the original")
	fs.Var(&c.tags, "tag", "with --save, also name the new pack refs/tags/`NAME` (repeatable)")
}

// Check refuses flags that do not go together.
func (c *config) Check([]string) error {
	switch err := c.place.Check(); {
	case err != nil:
		return cli.Usagef("%v", err)
	case len(c.tags) > 0 && !c.save:
		return cli.Usagef("--tag names the saved replay; give --save too")
	case c.stepTimeout < 0:
		return cli.Usagef("--step-timeout must not be negative")
	}
	return cli.CheckTags(c.tags)
}

// Main runs ctx replay, or, started as the sandbox's launcher, a step's program.
func Main() int {
	if sandbox.IsLaunch(os.Args) {
		return sandbox.Launch(os.Args[1:])
	}
	return cli.Main(name, Run)
}

// Run is ctx replay.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	_, st, m, steps, err := cli.ParsePackSteps(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	opts, err := replay.StoreOptions(st)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if opts.Now, err = cli.Clock(); err != nil {
		return err
	}
	ws, cleanup, err := replay.Prepare(ctx, st, m, cfg.place, &opts)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	ctx, done := cli.Cleanup(ctx, cleanup)
	defer done()
	if cfg.place.Keep {
		msg.Notef("workspace kept at %s", ws.Dir())
	}

	out := replay.NewPrinter(stdout, stderr, cfg.out.Human(), cli.Painter(stdout), cli.IsTerminal(stderr))
	opts.AllowExec, opts.StepTimeout, opts.Save, opts.Tags = cfg.place.AllowExec, cfg.stepTimeout, cfg.save, cfg.tags
	opts.BuiltinVersion = "ctx " + cli.Version()
	opts.Warn = func(s string) { out.ClearProgress(); msg.Warnf("%s", s) }
	opts.Progress = out.Progress
	rep, err := replay.RunSteps(ctx, st, m, steps, ws, opts, out.Step)
	if rep != nil { // a report, or an error, or both
		if werr := out.Report(rep); werr != nil {
			return werr
		}
	}
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	return cli.Exit(map[replaystream.Fidelity]int{replaystream.Degraded: cli.ExitFinding, replaystream.FailedReplay: cli.ExitFailed,
		replaystream.Unverified: cli.ExitUnverified}[rep.Status])
}
