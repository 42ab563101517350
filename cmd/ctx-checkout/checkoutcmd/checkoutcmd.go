// Package checkoutcmd is ctx checkout: a pack's files written into a
// directory.
package checkoutcmd

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/share"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-checkout"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx checkout [flags] PACK DIR",
		Summary:  "Write a pack's input files (or its outputs) into a directory.",
		Exits:    []string{"0", "2"},
		Args:     cli.ExactArgs(2, "ctx checkout takes a pack name and a directory"),
		Help: `Writes each input of PACK into DIR under its name in the pack, creating DIR
and subdirectories as needed. --outputs writes the outputs instead, each
with its provenance sidecar <file>.ctx.json, so 'ctx verify' can trace them.

Every file is checked before any is written. A name that is absolute, holds
"..", or enters a .ctx directory is refused; so is a path through a symlink
or through a file where a directory is needed. A file that already holds the
pack's bytes is left alone; one that differs is not replaced without
--force. When anything is refused, nothing is written (exit 2). Files are
verified against their hashes as they are copied out of the store and
renamed into place only when all of them are ready; no file appears under
its name before its bytes are complete. Everything is written through
directory handles, never through a symlink: a directory of DIR swapped for
one while ctx checkout runs stops it (exit 2) with nothing written outside.
Interrupted (SIGINT, SIGTERM), it removes what it made; temporary files a
killed checkout left (.tmp-ctx-*) are removed by the next one.

Nothing is printed on success; --json prints what was done:
{"written": [...], "unchanged": [...], "sidecars": [...]}.`,
		Examples: `ctx checkout latest work/
ctx checkout --outputs 3f2b71b8 review/ && ctx verify review/report.md
ctx checkout --force baseline .`,
	}
}

type config struct {
	store   string
	outputs bool
	force   bool
	out     cli.Output
}

// RegisterFlags defines the flags of ctx checkout on fs.
func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.BoolVar(&c.outputs, "outputs", false, "write the outputs, with provenance sidecars, instead of the inputs")
	fs.BoolVar(&c.force, "force", false, "replace files whose content differs from the pack's")
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print {written, unchanged, sidecars}", cli.Human: "print nothing on success, as cp does"})
}

// Main runs ctx checkout with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx checkout.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, m, err := cli.ParsePack(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	res, err := share.Checkout(st, m, args[1], share.CheckoutOptions{Outputs: cfg.outputs, Force: cfg.force, Interrupt: cli.OnSignal})
	if err != nil {
		h, _ := store.ParseRef(m.Hash)
		return checkoutError(err, h)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, res)
	}
	return nil
}

func checkoutError(err error, h store.Hash) error {
	var conflict *share.ConflictError
	var unsafe *share.UnsafeError
	var fold *share.FoldError
	var way *store.WayError
	switch {
	case errors.As(err, &way):
		return cli.Errorf(cli.ExitTrouble, "pack %s: %v", h, err).WithHint("nothing was written; check the directory and run ctx checkout again")
	case errors.As(err, &fold):
		return cli.Errorf(cli.ExitTrouble, "pack %s: %v", h, err).WithHint("nothing was written; check the pack out where both names are kept apart, or read each with 'ctx cat %s:inputs/NAME'", h.Short())
	case errors.As(err, &conflict):
		e := cli.Errorf(cli.ExitTrouble, "%v", err).WithHint("nothing was written")
		if conflict.Forceable() {
			e.WithHint("use --force to replace them with the pack's files")
		}
		return e
	case errors.As(err, &unsafe):
		return cli.Errorf(cli.ExitTrouble, "pack %s: %v", h, err).WithHint("nothing was written")
	case errors.Is(err, store.ErrCorrupt) || errors.Is(err, store.ErrNotFound):
		return cli.Errorf(cli.ExitTrouble, "%v", err).WithHint("nothing was written; run 'ctx fsck' to check the store")
	}
	return cli.Wrap(cli.ExitTrouble, err)
}
