package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"oras.land/oras-go/v2/registry/remote"

	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// The artifact types and annotation of an attestation as an OCI referrer.
const (
	// ProvenanceArtifactType is the artifactType of the referrer that
	// carries a DSSE envelope of SLSA provenance, as every ctx attest
	// makes: in-toto's media type of an attestation in a DSSE envelope,
	// application/vnd.in-toto.<predicate>+dsse.
	ProvenanceArtifactType = "application/vnd.in-toto.provenance+dsse"
	// AnnotationPredicateType names the statement's predicateType on the
	// referrer, under the key docker buildx and others use for it.
	AnnotationPredicateType = "in-toto.io/predicate-type"
)

// PushedAttestation is what Push did with one attestation of a pack.
type PushedAttestation struct {
	Attestation store.Hash `json:"attestation"` // the envelope's object
	Digest      string     `json:"digest"`      // the digest of the referrer's OCI manifest
	Uploaded    bool       `json:"uploaded"`    // false: the registry listed it already
}

// PulledAttestation is what Pull did with one attestation of a pack.
type PulledAttestation struct {
	Attestation store.Hash `json:"attestation"` // the envelope's object, now in the store
	Digest      string     `json:"digest"`      // the digest of the referrer's OCI manifest
	Downloaded  bool       `json:"downloaded"`  // false: the store had the envelope already
}

// attestationsSaid ends a sentence of Human with the attestations moved
// ("; 1 attestation sent, 0 already there"), when there are any.
func attestationsSaid(total, moved int, verb, where string) string {
	if total == 0 {
		return ""
	}
	return fmt.Sprintf("; %s %s, %d already %s", text.Plural(moved, "attestation"), verb, total-moved, where)
}

// count counts the elements of s for which f holds.
func count[T any](s []T, f func(T) bool) int {
	n := 0
	for _, x := range s {
		if f(x) {
			n++
		}
	}
	return n
}

// referrer is an attestation as an OCI 1.1 referrer of a pack's artifact:
// an image manifest with the artifactType of an in-toto attestation, the
// empty config, the envelope as its one layer and the artifact as its
// subject. Like the artifact, it depends on the envelope and the subject
// alone, so pushing it again makes the same digest.
type referrer struct {
	raw      []byte
	desc     ocispec.Descriptor
	envelope ocispec.Descriptor
}

// Attestations is what moving a pack's attestations needs of lib/attest.
// lib/oci/ociattest gives it (ctx push and ctx pull set it in Options),
// so that a program that moves no attestation (ctx suite) does not link
// the signing code.
type Attestations struct {
	// EnvelopeMediaType is the media type of a DSSE envelope, and
	// MaxEnvelopeSize the largest envelope read.
	EnvelopeMediaType string
	MaxEnvelopeSize   int64
	// List returns the attestations recorded for a pack, sorted.
	List func(st *store.Store, pack store.Hash) ([]store.Hash, error)
	// PredicateType is the predicateType of the statement an envelope
	// carries.
	PredicateType func(envelope []byte) (string, error)
	// Attach stores an envelope as an attestation of pack, once it is
	// found to be a statement about the pack.
	Attach func(st *store.Store, pack store.Hash, envelope []byte) error
}

// artifactTypeOf is the artifactType of a referrer carrying an envelope of
// a statement of predicateType: in-toto's for provenance, the DSSE
// envelope's media type for any other predicate (ctx attest --attach
// takes any statement that names the pack).
func (at *Attestations) artifactTypeOf(predicateType string) string {
	if strings.HasPrefix(predicateType, "https://slsa.dev/provenance/") {
		return ProvenanceArtifactType
	}
	return at.EnvelopeMediaType
}

// isAttestationType says whether a referrer's artifactType is one Pull
// takes as an attestation.
func (at *Attestations) isAttestationType(t string) bool {
	return t == ProvenanceArtifactType || t == at.EnvelopeMediaType ||
		strings.HasPrefix(t, "application/vnd.in-toto.") && strings.HasSuffix(t, "+dsse")
}

// newReferrer describes envelope (object h) as a referrer of subject.
func (at *Attestations) newReferrer(subject ocispec.Descriptor, h store.Hash, envelope []byte) (*referrer, error) {
	predicateType, err := at.PredicateType(envelope)
	if err != nil {
		return nil, err
	}
	r := &referrer{envelope: ocispec.Descriptor{
		MediaType: at.EnvelopeMediaType,
		Digest:    digestOf(h),
		Size:      int64(len(envelope)),
		// oras pull writes the envelope to a file of this name, the
		// suffix in-toto gives envelopes.
		Annotations: map[string]string{ocispec.AnnotationTitle: h.Hex() + ".intoto.json"},
	}}
	man := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: at.artifactTypeOf(predicateType),
		Config:       ocispec.DescriptorEmptyJSON,
		Layers:       []ocispec.Descriptor{r.envelope},
		Subject:      &ocispec.Descriptor{MediaType: subject.MediaType, Digest: subject.Digest, Size: subject.Size},
		Annotations:  map[string]string{AnnotationPredicateType: predicateType},
	}
	if r.raw, err = json.Marshal(man); err != nil {
		return nil, err
	}
	r.desc = ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(r.raw), Size: int64(len(r.raw))}
	return r, nil
}

