// Package importcmd is ctx import: the packs of a tar stream from ctx export
// into this store.
package importcmd

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/bundle"
	"github.com/contextsubstrate/ctx/lib/cli"
)

const name = "ctx-import"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx import [flags] [FILE|-]",
		Summary:  "Store the packs of a tar stream written by 'ctx export'.",
		Exits:    []string{"0", "2"},
		Args:     cli.MaxArgs(1, "ctx import takes at most one file, or - for standard input"),
		Help: `Reads the stream from FILE, or standard input when FILE is - or absent.
Only regular files named objects/ab/<62 hex> and packs/<64 hex> are
accepted (and the directories above them); any other entry (an absolute
name, a '..' element, a link, a device, a differing duplicate) is refused
with its name. Every object is checked against its hash as it is stored,
and every pack the stream indexes must come with its manifest and all the
objects it names, or have them in this store already.

The import is all or nothing: the objects become visible only once the
whole stream has been read and checked, and are made durable before any
pack is indexed. Importing the same stream again changes nothing, and says
so. Refs and tags are never touched.

Prints each pack of the stream as ctx://<hex>, one per line; --json prints
{"packs", "objects_written", "objects_reused", "bytes_written", "indexed"}.`,
		Examples: `ctx import < run.tar
ctx export latest | ctx import --store ../other/.ctx
ctx import backup.tar --json | jq .objects_written
ssh build-host 'cd repo && ctx export baseline' | ctx import`,
	}
}

type config struct {
	store string
	out   cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print {packs, objects_written, objects_reused, bytes_written, indexed}", cli.Human: "print ctx://<hex> per pack"})
}

// Main runs ctx import with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx import.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	in, err := cli.OpenInput(cli.First(args), "", stdin)
	if err != nil {
		return err
	}
	defer in.Close()
	if w, ok := stdin.(io.Writer); ok && in.Stdin && cli.IsTerminal(w) {
		return cli.Errorf(cli.ExitTrouble, "standard input is a terminal, not a tar stream").
			WithHint("pipe a stream into it (ctx export PACK | ctx import) or name a file (ctx import packs.tar)")
	}
	st, err := cli.OpenStore(cfg.store)
	if err != nil {
		return err
	}
	res, err := bundle.ImportFrom(in, in.Name, st, cli.OnSignal)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, res.Report())
	}
	for _, h := range res.Packs {
		if _, err := fmt.Fprintln(stdout, h.URI()); err != nil {
			return err
		}
	}
	cli.Messenger{Name: name, W: stderr}.Notef("%s", res.Summary(in.Name))
	return nil
}
