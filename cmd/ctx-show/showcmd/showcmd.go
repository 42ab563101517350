// Package showcmd is ctx show: a pack at a glance, or its manifest as JSON.
package showcmd

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/htmlview"
	"github.com/contextsubstrate/ctx/lib/show"
	"github.com/contextsubstrate/ctx/lib/verify"
)

const name = "ctx-show"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx show [flags] PACK",
		Summary:  "Show a pack: model, prompts, inputs, steps, outputs and environment.",
		Exits:    []string{"0", "2"},
		Args:     cli.ExactArgs(1, "ctx show takes one pack name"),
		Help: `PACK is ctx://HEX, sha256:HEX, HEX, a unique prefix of 4+ hex digits,
latest, or a tag. The human summary reads the manifest and the prompt
blobs, each verified against its hash; --json prints the manifest itself
with its "hash" field, ready for jq; --html writes one self-contained
HTML page (-o FILE, or standard output): the timeline of the steps with
their parameters and outputs, and every object checked as ctx verify
does.`,
		Examples: `ctx show latest
ctx show 3f2b71b8
ctx show --json ctx://3f2b71b8... | jq '.steps[] | {index, tool}'
ctx show --html -o run.html latest`,
	}
}

type config struct {
	store string
	out   cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.Human, cli.Formats{
		cli.JSON:  "print the manifest as JSON, with its hash",
		cli.Human: "print a summary, one line per item",
		cli.HTML:  "write the pack as one self-contained HTML page: a timeline of its steps",
	})
}

// Main runs ctx show with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx show.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	h, err := st.ResolvePack(args[0])
	if err != nil {
		return cli.NameError(err)
	}
	if cfg.out.Format() == cli.JSON && !cli.IsTerminal(stdout) {
		// Checked, then streamed: a pack of any length in little memory.
		return packError(show.WriteJSON(stdout, st, h))
	}
	if cfg.out.Format() == cli.Human {
		p, err := show.Open(st, h)
		if err != nil {
			return packError(err)
		}
		w := bufio.NewWriter(stdout)
		err = show.Summary(w, st, p, cli.Painter(stdout))
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		return err
	}
	raw, err := st.ReadAll(h)
	if err != nil {
		return cli.NameError(err)
	}
	m, err := show.Parse(h, raw)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if cfg.out.Format() == cli.JSON {
		return cli.WriteRawJSON(stdout, show.JSON(h, raw))
	}
	if cfg.out.Format() == cli.HTML {
		// The page shows what checking every object found; damage is
		// also an error, as in the summary.
		rep, err := verify.New(st).Pack(h)
		if err != nil {
			return cli.Wrap(cli.ExitTrouble, err)
		}
		page := htmlview.Show{Label: args[0], Manifest: m, Store: st, Verify: &rep}
		if err := cfg.out.Write(stdout, func(w io.Writer) error { return htmlview.WriteShow(w, page) }); err != nil {
			return err
		}
		if rep.Status != verify.Verified {
			return cli.Errorf(cli.ExitTrouble, "%s", rep.Reason).WithHint("run 'ctx fsck' to check the whole store")
		}
		return nil
	}
	return nil
}

// packError is the exit status of what reading a pack found: a damaged or
// missing object as a name error, anything else as trouble.
func packError(err error) error {
	var np *show.NotPackError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &np):
		return cli.Wrap(cli.ExitTrouble, err)
	}
	return cli.NameError(err)
}
