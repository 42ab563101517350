// Package fsckcmd is ctx fsck: check the integrity of a store.
package fsckcmd

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/fsck"
	"github.com/contextsubstrate/ctx/lib/text"
)

const name = "ctx-fsck"

// defaultTmpAge is how old a temporary file must be to count as a
// leftover: far longer than any ctx pack or import holds one, so a running
// writer's files are never reported or pruned.
const defaultTmpAge = 24 * time.Hour

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx fsck [flags]",
		Summary:  "Check the store: rehash every object, check manifests, refs, index and leftovers.",
		Exits:    []string{"0 the store is intact", "1 problems found", "2"},
		Args:     cli.MaxArgs(0, "ctx fsck takes no arguments; it checks the whole store"),
		Help: `Rehashes every object under objects/; parses every pack manifest and
checks that each object it names is present; checks refs/latest and
refs/tags/* (a hash naming a pack), the packs/ index (an entry for every
pack, each one current), the layout, leftover temporary files older than
--tmp-age, and that nothing in the store is a symlink, device or pipe
(nothing is ever followed or opened but regular files).

Prints {"ok": bool, "problems": [{"kind", "object", "detail"}]}; --human
prints one line per problem. Kinds: corrupt, missing, symlink, not_regular,
stray, unindexed, bad_index, bad_ref, tmp, layout, unreadable, bad_cache
(cache/log, ctx log's copy of the index, damaged or not what packs/ says).

Nothing is changed unless asked: --repair-index rebuilds missing, damaged
and stale index entries from their manifests (and removes a bad
cache/log), --prune-tmp removes leftover
temporary files. What was repaired is noted on stderr and is no longer a
problem. Objects and refs are never changed.`,
		Examples: `ctx fsck
ctx fsck --human
ctx fsck | jq -r '.problems[] | select(.kind == "corrupt") | .object'
ctx fsck --repair-index --prune-tmp --human`,
	}
}

type config struct {
	store       string
	out         cli.Output
	repairIndex bool
	pruneTmp    bool
	tmpAge      time.Duration
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: `print {"ok", "problems"}`, cli.Human: "print one line per problem"})
	fs.BoolVar(&c.repairIndex, "repair-index", false, "rebuild missing, damaged and stale index entries from their manifests")
	fs.BoolVar(&c.pruneTmp, "prune-tmp", false, "remove temporary files older than --tmp-age")
	fs.DurationVar(&c.tmpAge, "tmp-age", defaultTmpAge, "temporary files at least `DURATION` old (1h, 30m, 0s) are leftovers of interrupted writes")
}

// Check refuses a negative --tmp-age.
func (c *config) Check([]string) error {
	if c.tmpAge < 0 {
		return cli.Usagef("--tmp-age must not be negative")
	}
	return nil
}

// Main runs ctx fsck with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx fsck.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	_, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	rep, err := fsck.Check(st, fsck.Options{
		TmpAge:      cfg.tmpAge,
		RepairIndex: cfg.repairIndex,
		PruneTmp:    cfg.pruneTmp,
	})
	if err != nil {
		return cli.Errorf(cli.ExitTrouble, "cannot check %s: %v", st.Root(), err)
	}
	msg := cli.Messenger{Name: name, W: stderr}
	for _, r := range rep.Repaired {
		msg.Notef("%s: %s", r.Object, r.Detail)
	}
	if cfg.out.Human() {
		err = human(stdout, rep)
	} else {
		err = cli.WriteJSON(stdout, rep)
	}
	if err != nil {
		return err
	}
	if !rep.OK {
		return cli.Exit(cli.ExitFinding)
	}
	return nil
}

// human prints one line per problem, then a summary line.
func human(stdout io.Writer, rep *fsck.Report) error {
	w := bufio.NewWriter(stdout)
	color := cli.UseColor(stdout)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "%s %s: %s\n", text.Paint(color, "31", p.Kind), p.Object, p.Detail)
	}
	checked := fmt.Sprintf("%s, %s, %s", count(rep.Objects, "object"), count(rep.Packs, "pack"), count(rep.Refs, "ref"))
	if rep.OK {
		fmt.Fprintf(w, "%s: %s checked\n", text.Paint(color, "32", "store intact"), checked)
	} else {
		fmt.Fprintf(w, "%s found (%s checked)\n", count(len(rep.Problems), "problem"), checked)
	}
	return w.Flush()
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
