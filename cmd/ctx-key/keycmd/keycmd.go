// Package keycmd is ctx key: signing keys for ctx attest and ctx verify --key.
package keycmd

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/contextsubstrate/ctx/lib/attest"
	"github.com/contextsubstrate/ctx/lib/cli"
)

const name = "ctx-key"

func usage() cli.Usage {
	return cli.Usage{
		Name:     name,
		Synopsis: "ctx key generate [--type ecdsa-p256|ed25519] -o FILE\nctx key id KEY",
		Summary:  "Make a signing key pair, or print a key's id.",
		Exits:    []string{"0", "2"},
		Help: `generate writes a new private key to FILE (PEM, mode 0600) and its public
key to FILE.pub (PKIX PEM), and refuses to replace either. --type is
ecdsa-p256 (the default, as cosign's) or ed25519. When CTX_KEY_PASSWORD
is set and not empty, the private key is encrypted with it in cosign's
format (scrypt and NaCl secretbox), which cosign reads too; otherwise it
is plain PKCS #8, as openssl writes it. Keep FILE secret; hand FILE.pub
to whoever verifies.

id prints the id of a public or private key: the SHA-256 fingerprint that
signatures name and that ctx verify reports (as ssh-keygen -l prints it).

Keys made by cosign generate-key-pair (with their password in
CTX_KEY_PASSWORD, if they have one) and by openssl (unencrypted PKCS #8 or
SEC 1 PEM) work as they are.`,
		Examples: `ctx key generate -o signing.key
CTX_KEY_PASSWORD=... ctx key generate --type ed25519 -o release.key
ctx key id signing.key.pub`,
	}
}

type config struct {
	out     string
	keyType string
	format  cli.Output
}

func (c *config) RegisterFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.out, "o", "", "write the private key to `FILE` and the public key to FILE.pub")
	fs.StringVar(&c.keyType, "type", string(attest.ECDSAP256), "the type of key (`MODE`): ecdsa-p256 or ed25519")
	c.format.Register(fs, cli.JSON, cli.Formats{cli.JSON: "print the key's files, type and id as JSON", cli.Human: "print a sentence"})
}

// Check takes 'generate' with -o and a known --type, or 'id KEY'.
func (c *config) Check(args []string) error {
	switch {
	case len(args) == 2 && args[0] == "id":
		return nil
	case len(args) != 1 || args[0] != "generate":
		return cli.Usagef("ctx key takes 'generate -o FILE' or 'id KEY'")
	case c.out == "":
		return cli.Usagef("ctx key generate needs -o FILE")
	}
	if _, err := attest.ParseKeyType(c.keyType); err != nil {
		return cli.Usagef("--type: %v", err)
	}
	return nil
}

// Main runs ctx key with the process's arguments and streams.
func Main() int { return cli.Main(name, Run) }

// Run is ctx key.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var cfg config
	args, err := cli.ParseArgs(&cfg, args, usage(), stdout)
	if err != nil {
		return err
	}
	var r attest.KeyReport
	if args[0] == "generate" {
		r, err = attest.GenerateKeyPair(cfg.out, attest.KeyType(cfg.keyType))
	} else {
		r, err = attest.DescribeKeyFile(args[1])
	}
	switch {
	case err != nil:
		return cli.Wrap(cli.ExitTrouble, err)
	case !cfg.format.Human():
		return cli.WriteJSON(stdout, r)
	case r.PrivateKey != "":
		_, err = fmt.Fprintf(stdout, "wrote %s (secret) and %s (to share): %s key %s\n", r.PrivateKey, r.PublicKey, r.Type, r.KeyID)
	default:
		_, err = fmt.Fprintf(stdout, "%s key %s\n", r.Type, r.KeyID)
	}
	return err
}
