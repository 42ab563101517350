// Package attestcmd is ctx attest: a pack's provenance, signed so that a
// third party can check it with cosign.
package attestcmd

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/attest"
	"github.com/contextsubstrate/ctx/lib/attest/sigbundle"
	"github.com/contextsubstrate/ctx/lib/cli"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/verify/signed"
)

const name = "ctx-attest"

const usageMsg = "ctx attest takes one pack, --key KEY or --attach FILE, and -o and --bundle to different files"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx attest [flags] --key KEY PACK\nctx attest [flags] --attach ENVELOPE PACK",
		Summary:  "Sign a pack's provenance as an in-toto attestation.",
		Exits:    []string{"0", "2"},
		Args:     cli.ExactArgs(1, usageMsg),
		Help: `Makes an in-toto Statement v1 whose subjects are every output of PACK and
its manifest, with a SLSA Provenance v1 predicate (model, parameters,
prompts, inputs), signs it with the private KEY (as 'ctx key' reads it;
an encrypted one takes its passphrase from CTX_KEY_PASSWORD) into a DSSE
envelope, stores that as an object, and adds its ref to the "attestations"
of the pack's sidecars under --root. A pack with a damaged object is not
signed. --attach stores an envelope made elsewhere instead (it must name
the pack's manifest as a subject; ctx verify --key checks its signature).

-o also writes the envelope ('-': instead of the report), --bundle its
Sigstore bundle: with the public key alone, cosign verify-blob-attestation
checks either against an output file (see docs/VERIFY.md).

Prints {"pack", "attestation", "key_id", "subjects", "sidecars"}.`,
		Examples: `ctx attest --key signing.key latest
ctx attest --key signing.key -o report.intoto.json --bundle report.sigstore.json latest
ctx verify --key signing.key.pub report.md`,
	}
}

type config struct {
	store, key, attach, out, bundle, root string
	noSidecars                            bool
	format                                cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	cli.StoreFlag(fs, &c.store)
	fs.StringVar(&c.key, "key", "", "sign with the private key in `FILE`")
	fs.StringVar(&c.attach, "attach", "", "instead of signing, store the DSSE envelope in `FILE` as an attestation of the pack")
	fs.StringVar(&c.out, "o", "", "also write the DSSE envelope to `FILE` ('-': standard output, instead of the report)")
	fs.StringVar(&c.bundle, "bundle", "", "also write the Sigstore bundle to `FILE` ('-' as for -o)")
	fs.StringVar(&c.root, "root", ".", "add the attestation to the pack's sidecars under `DIR`")
	fs.BoolVar(&c.noSidecars, "no-sidecars", false, "leave sidecars as they are")
	c.format.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print the attestation made as JSON", cli.Human: "print a sentence"})
}

// Check takes one of --key and --attach, and -o and --bundle apart.
func (c *config) Check(args []string) error {
	if (c.key == "") == (c.attach == "") || (c.bundle != "" && c.bundle == c.out) {
		return cli.Usagef(usageMsg)
	}
	return nil
}

// Main runs ctx attest with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx attest.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	msg := cli.Messenger{Name: name, W: stderr}
	opts := signed.AttestOptions{Attach: cfg.attach, Root: cfg.root, Warn: func(err error) { msg.Warnf("%v", err) }}
	if cfg.noSidecars {
		opts.Root = ""
	}
	if cfg.key != "" { // read first, so a wrong passphrase is known before the store is opened
		if opts.Key, err = attest.LoadSigner(cfg.key, func(w string) { msg.Warnf("%s", w) }); err != nil {
			return cli.Wrap(cli.ExitTrouble, err)
		}
	}
	st, m, err := cli.OpenPack(cfg.store, args[0])
	if err != nil {
		return err
	}
	res, r, err := signed.AttestPack(ctx, st, m, opts)
	if err != nil {
		return cli.Wrap(cli.ExitTrouble, err)
	}
	files := map[string][]byte{cfg.out: res.Envelope}
	if cfg.bundle != "" {
		if files[cfg.bundle], err = sigbundle.Of(res.Envelope, res.Hint); err != nil {
			return err
		}
	}
	for path, b := range files {
		if path == "-" {
			_, err = stdout.Write(b)
		} else if path != "" {
			err = store.WriteFileAtomic(path, b, 0o644, ".ctx-attest-")
		}
		if err != nil {
			return cli.Errorf(cli.ExitTrouble, "cannot write %s: %v", path, err)
		}
	}
	switch {
	case cfg.out == "-" || cfg.bundle == "-":
		return nil
	case cfg.format.Human():
		_, err = fmt.Fprintf(stdout, "pack %s: attestation %s, %d sidecars updated\n", r.Pack, r.Attestation, len(r.Sidecars))
		return err
	}
	return cli.WriteJSON(stdout, r)
}
