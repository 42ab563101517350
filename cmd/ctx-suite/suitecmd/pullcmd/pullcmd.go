// Package pullcmd is ctx suite pull: a suite and its packs from an OCI
// registry into this store.
package pullcmd

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/oci"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/suite"
)

const name = "ctx-suite"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx suite pull [flags] REF",
		Summary:  "Fetch a suite and all its packs from an OCI registry into this store.",
		Args:     cli.ExactArgs(1, "ctx suite pull takes one reference host[:port]/repository:tag"),
		Help: `REF is host[:port]/repository:tag or host[:port]/repository@sha256:HEX,
as 'ctx suite push' printed it. The index, the suite's manifest and the
suite object are checked first (their sizes bounded, the object against
its hash), the index must list exactly the packs the suite names, and
each pack is checked as 'ctx pull' checks one. Objects this store has
are not downloaded; every other one is verified against its digest as it
streams. All or nothing: the objects become visible only when every one
is good, the packs' manifests and the suite object last; then the packs
are indexed and the suite named.

The suite is named --name NAME, else the name it was pushed under. A name
that names another suite already is refused before any pack is fetched,
unless -f; the same suite pulled again changes nothing. refs/latest is
not moved. A reference that names a pack, not a suite, is refused (exit 2,
saying so: 'ctx pull' fetches a pack).

Prints the suite's ctx:// name; --json {"name", "suite", "previous",
"ref", "digest", "packs", "packs_indexed", "blobs_downloaded",
"blobs_skipped", "bytes_downloaded"}. Logins are read as by 'ctx pull'.`,
		Examples: `ctx suite pull ghcr.io/acme/evals:baseline
ctx suite pull --plain-http localhost:5000/team/evals:nightly --name baseline
ctx suite pull -f ghcr.io/acme/evals:baseline --json | jq .packs`,
		Exits: []string{"0 the suite and its packs are in the store", "2"},
	}
}

type config struct {
	store string
	name  string
	force bool
	out   cli.Output
	reg   oci.Options
	ref   oci.Ref
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.StringVar(&c.name, "name", "", "record the suite as `NAME` (default: the name it was pushed under)")
	fs.BoolVar(&c.force, "f", false, "replace the suite the name names already")
	c.out.Register(fs, cli.Human, cli.Formats{cli.JSON: "print what was pulled as JSON", cli.Human: "print ctx://<hex> of the suite"})
	c.reg.RegisterAccessFlags(fs)
}

// Check reads the name, the login and the reference before the store is
// opened: a usage error comes first.
func (c *config) Check(args []string) error {
	if c.name != "" {
		if err := store.CheckSuiteName(c.name); err != nil {
			return cli.Usagef("--name: %v", err)
		}
	}
	if err := c.reg.Login(); err != nil {
		return cli.Usagef("%v", err)
	}
	ref, err := oci.ParseRef(args[0])
	if err != nil {
		return cli.Usagef("%v", err)
	}
	c.ref = ref
	return nil
}

// Run is ctx suite pull, with the arguments after "pull".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	_, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	cfg.reg.UserAgent = "ctx/" + cli.Version()
	cfg.reg.Show(prog.Show, "pulling", "received")
	rep, err := suite.Pull(ctx, st, cfg.ref, suite.PullOptions{Options: cfg.reg, Name: cfg.name, Force: cfg.force, Interrupt: cli.OnSignal})
	prog.Clear()
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	msg := cli.Messenger{Name: name, W: stderr}
	if rep.Previous != "" {
		msg.Notef("suite %s replaced %s", rep.Name, rep.Previous)
	}
	if !cfg.out.Human() {
		return cli.WriteJSON(stdout, rep)
	}
	msg.Notef("suite %s: %s", rep.Name, rep.Human())
	_, err = fmt.Fprintln(stdout, rep.Suite)
	return err
}
