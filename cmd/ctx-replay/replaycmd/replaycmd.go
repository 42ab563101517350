// Package replaycmd is ctx replay: re-execute a pack's steps and report, step
// by step, whether each output still hashes to the recorded one.
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
ctx-tool-NAME program on the lookup path (the step's parameters as JSON on
stdin, its output on stdout), a "tools" entry of .ctx/config.json, or a
built-in (read, list, glob, write and edit tools under the names common
agent frameworks use; shell tools only with --allow-exec). The output's
SHA-256 is compared with the recorded one (the step's normalized output,
where the agent showed its result in its own form, else its output):

  matched            the same bytes
  diverged           a deterministic step produced other bytes
  diverged_expected  a non-deterministic step produced other bytes
  failed             the step could not execute (reason says why), a
                     shell command not found (status 127) among them
  recorded           a non-deterministic step nothing can run: the
                     recorded output stands in
  skipped_rejected   a call refused in the recorded run: never run,
                     whatever the flags; the refusal stands in

Tools resolve per agent: a SWE-agent run's open, goto, edit, ... are
SWE-agent's commands. The steps run in a fresh temporary directory holding
the pack's inputs, removed afterwards (--keep keeps it); --workdir replays
against a real tree instead, and --repo CLONE makes the workspace a checkout
of the commit the run names (environment.git) from the user's clone, the
inputs laid over it; the run's recorded working directory maps to the
workspace in parameters and back in outputs. No path from a step may leave
the workspace.

Every program a replay starts (shell steps, ctx-tool-NAME programs, config
tools) runs in a sandbox (Landlock on Linux): it reads and writes only the
workspace, reads the system directories (/usr, /etc, ...), has HOME and
TMPDIR of its own, sees only PATH, LANG, LC_*, TERM, TZ and the variables
named with --env, and has no network unless --allow-net. Where no sandbox
can be had, --allow-exec refuses unless --no-sandbox is given.

The output is NDJSON: one "step" line as each step finishes, then one
"report" line with the status, the counts (steps, reexecuted and one per
status), the diverged and failed steps, and the dependency drift (tool
versions, missing tools, missing or corrupt inputs and objects, os, arch,
and the recorded runtime against the same runtime here). --human prints
the same as text, led by "N of M steps re-ran". The status is failed,
degraded, unverified or exact, in that order, as the exit codes say.`,
		Examples: `ctx replay latest
