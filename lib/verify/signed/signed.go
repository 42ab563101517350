// Package signed is the part of verifying that signs and checks
// signatures: ctx verify --key (a verify.KeyChecker of lib/attest's
// checker), ctx attest and ctx pack --sign (signing a pack and listing the
// attestation in its sidecars). It is apart from lib/verify so that the
// verbs that only read (ctx show, diff, checkout, ...) link no signing
// code.
package signed

import (
	"context"
	"crypto"
	"fmt"

	"github.com/contextsubstrate/ctx/lib/attest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/verify"
)

// AddAttestationUnder adds att to every sidecar of pack under dir, walked as
// Walk walks it, and returns the artifacts whose sidecar changed. A sidecar
// that cannot be rewritten is passed to warn, and the walk goes on; the
// error is for a walk that could not be done.
func AddAttestationUnder(dir string, pack, att store.Hash, warn func(error)) ([]string, error) {
	var changed []string
	err := verify.Walk(dir, func(artifact string) error {
		ok, err := sidecar.AddAttestation(artifact, pack, att)
		switch {
		case ok:
			changed = append(changed, artifact)
		case err != nil:
			warn(err)
		}
		return nil
	})
	return changed, err
}

// SignPack is ctx pack --sign: once ctx pack has stored the pack res
// built, it signs it as ctx attest does (attest.Attest) and, with
// sidecars, adds the attestation to the sidecars sidecar.WriteAll wrote of
// res's artifacts; what goes wrong with one of those is passed to warn.
// It returns the attestation's ref.
func SignPack(ctx context.Context, st *store.Store, res *pack.Result, key crypto.Signer, sidecars bool, warn func(string)) (string, error) {
	att, err := attest.Attest(ctx, st, res.Manifest, key)
	if err != nil {
		h, _ := store.ParseRef(res.Manifest.Hash)
		return "", fmt.Errorf("pack %s is stored, but not signed: %v", h.URI(), err)
	}
	if sidecars {
		sidecar.EachArtifact(res.Artifacts, warn, func(_ pack.Artifact, path string) error {
			_, err := sidecar.AddAttestation(path, att.Pack, att.Ref)
			return err
		})
	}
	return att.Ref.String(), nil
}

// AttestReport is what ctx attest prints: the pack, its attestation, the
// key that signed it (nil for an attached envelope that names none), how
// many subjects the statement has, and the artifacts whose sidecar now
// lists the attestation.
type AttestReport struct {
	Pack        string   `json:"pack"`
	Attestation string   `json:"attestation"`
	KeyID       *string  `json:"key_id"`
	Subjects    int      `json:"subjects"`
	Sidecars    []string `json:"sidecars"`
}

// AttestOptions say how ctx attest makes an attestation and where its
// sidecars are.
type AttestOptions struct {
	Key    crypto.Signer // sign with this key; or, when nil,
	Attach string        // store the DSSE envelope in this file (attest.AttachFile)
	Root   string        // add the attestation to the pack's sidecars under this directory; "": none
	Warn   func(error)   // a sidecar that cannot be rewritten
}

// AttestPack is ctx attest: it signs pack m (attest.Attest) or attaches an
// envelope made elsewhere, then adds the attestation to the sidecars of
// the pack under opts.Root (AddAttestationUnder). The result has the
// envelope, for the files ctx attest writes.
func AttestPack(ctx context.Context, st *store.Store, m *pack.Manifest, opts AttestOptions) (attest.Result, AttestReport, error) {
	var res attest.Result
	var err error
	if opts.Key != nil {
		res, err = attest.Attest(ctx, st, m, opts.Key)
	} else {
		ph, _ := store.ParseRef(m.Hash) // a loaded manifest has its hash
		res, err = attest.AttachFile(st, ph, opts.Attach)
	}
	if err != nil {
		return res, AttestReport{}, err
	}
	r := AttestReport{Pack: res.Pack.String(), Attestation: res.Ref.String(), Subjects: res.Subjects, Sidecars: []string{}}
	if res.KeyID != "" {
		r.KeyID = &res.KeyID
	}
	if opts.Root != "" {
		r.Sidecars, err = AddAttestationUnder(opts.Root, res.Pack, res.Ref, opts.Warn)
	}
	return res, r, err
}

// WithKeyFile makes v check signatures (verify.Verifier.WithKey) by the
// public key in the file at path (see attest.ParsePublicKey), for ctx
// verify --key.
func WithKeyFile(v *verify.Verifier, path string) error {
	pub, err := attest.ReadPublicKeyFile(path)
	if err != nil {
		return err
	}
	c, err := attest.NewChecker(pub)
	if err != nil {
		return err
	}
	v.WithKey(keyChecker{c})
	return nil
}

// keyChecker is attest's checker as a verify.KeyChecker.
type keyChecker struct{ c *attest.Checker }

func (k keyChecker) KeyID() string { return k.c.KeyID() }

func (k keyChecker) Covering(ctx context.Context, st *store.Store, pack store.Hash, refs []store.Hash, name string, h store.Hash) (verify.Verdict, error) {
	v, err := k.c.Covering(ctx, st, pack, refs, name, h)
	return verify.Verdict(v), err
}
