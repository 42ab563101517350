// Package ociattest gives lib/oci what moving a pack's attestations as
// OCI referrers needs of lib/attest (ctx push, ctx pull). It is apart so
// that a program moving packs without their attestations (ctx suite push
// and pull) links no signing code; it never does anything of its own.
package ociattest

import (
	"github.com/contextsubstrate/ctx/lib/attest"
	"github.com/contextsubstrate/ctx/lib/oci"
	"github.com/contextsubstrate/ctx/lib/store"
)

// Attestations is lib/attest as lib/oci moves attestations.
func Attestations() *oci.Attestations {
	return &oci.Attestations{
		EnvelopeMediaType: attest.EnvelopeMediaType,
		MaxEnvelopeSize:   attest.MaxEnvelopeSize,
		List:              attest.List,
		PredicateType:     attest.PredicateTypeOf,
		Attach: func(st *store.Store, pack store.Hash, envelope []byte) error {
			_, err := attest.Attach(st, pack, envelope)
			return err
		},
	}
}
