package verify

import (
	"context"
	"fmt"
	"slices"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// KeyChecker checks attestations against one key; lib/verify/signed
// makes one of lib/attest's checker, so that this package links no
// signing code (a read-only verb that shows a check links it).
type KeyChecker interface {
	// KeyID names the key.
	KeyID() string
	// Covering looks through the attestation objects refs of pack for
	// one signed by the key that names subject name (an output; "" for
	// the manifest) with digest h.
	Covering(ctx context.Context, st *store.Store, pack store.Hash, refs []store.Hash, name string, h store.Hash) (Verdict, error)
}

// Verdict is what a KeyChecker found of one subject.
type Verdict struct {
	Signed      bool       // an attestation signed by the key covers the subject
	Attestation store.Hash // the one that does, or else the first that was looked at; zero when there were none
	Reason      string     // why none covers it; empty when Signed or when there were none
}

// signatures is what a Verifier needs to check signatures.
type signatures struct {
	checker KeyChecker
	stored  map[store.Hash][]store.Hash // the store's attestations of each pack met, read once
}

// WithKey makes v check signatures by the key of c: an artifact
// or pack that would be verified is signed when an attestation of its pack
// signed by that key names its digest as a subject, and bad_signature when
// the pack has attestations but none does (another key signed them, one
// was altered, or none is about it), and unsigned when the pack has no
// attestation at all: who passes a key asks whether that key signed it.
func (v *Verifier) WithKey(c KeyChecker) {
	v.keys = &signatures{checker: c, stored: map[store.Hash][]store.Hash{}}
}

// Pass reports whether the report is a pass: verified, or signed; with
// WithKey, only signed.
func (v *Verifier) Pass(r Report) bool {
	if v.keys != nil {
		return r.Status == Signed
	}
	return r.Status == Verified || r.Status == Signed
}

// checkSignature turns a verified report into signed, bad_signature or unsigned when
// v checks signatures. The attestations looked at are those the store
// records for pack h and those the sidecar lists (listed), each once: a
// sidecar can point at an attestation, but cannot hide one. Subject o is
// the output (or, with an empty name, the manifest) and its digest.
func (v *Verifier) checkSignature(r *Report, h store.Hash, listed []string, o pack.Output) error {
	if v.keys == nil {
		return nil
	}
	stored, ok := v.keys.stored[h]
	if !ok {
		var err error
		if stored, err = v.st.Attestations(h); err != nil {
			return fmt.Errorf("reading the attestations of pack %s: %w", h, err)
		}
		v.keys.stored[h] = stored
	}
	refs := slices.Clone(stored)
	for _, s := range listed {
		ref, err := store.ParseRef(s) // sidecar.Parse checked it
		if err == nil && !slices.Contains(refs, ref) {
			refs = append(refs, ref)
		}
	}
	c := v.keys.checker
	verdict, err := c.Covering(context.Background(), v.st, h, refs, o.Name, o.ContentRef)
	if err != nil {
		return err
	}
	r.KeyID = c.KeyID()
	switch {
	case verdict.Signed:
		r.Status, r.Envelope = Signed, verdict.Attestation.String()
	case verdict.Reason != "":
		r.Status, r.Envelope, r.Reason = BadSignature, verdict.Attestation.String(), verdict.Reason
	default:
		r.Status, r.Reason = Unsigned, fmt.Sprintf("pack %s has no attestation, so nothing signed by key %s covers it", h, c.KeyID())
	}
	return nil
}
