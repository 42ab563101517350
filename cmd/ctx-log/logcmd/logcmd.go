// Package logcmd is ctx log: the packs of a store, newest first.
package logcmd

import (
	"context"
	"flag"
	"io"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/share"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-log"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx log [flags]",
		Summary:  "List the packs of the store, newest first.",
		Exits:    []string{"0", "2"},
		Args:     cli.MaxArgs(0, "ctx log takes no arguments (use --model, --since and -n to choose packs)"),
		Help: `One line per pack: short hash, created ("time unknown" when the run
recorded none), model, step count, parent (for a forked or replayed pack),
the refs that name it, and the subject (the task id, else the first line
of the first prompt). Packs are listed in the order they entered this
store (packed, imported or pulled), newest first, so latest is the first.
--json prints the same as NDJSON, one object per pack:
{"hash", "created", "model", "steps", "parent", "refs"}.

ctx log reads the packs/ index only, never the manifests. A damaged index
entry is rebuilt from its pack's manifest (with a warning); packs whose
objects were copied in without their index entries are indexed by
'ctx fsck --repair-index'.

--since takes a date (2026-02-10, midnight UTC) or an RFC 3339 time
(2026-02-10T12:00:00Z); --model takes a model identifier exactly as
recorded and may be repeated.`,
		Examples: `ctx log
ctx log -n 5
ctx log --model claude-opus-4-6 --since 2026-02-01
ctx log --json | jq -r 'select(.steps > 100) | .hash'`,
	}
}

type config struct {
	store  string
	out    cli.Output
	n      int
	models cli.Strings
	since  string
	query  pack.Query // what the flags select
}

// RegisterFlags defines the flags of ctx log on fs.
func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print NDJSON, one {hash, created, model, steps, parent, refs} per pack", cli.Human: "print one line per pack"})
	fs.IntVar(&c.n, "n", -1, "list at most `N` packs")
	fs.Var(&c.models, "model", "list only packs of model `ID` (repeatable)")
	fs.StringVar(&c.since, "since", "", "list only packs created at or after `TIME` (2026-02-10 or RFC 3339)")
}

// Check reads -n and --since into the query.
func (c *config) Check([]string) error {
	if c.n < -1 {
		return cli.Usagef("-n: %d is not a number of packs", c.n)
	}
	c.query = pack.Query{Models: c.models, Limit: c.n}
	if c.since != "" {
		var err error
		if c.query.Since, err = pack.ParseSince(c.since); err != nil {
			return cli.Usagef("--since: %v", err)
		}
	}
	return nil
}

// Main runs ctx log with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx log.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg := config{n: -1}
	_, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	l, err := share.List(st, cfg.query, time.Now())
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	for _, w := range l.Warnings() {
		msg.Warnf("%s", w)
	}
	for _, p := range l.Problems {
		msg.Errorf("%v", p)
	}
	if err := l.Write(stdout, !cfg.out.Human(), cli.UseColor(stdout)); err != nil {
		return err
	}
	if len(l.Problems) > 0 {
		return cli.Errorf(cli.ExitTrouble, "%d index entries could not be read or rebuilt; the list above leaves them out", len(l.Problems)).
			WithHint("run 'ctx fsck' to see what is damaged")
	}
	if len(l.Entries) == 0 && cfg.n != 0 {
		msg.Notef("no packs found")
		switch {
		case l.Total > 0:
			msg.Hintf("the store holds %d packs; none matches %s", l.Total, filters(cfg))
		case holdsPack(st):
			msg.Hintf("the store holds packs but its packs/ index is empty; run 'ctx fsck --repair-index' to index packs copied in")
		case hasObjects(st):
			msg.Hintf("the store holds objects that no pack names (what a write that did not finish left): 'ctx gc' deletes them")
		}
	}
	return nil
}

// filters describes the filters given, for the hint of an empty result.
func filters(cfg config) string {
	var parts []string
	for _, m := range cfg.models {
		parts = append(parts, "--model "+m)
	}
	if cfg.since != "" {
		parts = append(parts, "--since "+cfg.since)
	}
	return strings.Join(parts, " and ")
}

func holdsPack(st *store.Store) bool {
	ok, err := pack.HoldsPack(st)
	return err == nil && ok
}

func hasObjects(st *store.Store) bool {
	ok, err := st.HasObjects()
	return err == nil && ok
}
