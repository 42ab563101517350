// Package pullcmd is ctx pull: packs from an OCI registry into this store.
package pullcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/oci"
	"github.com/contextsubstrate/ctx/lib/oci/ociattest"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-pull"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx pull [flags] REF...",
		Summary:  "Fetch packs from an OCI registry into this store.",
		Exits:    []string{"0", "2"},
		Help: `REF is host[:port]/repository:tag or host[:port]/repository@sha256:HEX,
as 'ctx push' printed it. The OCI manifest must be a ctx pack's (its
artifactType says so); its size, and the sizes its layers claim, are
checked before anything is fetched. Objects this store has are not
downloaded; every other one is verified against its digest as it streams.
A pull is all or nothing: the objects become visible only when every one
is good, the pack manifest last, so a failed or killed pull leaves no
pack without its objects. The pack hash is the one that was pushed.

The pack's attestations, OCI referrers of its artifact, come with it
(not with --no-attestations): each referrer and envelope is checked
against its digest and stored as an attestation of the pack; one that
fails is refused, naming it, exit 2, while the pack and the good ones stay
stored. Signatures are checked by ctx verify --key.

Prints each pack as ctx://HEX; --json prints a record per reference:
{"ref", "digest", "pack", "blobs_downloaded", "blobs_skipped",
"bytes_downloaded", "indexed", "attestations": [{"attestation", "digest",
"downloaded"}]}. --tag NAME (once per REF) also writes the local tag NAME;
refs/latest is not moved. Logins are read as by ctx push.`,
		Examples: `ctx pull ghcr.io/acme/agent-runs:baseline
ctx pull --plain-http localhost:5000/team/runs:v1 --tag v1
ctx pull localhost:5000/team/runs@sha256:4f0c... --plain-http --json | jq .pack`,
		Args: cli.MinArgs(1, "ctx pull takes one or more references host[:port]/repository:tag"),
	}
}

type config struct {
	store string
	tags  cli.Strings
	out   cli.Output
	reg   oci.Options
	refs  []oci.Ref
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.Var(&c.tags, "tag", "also tag the pack `NAME` in this store (once per REF)")
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print a JSON record per reference", cli.Human: "print ctx://<hex> per pack"})
	c.reg.RegisterFlags(fs)
}

// Check reads the login, the references and the tags before the store is
// opened: a usage error comes first.
func (c *config) Check(args []string) error {
	if len(c.tags) > 0 && len(c.tags) != len(args) {
		return cli.Usagef("%d --tag for %d references: give one --tag per reference, in order", len(c.tags), len(args))
	}
	for _, t := range c.tags {
		if err := store.CheckTagName(t); err != nil {
			return cli.Usagef("--tag %s: %v", t, err)
		}
	}
	if err := c.reg.Login(); err != nil {
		return cli.Usagef("%v", err)
	}
	for _, a := range args {
		ref, err := oci.ParseRef(a)
		if err != nil {
			return cli.Usagef("%v", err)
		}
		c.refs = append(c.refs, ref)
	}
	return nil
}

// Main runs ctx pull with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx pull.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	_, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	cfg.reg.UserAgent = "ctx/" + cli.Version()
	cfg.reg.Attestations = ociattest.Attestations()
	cfg.reg.Show(prog.Show, "pulling", "received")
	msg := cli.Messenger{Name: name, W: stderr}
	enc := cli.NewNDJSON(stdout)
	for i, ref := range cfg.refs {
		res, perr := oci.Pull(ctx, st, ref, cfg.reg, cli.OnSignal)
		prog.Clear()
		if res == nil {
			return cli.Wrap(cli.ExitTrouble, perr)
		}
		// The pack is stored: it is tagged and printed even when some of
		// its attestations were refused (perr), which is told last.
		if len(cfg.tags) > 0 {
			if err := st.WriteRef(cfg.tags[i], res.Pack); err != nil {
				return cli.Errorf(cli.ExitTrouble, "pack %s is stored, but the tag %s could not be written: %v", res.Pack, cfg.tags[i], err)
			}
		}
		if !cfg.out.Human() {
			err = enc.Encode(res)
		} else {
			_, err = fmt.Fprintln(stdout, res.Pack.URI())
			msg.Notef("%s", res.Human())
		}
		if err != nil || perr != nil {
			return cli.Wrap(cli.ExitTrouble, errors.Join(err, perr))
		}
	}
	return nil
}