// parseReferrer checks a fetched referrer manifest: an image manifest of
// subject with the artifactType of an attestation and one layer, a DSSE
// envelope of a plausible size, which it returns. Nothing of the envelope
// has been fetched yet.
func (at *Attestations) parseReferrer(raw []byte, subject digest.Digest) (ocispec.Descriptor, store.Hash, error) {
	var man ocispec.Manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		return ocispec.Descriptor{}, store.Hash{}, fmt.Errorf("the referrer is not valid JSON: %v", err)
	}
	switch {
	case man.MediaType != ocispec.MediaTypeImageManifest:
		return ocispec.Descriptor{}, store.Hash{}, fmt.Errorf("the referrer is %s (media type %s), not an OCI image manifest", kindOf(man.MediaType), shown(man.MediaType))
	case man.Subject == nil || man.Subject.Digest != subject:
		return ocispec.Descriptor{}, store.Hash{}, fmt.Errorf("the referrer's subject is not %s", subject)
	case !at.isAttestationType(man.ArtifactType):
		return ocispec.Descriptor{}, store.Hash{}, fmt.Errorf("the referrer's artifactType %s is not an attestation's", shown(man.ArtifactType))
	case len(man.Layers) != 1:
		return ocispec.Descriptor{}, store.Hash{}, fmt.Errorf("the referrer has %d layers, not one envelope", len(man.Layers))
	}
	l := man.Layers[0]
	h, err := hashOf(l.Digest)
	switch {
	case err != nil:
		return l, h, fmt.Errorf("the referrer's layer: %w", err)
	case l.MediaType != at.EnvelopeMediaType:
		return l, h, fmt.Errorf("the referrer's layer has media type %s, not %s", shown(l.MediaType), at.EnvelopeMediaType)
	case l.Size <= 0 || l.Size > at.MaxEnvelopeSize:
		return l, h, fmt.Errorf("the referrer's envelope claims %d bytes (an envelope has 1 to %d)", l.Size, at.MaxEnvelopeSize)
	}
	return l, h, nil
}

// pushAttestations sends each attestation of pack h in st as a referrer
// of subject, the pack's artifact. An attestation the registry lists as a
// referrer already is not sent; for the others, the blobs the registry
// lacks and the referrer manifest. oras-go files the referrer: on a
// registry with the referrers API the registry does; on one without, oras
// adds it to the index under the tag sha256-<hex of the subject>.
func (c *client) pushAttestations(ctx context.Context, st *store.Store, h store.Hash, subject ocispec.Descriptor) ([]PushedAttestation, error) {
	at := c.opts.Attestations
	atts, err := at.List(st, h)
	if err != nil || len(atts) == 0 {
		return []PushedAttestation{}, err
	}
	listed, err := c.referrers(ctx, subject)
	if err != nil {
		return nil, err
	}
	out := make([]PushedAttestation, 0, len(atts))
	for _, att := range atts {
		env, err := st.ReadAll(att)
		if err != nil {
			return nil, fmt.Errorf("attestation %s: %w", att, err)
		}
		r, err := at.newReferrer(subject, att, env)
		if err != nil {
			return nil, fmt.Errorf("attestation %s: %w", att, err)
		}
		p := PushedAttestation{Attestation: att, Digest: r.desc.Digest.String()}
		if listed[r.desc.Digest] {
			// A listing can outlive its manifest (the tag schema's index
			// is only a list): one question more makes sure.
			have, err := c.repo.Manifests().Exists(ctx, r.desc)
			if err != nil {
				return nil, c.fail(err)
			}
			if have {
				out = append(out, p)
				continue
			}
		}
		if err := c.pushReferrer(ctx, r, env); err != nil {
			return nil, fmt.Errorf("attestation %s: %w", att, err)
		}
		p.Uploaded = true
		out = append(out, p)
	}
	return out, nil
}

// pushReferrer sends the blobs of r the registry lacks, then r. A
// registry that refuses to delete the referrers index the new one
// replaces (many do not allow deletes) has still filed the referrer: the
// old index is left for its garbage collection.
func (c *client) pushReferrer(ctx context.Context, r *referrer, env []byte) error {
	for _, b := range []struct {
		desc ocispec.Descriptor
		data []byte
	}{{ocispec.DescriptorEmptyJSON, ocispec.DescriptorEmptyJSON.Data}, {r.envelope, env}} {
		have, err := c.repo.Blobs().Exists(ctx, b.desc)
		if err == nil && !have {
			err = c.repo.Blobs().Push(ctx, b.desc, bytes.NewReader(b.data))
		}
		if err != nil {
			return c.fail(err)
		}
	}
	err := c.repo.Manifests().Push(ctx, r.desc, bytes.NewReader(r.raw))
	var re *remote.ReferrersError
	if errors.As(err, &re) && re.IsReferrersIndexDelete() {
		err = nil
	}
	return c.fail(err)
}