ctx replay --human 3f2b71b8
ctx replay latest | jq -c 'select(.event == "step" and .status != "matched")'
ctx replay --allow-exec --step-timeout 5m latest
ctx replay --allow-exec --env GOFLAGS --allow-net latest
ctx replay --workdir . --save latest
ctx replay --allow-exec --repo ~/src/proj latest
ctx replay X | ctx diff X -`,
	}
}

type config struct {
	store       string
	workdir     string
	keep        bool
	allowExec   bool
	noSandbox   bool
	repo        string
	allowNet    bool
	env         cli.Strings
	stepTimeout time.Duration
	out         cli.Output
	save        bool
	tags        cli.Strings
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.StringVar(&c.workdir, "workdir", "", "replay against the existing directory `DIR` instead of a temporary copy of the inputs")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary workspace and print where it is")
	fs.BoolVar(&c.allowExec, "allow-exec", false, "run shell tools (bash, shell, execute_command, ...) with /bin/sh -c")
	fs.StringVar(&c.repo, "repo", "", "make the workspace a checkout of the run's commit from the clone in `DIR` (its own tree, index and HEAD untouched), then lay the inputs over it")
	fs.BoolVar(&c.noSandbox, "no-sandbox", false, "run programs with your rights, environment and network (no sandbox)")
	fs.BoolVar(&c.allowNet, "allow-net", false, "let sandboxed programs use the network")
	fs.Var(&c.env, "env", "pass the variable `NAME` of your environment to sandboxed programs (repeatable)")
	fs.DurationVar(&c.stepTimeout, "step-timeout", 2*time.Minute, "stop a step's program after `DURATION` (0: no limit)")
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print NDJSON: a line per step, then the report", cli.Human: "print the steps and the report as text"})
	fs.BoolVar(&c.save, "save", false, "store the replay as a new pack whose parent is the original")
	fs.Var(&c.tags, "tag", "with --save, also name the new pack refs/tags/`NAME` (repeatable)")
}

// Check refuses flags that do not go together.
func (c *config) Check([]string) error {
	switch {
	case c.repo != "" && c.workdir != "":
		return cli.Usagef("--repo makes a temporary workspace of the run's commit; with --workdir the tree is used as it is")
	case c.keep && c.workdir != "":
		return cli.Usagef("--keep keeps the temporary workspace; with --workdir nothing is removed")
	case len(c.tags) > 0 && !c.save:
		return cli.Usagef("--tag names the saved replay; give --save too")
	case c.noSandbox && (c.allowNet || len(c.env) > 0):
		return cli.Usagef("--allow-net and --env open the sandbox; with --no-sandbox there is none")
	case c.stepTimeout < 0:
		return cli.Usagef("--step-timeout must not be negative")
	}
	return cli.CheckTags(c.tags)
}

// newSandbox is the sandbox of the replay's programs, or nil and why they
// run unconfined: --no-sandbox, or no sandbox here (then --allow-exec is
// refused: shell commands from a pack never run unconfined unasked).
func newSandbox(cfg *config, ws string, readOnly []string) (*sandbox.Sandbox, string, error) {
	if cfg.noSandbox {
		return nil, "--no-sandbox", nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, "", cli.Errorf(cli.ExitTrouble, "cannot find ctx-replay's own program to launch the sandbox: %v", err)
	}
	sb, err := sandbox.New(exe, sandbox.Policy{Workspace: ws, ReadOnly: readOnly, AllowNet: cfg.allowNet, Env: cfg.env})
	switch {
	case err == nil:
		return sb, "", nil
	case cfg.allowExec:
		return nil, "", cli.Errorf(cli.ExitTrouble, "--allow-exec needs a sandbox: %v", err).
			WithHint("--no-sandbox runs the pack's shell commands with your rights, environment and network")
	}
	return nil, err.Error(), nil
}

// Main runs ctx replay with the process's arguments and streams, or,
// started by a replay as the sandbox's launcher, confines itself and
// executes a step's program.
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
	ws, err := replay.NewWorkspace(cfg.workdir, st.Root())
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	defer ws.Close()
	var shared []string
	if cfg.repo != "" {
		if shared, err = replay.Checkout(ctx, ws, cfg.repo, m.Env()); err != nil {
			ws.Remove()
			return cli.Wrap(cli.ExitTrouble, err)
		}
		opts.Repo = cfg.repo
	}
	sb, unconfined, err := newSandbox(&cfg, ws.Dir(), shared)
	if err != nil {
		if !cfg.keep {
			ws.Remove()
		}
		return err
	}
	opts.Sandbox, opts.Unconfined = sb, unconfined
	ctx, done := cli.Cleanup(ctx, func() {
		sb.Close()
		if !cfg.keep {
			ws.Remove()
		}
	})
	defer done()
	if cfg.keep {
		msg.Notef("workspace kept at %s", ws.Dir())
	}

	out := replay.NewPrinter(stdout, stderr, cfg.out.Human(), cli.Painter(stdout), cli.IsTerminal(stderr))
	opts.AllowExec, opts.StepTimeout, opts.Save, opts.Tags = cfg.allowExec, cfg.stepTimeout, cfg.save, cfg.tags
	opts.BuiltinVersion = "ctx " + cli.Version()
	opts.Warn = func(s string) { out.ClearProgress(); msg.Warnf("%s", s) }
	opts.Progress = out.Progress
	rep, err := replay.RunSteps(ctx, st, m, steps, ws, opts, out.Step)
	if rep == nil { // Run gives a report, or an error, or both
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if werr := out.Report(rep); werr != nil {
		return werr
	}
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	return cli.Exit(map[replaystream.Fidelity]int{replaystream.Degraded: cli.ExitFinding, replaystream.FailedReplay: cli.ExitFailed,
		replaystream.Unverified: cli.ExitUnverified}[rep.Status])
}
