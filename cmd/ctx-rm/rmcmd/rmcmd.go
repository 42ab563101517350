// Package rmcmd is ctx rm: take packs out of the index.
package rmcmd

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/gc"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

const name = "ctx-rm"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx rm [flags] PACK...",
		Summary:  "Remove packs from the index, with their tags; 'ctx gc' deletes their objects.",
		Exits:    []string{"0", "2"},
		Args:     cli.MinArgs(1, "name the packs to remove"),
		Help: `PACK is ctx://HEX, sha256:HEX, HEX, a unique prefix of 4+ hex digits,
latest, or a tag. Each pack leaves the index ('ctx log' no longer lists
it) and its objects stay until 'ctx gc' deletes what nothing else keeps;
'ctx tag NAME PACK' puts a removed pack back before then. A pack that a
tag names is removed only with -f, which deletes those tags too. When
refs/latest names a removed pack it moves to the newest pack left (as
'ctx log' lists them), or goes when none is left. A pack that other packs
name as their parent can be removed: they keep its hash (a note says
which). Every pack is checked before anything changes.

Prints {"removed": [{"pack", "tags", "children"}], "latest": {"from",
"to"}} ("latest" only when it moved); --human prints sentences.`,
		Examples: `ctx rm 3f2b71b8
ctx rm -f baseline
ctx rm $(ctx log --json | jq -r 'select(.model == "test-model") | .hash')
ctx rm latest && ctx gc --prune=now`,
	}
}

type config struct {
	store string
	out   cli.Output
	force bool
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print what was removed as JSON", cli.Human: "print sentences"})
	fs.BoolVar(&c.force, "f", false, "remove packs that tags name, and those tags")
}

// Main runs ctx rm with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx rm.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	packs := make([]store.Hash, 0, len(args))
	for _, a := range args {
		h, err := st.ResolvePack(a)
		if err != nil {
			return cli.NameError(err).WithHint("nothing was removed")
		}
		packs = append(packs, h)
	}
	res, err := gc.Remove(st, packs, cfg.force, time.Now())
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	msg := cli.Messenger{Name: name, W: stderr}
	for _, r := range res.Removed {
		if r.Already {
			msg.Notef("%s was removed already", r.Pack)
		}
		if n := len(r.Children); n > 0 {
			msg.Notef("%s is the parent of %s (%s); they keep its hash as their parent", r.Pack, text.Plural(n, "pack"), shorts(r.Children))
		}
	}
	if l := res.Latest; l != nil && l.To != nil {
		msg.Notef("refs/latest now names %s, the newest pack left", l.To)
	} else if l != nil {
		msg.Notef("refs/latest is gone: no pack is left")
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, res)
	}
	w := bufio.NewWriter(stdout)
	for _, r := range res.Removed {
		line := "removed " + r.Pack.URI()
		if len(r.Tags) > 0 {
			line += " and its " + text.Plural(len(r.Tags), "tag") + " " + strings.Join(r.Tags, ", ")
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "its objects stay until 'ctx gc'")
	return w.Flush()
}

// shorts lists hashes by their short form.
func shorts(hs []store.Hash) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = h.Short()
	}
	return strings.Join(s, ", ")
}
