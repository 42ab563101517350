// Package pushcmd is ctx push: packs to an OCI registry.
package pushcmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/oci"
	"github.com/contextsubstrate/ctx/lib/oci/ociattest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/secrets"
	"github.com/contextsubstrate/ctx/lib/store"
)

const name = "ctx-push"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx push [flags] PACK... REF",
		Summary:  "Send packs to an OCI registry (GHCR, ECR, Harbor, the CNCF distribution registry...).",
		Exits:    []string{"0", "1 a pack holds what looks like a secret: nothing was pushed", "2"},
		Help: `REF is host[:port]/repository[:tag]. Several packs go to REF's
repository, each with its --tag (one per pack, in order) or by digest.
A pack is an OCI artifact: its manifest is the config blob, each object it
names a layer under its own sha256 name. Blobs the registry has are not
sent again; the OCI manifest goes last.

First the pack's prompts, parameters, metadata and text objects are
scanned for secrets (cloud keys, GitHub/GitLab tokens, API keys, private
keys, bearer tokens): a finding stops the push, exit 1, naming its step and
field, unless --allow-secrets is given. Logins come from the Docker config
and its credential helpers (docker login, oras login), or from
--registry-username and CTX_REGISTRY_PASSWORD.

Each attestation of a pack (ctx attest, ctx pack --sign) goes with it as
an OCI 1.1 referrer of its artifact, one the registry lists already is not
sent again; --no-attestations leaves them behind. Prints a JSON record per
pack: {"ref", "digest", "pack", "blobs_uploaded", "blobs_skipped",
"bytes_uploaded", "attestations": [{"attestation", "digest",
"uploaded"}]}; --human a line.`,
		Examples: `ctx push latest ghcr.io/acme/agent-runs:baseline
ctx push --plain-http latest localhost:5000/team/runs:v1
ctx push 3f2b71b8 9c0d1e2f localhost:5000/team/runs --tag a --tag b --plain-http
CTX_REGISTRY_USERNAME=ci CTX_REGISTRY_PASSWORD=$TOKEN ctx push latest registry.example.com/runs:nightly`,
		Args: cli.MinArgs(2, "ctx push takes one or more packs and a reference host[:port]/repository[:tag]"),
	}
}

type config struct {
	store        string
	tags         cli.Strings
	out          cli.Output
	allowSecrets bool
	reg          oci.Options
	targets      []oci.Ref // where each pack goes, from the reference and --tag
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.Var(&c.tags, "tag", "tag the pack `NAME` in the repository (once per pack)")
	c.out.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print a JSON record per pack", cli.Human: "print a sentence per pack"})
	fs.BoolVar(&c.allowSecrets, "allow-secrets", false, "push even when the secret scan finds something")
	c.reg.RegisterFlags(fs)
}

// Check reads the login, the reference and the tags before the store is
// opened: a usage error comes first.
func (c *config) Check(args []string) error {
	if err := c.reg.Login(); err != nil {
		return cli.Usagef("%v", err)
	}
	ref, err := oci.ParseRef(args[len(args)-1])
	if err == nil {
		c.targets, err = oci.Targets(ref, len(args)-1, c.tags)
	}
	if err != nil {
		return cli.Usagef("%v", err)
	}
	return nil
}

// Main runs ctx push with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx push.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	var packs []store.Hash
	for _, a := range args[:len(args)-1] {
		m, err := pack.Resolve(st, a)
		if err != nil {
			return cli.NameError(err)
		}
		h, _ := store.ParseRef(m.Hash)
		packs = append(packs, h)
		if cfg.allowSecrets {
			continue
		}
		var found *secrets.FoundError
		if err := secrets.CheckPack(st, m); errors.As(err, &found) {
			return cli.Errorf(cli.ExitFinding, "pack %s: %v\nnothing was pushed", h, err).
				WithHint("remove them from the run and pack it again, or push anyway with --allow-secrets")
		} else if err != nil {
			return cli.NameError(fmt.Errorf("pack %s: %w", h, err))
		}
	}

	prog := cli.NewProgress(stderr)
	cfg.reg.UserAgent = "ctx/" + cli.Version()
	cfg.reg.Attestations = ociattest.Attestations()
	cfg.reg.Show(prog.Show, "pushing", "sent")
	enc := cli.NewNDJSON(stdout)
	for i, h := range packs {
		res, err := oci.Push(ctx, st, h, cfg.targets[i], cfg.reg)
		prog.Clear()
		if err != nil {
			return cli.Wrap(cli.ExitTrouble, fmt.Errorf("pack %s: %w", h, err))
		}
		if cfg.out.Human() {
			_, err = fmt.Fprintln(stdout, res.Human())
		} else {
			err = enc.Encode(res)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