// referrers returns the digests of every referrer of subject, through the
// referrers API or, where the registry has none, the tag schema.
func (c *client) referrers(ctx context.Context, subject ocispec.Descriptor) (map[digest.Digest]bool, error) {
	out := map[digest.Digest]bool{}
	err := c.repo.Referrers(ctx, subject, "", func(page []ocispec.Descriptor) error {
		for _, d := range page {
			out[d.Digest] = true
		}
		return nil
	})
	return out, c.fail(err)
}

// RefusedError says which attestations of a pulled pack were refused; the
// pack and the other attestations are stored.
type RefusedError struct {
	Pack    store.Hash
	Stored  int     // attestations stored
	Refused []error // one per referrer refused, each naming it
}

func (e *RefusedError) Error() string {
	lines := make([]string, len(e.Refused))
	for i, err := range e.Refused {
		lines[i] = err.Error()
	}
	return strings.Join(lines, "\n")
}

// ErrorHints say what was stored all the same.
func (e *RefusedError) ErrorHints() []string {
	return []string{fmt.Sprintf("pack %s is stored, and %s; nothing of a refused referrer was stored", e.Pack, text.Plural(e.Stored, "good attestation"))}
}

// pullAttestations fetches the referrers of subject that are attestations
// and stores each envelope with Attestations.Attach as an attestation of pack h:
// the referrer manifest checked against its digest and its form, the
// envelope read to exactly its size and checked against its digest
// (unless the store has it), then checked to be an in-toto statement of
// the pack. A referrer that fails any of these is refused and nothing of
// it is stored; the others are stored all the same, and the error lists
// the refused ones. Other referrers (signatures, SBOMs of other tools)
// are left alone. The signatures are not checked: ctx verify --key does.
func (c *client) pullAttestations(ctx context.Context, st *store.Store, h store.Hash, subject ocispec.Descriptor) ([]PulledAttestation, error) {
	var refs []ocispec.Descriptor
	err := c.repo.Referrers(ctx, subject, "", func(page []ocispec.Descriptor) error {
		for _, d := range page {
			if c.opts.Attestations.isAttestationType(d.ArtifactType) {
				refs = append(refs, d)
			}
		}
		return nil
	})
	if err != nil {
		return nil, c.fail(err)
	}
	out := []PulledAttestation{}
	refused := &RefusedError{Pack: h}
	for _, d := range refs {
		p, err := c.pullAttestation(ctx, st, h, subject.Digest, d)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			refused.Refused = append(refused.Refused, fmt.Errorf("attestation referrer %s: %w: refused", shown(d.Digest.String()), err))
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b PulledAttestation) int { return bytes.Compare(a.Attestation[:], b.Attestation[:]) })
	out = slices.CompactFunc(out, func(a, b PulledAttestation) bool { return a.Attestation == b.Attestation })
	if len(refused.Refused) > 0 {
		refused.Stored = len(out)
		return out, refused
	}
	return out, nil
}

// pullAttestation fetches, checks and stores one attestation referrer.
func (c *client) pullAttestation(ctx context.Context, st *store.Store, h store.Hash, subject digest.Digest, d ocispec.Descriptor) (PulledAttestation, error) {
	var p PulledAttestation
	if _, err := hashOf(d.Digest); err != nil {
		return p, err
	}
	if d.Size <= 0 || d.Size > MaxManifestBytes {
		return p, fmt.Errorf("the registry says it has %d bytes, not 1 to the %d a manifest may have", d.Size, MaxManifestBytes)
	}
	rc, err := c.repo.Manifests().Fetch(ctx, d)
	if err != nil {
		return p, c.fail(err)
	}
	raw, err := readExactly(rc, d.Size)
	rc.Close()
	if err != nil {
		return p, c.fail(err)
	}
	if got := digest.FromBytes(raw); got != d.Digest {
		return p, fmt.Errorf("the registry sent a manifest that hashes to %s", got)
	}
	l, eh, err := c.opts.Attestations.parseReferrer(raw, subject)
	if err != nil {
		return p, err
	}
	p.Attestation, p.Digest = eh, d.Digest.String()
	var env []byte
	if st.Has(eh) {
		env, err = st.ReadAll(eh)
	} else {
		env, err = c.fetchEnvelope(ctx, l, eh)
		p.Downloaded = true
	}
	if err != nil {
		return p, err
	}
	if err := c.opts.Attestations.Attach(st, h, env); err != nil {
		return p, fmt.Errorf("envelope %s: %w", eh, err)
	}
	return p, nil
}

// fetchEnvelope fetches an envelope whole, exactly its size, and checks
// it against its digest.
func (c *client) fetchEnvelope(ctx context.Context, l ocispec.Descriptor, h store.Hash) ([]byte, error) {
	rc, err := c.repo.Blobs().Fetch(ctx, l)
	if err != nil {
		return nil, c.fail(err)
	}
	defer rc.Close()
	b, err := readExactly(rc, l.Size)
	if err != nil {
		return nil, fmt.Errorf("envelope %s: %w", h, c.fail(err))
	}
	if got := store.Sum(b); got != h {
		return nil, fmt.Errorf("the registry sent bytes for the envelope %s that hash to %s", h, got)
	}
	return b, nil
}
