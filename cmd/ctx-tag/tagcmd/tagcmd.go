// Package tagcmd is ctx tag: list, set and delete the names of packs.
package tagcmd

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/gc"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-tag"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx tag [flags]\nctx tag [flags] NAME PACK\nctx tag -d NAME...",
		Summary:  "List, set and delete tags: names of packs under refs/tags/.",
		Exits:    []string{"0", "2"},
		Help: `Without arguments, lists the tags: a JSON array of {"name", "pack"},
sorted by name (--human: one line each, the name and the short hash).

NAME PACK points the tag NAME at PACK (ctx://HEX, sha256:HEX, HEX, a
unique prefix of 4+ hex digits, latest, or a tag) and prints it. A tag
that names another pack already is moved only with -f (the record then
holds "previous"). Tagging a pack that 'ctx rm' removed puts it back in
the index. -d NAME... deletes tags and prints them; an unknown tag is an
error and nothing is deleted.

A tag name is 1 to 128 letters, digits, '.', '_' and '-', starting with
a letter or digit, not "latest", and not 4 or more hex digits alone (as
for 'ctx pack --tag'). A tag keeps its pack from 'ctx gc'.`,
		Examples: `ctx tag baseline latest
ctx tag
ctx tag --human
ctx tag -f baseline 3f2b71b8
ctx tag -d baseline
ctx tag | jq -r '.[] | select(.name | startswith("release-")) | .pack'`,
	}
}

type config struct {
	store  string
	out    cli.Output
	force  bool
	delete bool
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print the tags as JSON", cli.Human: "print lines"})
	fs.BoolVar(&c.force, "f", false, "move a tag that names another pack")
	fs.BoolVar(&c.delete, "d", false, "delete the tags named")
}

// Check takes nothing (list), NAME PACK (set), or -d NAME....
func (c *config) Check(args []string) error {
	switch {
	case c.delete && len(args) == 0:
		return cli.Usagef("-d takes the names of the tags to delete")
	case !c.delete && len(args) == 1:
		return cli.Usagef("to set a tag, give its name and a pack: ctx tag NAME PACK")
	case !c.delete && len(args) > 2:
		return cli.Usagef("ctx tag takes a name and a pack (or -d and names)")
	}
	names := args
	if !c.delete {
		names = args[:min(len(args), 1)]
	}
	for _, n := range names {
		if err := store.CheckTagName(n); err != nil {
			return cli.Usagef("%v", err)
		}
	}
	return nil
}

// Main runs ctx tag with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx tag.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	var tags []gc.Tag
	switch {
	case cfg.delete:
		if tags, err = gc.DeleteTags(st, args); err != nil {
			return (&cli.Error{Code: cli.ExitTrouble, Err: err}).WithHint("'ctx tag' lists the tags; nothing was deleted")
		}
	case len(args) == 2:
		h, err := st.ResolvePack(args[1])
		if err != nil {
			return cli.NameError(err)
		}
		t, err := gc.SetTag(st, args[0], h, cfg.force)
		if err != nil {
			return cli.Wrap(cli.ExitTrouble, err)
		}
		if t.Restored {
			msg.Notef("%s was removed by 'ctx rm': it is back in the index", h)
		}
		tags = []gc.Tag{t}
	default:
		var bad []error
		if tags, bad, err = gc.Tags(st); err != nil {
			return cli.Wrap(cli.ExitTrouble, err)
		}
		for _, e := range bad {
			msg.Warnf("%v (run 'ctx fsck')", e)
		}
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, tags)
	}
	return human(stdout, tags, cfg.delete)
}

// human prints one line per tag: the name and the short hash.
func human(stdout io.Writer, tags []gc.Tag, deleted bool) error {
	w := bufio.NewWriter(stdout)
	width := 0
	for _, t := range tags {
		width = max(width, len(t.Name))
	}
	for _, t := range tags {
		line := fmt.Sprintf("%-*s %s", width, t.Name, t.Pack.Short())
		switch {
		case deleted:
			line = fmt.Sprintf("deleted tag %s (was %s)", t.Name, t.Pack.Short())
		case t.Previous != nil:
			line += fmt.Sprintf(" (was %s)", t.Previous.Short())
		}
		fmt.Fprintln(w, line)
	}
	return w.Flush()
}
