// Package catcmd is ctx cat: the raw bytes of objects and of a pack's parts.
package catcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/share"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-cat"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx cat [flags] NAME...",
		Summary:  "Print the raw bytes of objects, or of parts of a pack.",
		Exits:    []string{"0", "2"},
		Args:     cli.MinArgs(1, "ctx cat takes an object name or PACK:PART"),
		Help: fmt.Sprintf(`NAME is an object (ctx://HEX, sha256:HEX, HEX, a unique prefix of 4+ hex
digits, latest, or a tag; a pack's name gives its manifest), or a part of
a pack as PACK:PART, where PART is one of:

  inputs/NAME     an input file, by its name in the pack
  outputs/NAME    an output file
  steps/N         the output of step N
  prompts/N       prompt N
  system_prompt   the system prompt

Several NAMEs are printed one after the other, like cat(1); every NAME is
resolved before anything is printed. Every object is checked against its
hash: one up to %d MiB before a byte of it is printed, a larger one as it
streams, in which case a damaged object ends the output with an error
(exit 2) after the bytes that came before the damage was found.`, share.VerifyFirst>>20),
		Examples: `ctx cat latest:outputs/report.md
ctx cat 3f2b71b8:steps/4 | less
ctx cat latest:inputs/logo.png > logo.png
ctx cat latest | jq .steps`,
	}
}

type config struct {
	store string
}

// RegisterFlags defines the flags of ctx cat on fs.
func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
}

// Main runs ctx cat with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx cat.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	objects := make([]store.Hash, 0, len(args))
	for _, arg := range args {
		a, err := share.ParseAddress(arg)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		h, err := resolve(st, a)
		if err != nil {
			return err
		}
		objects = append(objects, h)
	}
	for _, h := range objects {
		if err := share.Cat(st, h, stdout); err != nil {
			return cli.Wrap(cli.ExitTrouble, err)
		}
	}
	return nil
}

// resolve finds the object an address names.
func resolve(st *store.Store, a share.Address) (store.Hash, error) {
	if a.Part == "" {
		h, err := st.ResolveObject(a.Name)
		if err != nil {
			return h, cli.NameError(err)
		}
		return h, nil
	}
	h, err := st.ResolvePack(a.Name)
	if err != nil {
		return h, cli.NameError(err)
	}
	m, err := pack.Load(st, h)
	if err != nil {
		if errors.Is(err, pack.ErrNotPack) {
			return h, cli.Errorf(cli.ExitTrouble, "%v", err).WithHint("PACK:PART needs a pack; 'ctx cat %s' prints the object itself", a.Name)
		}
		return h, cli.NameError(err)
	}
	obj, err := share.PartObject(m, a.Part)
	if err != nil {
		return obj, cli.Errorf(cli.ExitTrouble, "%v", err).WithHint("'ctx show %s' lists the pack's parts", h.Hex()[:12])
	}
	return obj, nil
}
