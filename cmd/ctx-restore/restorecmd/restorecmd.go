// Package restorecmd is ctx restore: a pack written into a coding agent's
// own store, so that the agent resumes it.
package restorecmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/contextsubstrate/ctx/lib/agentstore"
	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/replay"
	"github.com/contextsubstrate/ctx/lib/session"
	"github.com/contextsubstrate/ctx/lib/text"
)

const name = "ctx-restore"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx restore [--to AGENT] [--cwd DIR] [--session-id ID] [flags] PACK",
		Summary:  "Write a pack into a coding agent's own store, so that the agent resumes it.",
		Exits:    []string{"0 restored, or already there unchanged", "2 nothing was written: a bad pack or directory, or another session holds the id"},
		Args:     cli.ExactArgs(1, "ctx restore takes one pack"),
		Help: `Writes the run PACK names into the store of Claude Code, Codex or Gemini
CLI (--to; default the agent the run came from) as a session of the
directory --cwd (default the current directory), where the agent's own
resume finds it, and prints the session id and the command that
continues it.

Exact when the pack holds the session's own files (ctx capture keeps
them): the lines as the agent wrote them, only the working directory
changed where the agent reads it. Rendered otherwise: the prompts, the
model's answers and each tool call with its result, in the target's own
records; what the target cannot hold is listed on stderr. Files are
written atomically, 0600 in folders 0700. Restoring the same run again
changes nothing; a grown session replaces the shorter one; a different
session with the same id is never overwritten (exit 2; --session-id new
restores it under a fresh id). A Codex session recorded with a model
provider $CODEX_HOME does not configure is restored with a warning
saying what to add.

With --repo DIR, --cwd (a directory that does not exist yet, or an
empty one) is made a checkout of the commit the run recorded
(environment.git), as 'ctx replay --repo' does; one that is that
checkout already is kept. See docs/RESTORE.md.`,
		Examples: `ctx restore claude-code.0b6f3c1e-0e5d-4f43-9a43-3f0c2b7d9e10 && claude --continue
ctx restore --to claude-code --cwd ~/src/app codex.01a22217-10c2-7c91-aaf1-4dd0fbb90fcb
ctx restore --session-id new --json latest | jq -r .session
ctx restore --repo ~/src/app --cwd /tmp/app-then latest`,
	}
}

type config struct {
	store, cwd, id, repo string
	to                   cli.Shared
	out                  cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print what was restored as JSON (nothing when it fails)", cli.Human: "print sentences"})
	c.to.Accept = func(v string) bool { _, err := agentstore.Lookup(v); return err == nil }
	fs.Var(&c.to, "to", "the `AGENT` to restore into: "+strings.Join(agentstore.Names(), ", ")+" (default: the run's own)")
	fs.StringVar(&c.cwd, "cwd", "", "the session's working `DIR` on this machine (default: the current directory)")
	fs.StringVar(&c.id, "session-id", "", "the session's `ID` (default: the run's own; new: a fresh one)")
	fs.StringVar(&c.repo, "repo", "", "make --cwd a checkout of the run's commit from the git clone in `DIR`")
}

func (c *config) Check(args []string) error {
	if c.to.Value != "" {
		a, err := agentstore.Lookup(c.to.Value)
		if err != nil {
			return cli.Usagef("--to: %v", err)
		}
		c.to.Value = a.Name
	}
	return nil
}

// Main runs ctx restore with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx restore.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	if note := cfg.to.IgnoredNote("to", "an agent", "ctx convert's --to, which shares it"); note != "" {
		msg.Notef("%s", note)
	}
	now, err := cli.Clock()
	if err != nil {
		return err
	}
	h, err := st.ResolvePack(args[0])
	if err != nil {
		return cli.NameError(err)
	}
	dir := cfg.cwd
	if dir == "" {
		dir = "."
	}
	undo := func() {}
	if cfg.repo != "" {
		m, _, err := pack.Head(st, h, nil)
		if err != nil {
			return cli.Wrap(cli.ExitTrouble, err)
		}
		made, err := replay.NewCheckout(ctx, dir, cfg.repo, m.Env())
		if err != nil {
			return cli.Wrap(cli.ExitTrouble, err)
		}
		if made != nil {
			undo = made
		}
	}
	cwd, err := session.WorkingDir(dir)
	if err != nil {
		return cli.Errorf(cli.ExitTrouble, "--cwd %v", err)
	}
	res, err := session.Restore(st, h, session.RestoreOptions{To: cfg.to.Value, Cwd: cwd, SessionID: cfg.id, Env: os.Getenv, Now: now,
		Warn: func(s string) { msg.Warnf("%s", s) }, Note: func(s string) { msg.Notef("%s", s) }})
	if err != nil {
		undo() // nothing of this restore stays, its checkout neither
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if note := res.CheckoutNote(); note != "" && cfg.repo == "" {
		msg.Notef("%s", note)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, res)
	}
	fmt.Fprintf(stdout, "%s session %s (%s, %s): %s\n", res.Agent, res.Session, res.Mode, res.Status, res.File)
	fmt.Fprintf(stdout, "continue it: cd %s && %s\n", text.ShellWord(res.Cwd), strings.Join(res.Resume, " "))
	return nil
}
