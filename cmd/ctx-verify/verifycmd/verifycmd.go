// Package verifycmd is ctx verify: is this file what that run produced, and
// is the run's pack intact?
package verifycmd

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"io"

	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/verify"
	"github.com/contextsubstrate/ctx/lib/verify/signed"
)

const name = "ctx-verify"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx verify [flags] ARTIFACT|PACK...\nctx verify [flags] -r [DIR...]",
		Summary:  "Check artifacts against the packs that produced them.",
		Exits:    []string{"0 everything verified (with --key: signed)", "1 anything not verified, bad_signature and unsigned included", "2 the check itself could not be done: no store, a name that is neither a file nor a pack, a key that cannot be read, an I/O error"},
		Help: `For each ARTIFACT (a file), the sidecar ARTIFACT.ctx.json beside it names
the pack and the output it came from. ctx verify checks that the sidecar is
there (else no_provenance), that the pack is in the store (else broken),
that every object of the pack is present and intact (else corrupt), and
that the file's SHA-256 equals the pack's recorded output and the sidecar's
content_ref (else modified, with the expected and actual hashes). A
sidecar naming an output the pack does not have, or a content_ref the pack
did not record, is broken.

An argument that is not a file is a pack name (ctx://HEX, sha256:HEX, HEX,
a unique prefix, latest or a tag): the pack's manifest and every object it
references are rehashed. With -r, each DIR (default: the current
directory) is walked for *.ctx.json sidecars, in sorted order, skipping
.ctx and .git and never entering a symlinked directory.

The output is a JSON array with one report per artifact or pack:
{"artifact", "status", "pack", "output", "created", "tools", "inputs",
"confidence", "notes", "expected", "actual", "reason", "problems"}, every
key always present, null where not known. --human prints a short block per
artifact, ending with the commands to inspect and re-run the pack.

With --key KEY.pub, a verified artifact or pack is also checked for a
signature: signed when an attestation of its pack (see 'ctx attest') signed
by that key names its SHA-256 as a subject, bad_signature when the pack has
attestations but none does (another key, an altered envelope, another
subject), unsigned when the pack has no attestation at all; "key_id" and
"attestation" say which. Only signed passes under --key. --require-signature
is an older spelling of what --key now does, kept so scripts keep working.`,
		Examples: `ctx verify report.md
ctx verify --human report.md
ctx verify -r dist/            # one line of CI: every sidecar under dist/
ctx verify -r . | jq -r '.[] | select(.status != "verified") | "\(.status)\t\(.artifact)"'
ctx verify latest              # rehash every object of the last pack
ctx verify --key signing.key.pub -r dist/   # and signed by that key`,
	}
}

type config struct {
	store      string
	out        cli.Output
	recursive  cli.FirstBool
	key        string
	requireSig bool
}

func (c *config) RegisterFlags(flags *flag.FlagSet) {
	cli.StoreFlag(flags, &c.store)
	c.out.Register(flags, cli.JSON, cli.Formats{cli.JSON: "print a JSON array, one report per artifact or pack", cli.Human: "print a short text block per artifact"})
	flags.Var(&c.recursive, "r", "verify every artifact that has a sidecar under each DIR (same as --recursive)")
	flags.Var(&c.recursive, "recursive", "verify every artifact that has a sidecar under each DIR")
	flags.StringVar(&c.key, "key", "", "also check signatures by the public key in `FILE`")
	flags.BoolVar(&c.requireSig, "require-signature", false, "with --key: what --key does anyway (unsigned fails); kept for scripts")
}

// Check takes no argument only with -r, which then walks ".", and
// --require-signature only with a --key to check signatures by.
func (c *config) Check(args []string) error {
	if len(args) == 0 && !c.recursive.Value {
		return cli.Usagef("ctx verify takes one or more artifacts or packs, or -r and directories")
	}
	if c.requireSig && c.key == "" {
		return cli.Usagef("--require-signature needs --key KEY.pub")
	}
	return nil
}

// Main runs ctx verify with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx verify.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, st, err := cli.ParseStore(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	if len(args) == 0 {
		args = []string{"."}
	}
	// Every argument is resolved before anything is checked, so a typo
	// fails at once with nothing on stdout.
	targets, err := verify.Classify(st, args, cfg.recursive.Value)
	var ae *verify.ArgError
	switch {
	case errors.As(err, &ae) && ae.Dir:
		return cli.Usagef("%v", err)
	case err != nil:
		return cli.Wrap(cli.ExitTrouble, err)
	}
	v := verify.New(st)
	if cfg.key != "" {
		if err := signed.WithKeyFile(v, cfg.key); err != nil {
			return cli.Errorf(cli.ExitTrouble, "--key: %v", err)
		}
	}

	bw := bufio.NewWriter(stdout)
	out := verify.NewPrinter(bw, cfg.out.Human(), cli.IsTerminal(stdout), cli.Painter(stdout))
	msg := cli.Messenger{Name: name, W: stderr}
	allPass := true
	err = v.Each(targets, func(r verify.Report) error {
		allPass = allPass && v.Pass(r)
		return out.Add(r)
	}, func(dir string) { msg.Warnf("no sidecars found under %s; nothing to verify there", dir) })
	if err == nil {
		err = out.Close()
	}
	// What was printed stays printed; on trouble the JSON array is left
	// open, so no reader can take a partial report for a whole one.
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	if !allPass {
		return cli.Exit(cli.ExitFinding)
	}
	return nil
}
