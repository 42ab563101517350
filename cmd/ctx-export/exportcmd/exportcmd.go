// Package exportcmd is ctx export: the closures of packs as a tar stream.
package exportcmd

import (
	"context"
	"flag"
	"io"

	"github.com/contextsubstrate/ctx/lib/bundle"
	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-export"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx export [flags] PACK...\nctx export [flags] --all",
		Summary:  "Write packs, with every object they name, as a tar stream for 'ctx import'.",
		Exits:    []string{"0", "2"},
		Help: `PACK is ctx://HEX, sha256:HEX, HEX, a unique prefix of 4+ hex digits,
latest, or a tag. The stream is an uncompressed tar of the store's own
files: objects/ab/cdef... for each manifest and every object it names, then
packs/<hex>, one index entry per pack. Every object is checked against its
hash as it is written; a missing object stops the export before anything is
written, a damaged one cuts the stream short with an error naming it. The
same packs always give the same bytes, from any store.

Refs and tags do not travel: the other store's latest and tags are its own.
A pack's parent is not part of its closure; export it too if wanted.
--all exports every pack of the store: those of its index, and any
manifest a crash left without an index entry (each named on stderr).
The stream is written to standard output, never to a terminal; -o FILE
writes it to FILE (mode 0666 less the umask), which appears only when the
export is complete; interrupted, it leaves no temporary file.`,
		Examples: `ctx export latest > run.tar
ctx export 3f2b71b8 | ctx import --store ../other/.ctx
ctx export --all -o backup.tar
ssh build-host 'cd repo && ctx export baseline' | ctx import`,
	}
}

type config struct {
	store  string
	output string
	all    bool
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.StringVar(&c.output, "o", "", "write the stream to `FILE` instead of standard output")
	fs.BoolVar(&c.all, "all", false, "export every pack of the store, indexed or not")
}

// Check takes pack names or --all.
func (c *config) Check(args []string) error {
	switch {
	case c.all && len(args) > 0:
		return cli.Usagef("give pack names or --all, not both")
	case !c.all && len(args) == 0:
		return cli.Usagef("name the packs to export, or give --all")
	}
	return nil
}

// Main runs ctx export with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx export.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	toFile := cfg.output != "" && cfg.output != "-"
	if !toFile && cli.IsTerminal(stdout) {
		return cli.Errorf(cli.ExitTrouble, "refusing to write a tar stream to a terminal").
			WithHint("redirect it (ctx export PACK > packs.tar), pipe it (ctx export PACK | ctx import), or use -o FILE")
	}
	st, err := cli.OpenStore(cfg.store)
	if err != nil {
		return err
	}
	packs, err := resolve(st, cfg.all, args, cli.Messenger{Name: name, W: stderr})
	if err != nil {
		return err
	}
	if len(packs) == 0 {
		cli.Messenger{Name: name, W: stderr}.Notef("the store has no packs: the stream is empty")
	}

	if !toFile {
		return cli.Wrap(cli.ExitTrouble, bundle.ExportTo(stdout, st, packs))
	}
	return cli.Wrap(cli.ExitTrouble, bundle.ExportFile(cfg.output, st, packs, cli.OnSignal))
}

// resolve turns the arguments into pack hashes, reporting every name that
// does not resolve.
func resolve(st *store.Store, all bool, args []string, msg cli.Messenger) ([]store.Hash, error) {
	if all {
		packs, unindexed, err := bundle.AllPacks(st)
		if err != nil {
			return nil, cli.Wrap(cli.ExitTrouble, err)
		}
		for _, h := range unindexed {
			msg.Notef("pack %s has no index entry (a write was cut short); it is exported all the same ('ctx fsck --repair-index' indexes it here)", h)
		}
		return packs, nil
	}
	packs := make([]store.Hash, 0, len(args))
	for _, a := range args {
		h, err := st.ResolvePack(a)
		if err != nil {
			return nil, cli.NameError(err)
		}
		packs = append(packs, h)
	}
	return packs, nil
}
