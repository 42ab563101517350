// Package pushcmd is ctx suite push: a suite and its packs to an OCI
// registry, as one artifact.
package pushcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/oci"
	"github.com/contextsubstrate/ctx/lib/suite"
)

const name = "ctx-suite"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx suite push [flags] SUITE REF",
		Summary:  "Send a suite and all its packs to an OCI registry as one artifact.",
		Args:     cli.ExactArgs(2, "ctx suite push takes a suite and a reference host[:port]/repository[:tag]"),
		Help: `SUITE is a suite's name or its ctx:// name; REF is host[:port]/repository[:tag].
The suite goes as one OCI image index (artifactType
application/vnd.contextsubstrate.ctx.suite.v1): its first manifest the
suite's own (its config the suite object), then each pack's artifact
exactly as 'ctx push' makes it. So blobs the registry has are not sent
again, a pack whose artifact is there (pushed alone, or in another suite)
is not even looked into, and the index goes last, tagged.

First every pack is scanned for secrets as 'ctx push' scans one: a
finding stops the push, exit 1, naming the pack and task, unless
--allow-secrets. The packs' attestations stay behind ('ctx push' a pack
to send its own). Logins come as for 'ctx push'.

Prints {"ref", "digest", "name", "suite", "packs", "packs_skipped",
"blobs_uploaded", "blobs_skipped", "bytes_uploaded"}; --human a line.
'ctx suite pull REF' brings it into any store; 'ctx suite diff REF NAME'
compares against it.`,
		Examples: `ctx suite push baseline ghcr.io/acme/evals:baseline
ctx suite push --plain-http nightly localhost:5000/team/evals:nightly
CTX_REGISTRY_USERNAME=ci CTX_REGISTRY_PASSWORD=$TOKEN ctx suite push baseline registry.example.com/evals:v3`,
		Exits: []string{"0 the suite and its packs are in the registry",
			"1 a pack holds what looks like a secret: nothing was pushed", "2"},
	}
}

type config struct {
	store        string
	out          cli.Output
	allowSecrets bool
	reg          oci.Options
	ref          oci.Ref
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print what was pushed as JSON", cli.Human: "print a sentence"})
	fs.BoolVar(&c.allowSecrets, "allow-secrets", false, "push even when the secret scan finds something")
	c.reg.RegisterAccessFlags(fs)
}

// Check reads the login and the reference before the store is opened.
func (c *config) Check(args []string) error {
	if err := c.reg.Login(); err != nil {
		return cli.Usagef("%v", err)
	}
	ref, err := oci.ParseRef(args[1])
	if err == nil && ref.Digest != "" {
		err = fmt.Errorf("%s names a digest; push to a repository (host/repo) or a tag (host/repo:tag)", ref)
	}
	if err != nil {
		return cli.Usagef("%v", err)
	}
	c.ref = ref
	return nil
}

// Run is ctx suite push, with the arguments after "push".
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	prog := cli.NewProgress(stderr)
	cfg.reg.UserAgent = "ctx/" + cli.Version()
	cfg.reg.Show(prog.Show, "pushing", "sent")
	res, err := suite.Push(ctx, st, args[0], cfg.ref, suite.PushOptions{Options: cfg.reg, AllowSecrets: cfg.allowSecrets})
	prog.Clear()
	if found := (*suite.SecretsError)(nil); errors.As(err, &found) {
		return cli.Wrap(cli.ExitFinding, err)
	}
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if cfg.out.Human() {
		_, err = fmt.Fprintln(stdout, res.Human())
		return err
	}
	return cli.WriteJSON(stdout, res)
}
