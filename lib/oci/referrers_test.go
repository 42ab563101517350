package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/registrytest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/attest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

const signedLog = `{"created": "2026-02-10T12:00:00Z", "model": {"identifier": "m"}, "prompts": [{"content": "write it"}], "steps": [],
	"outputs": [{"name": "report.md", "content": "# Report\n"}]}`

// testAttestations is ociattest.Attestations, which these tests cannot
// import (it imports this package): the same fields of lib/attest.
func testAttestations() *Attestations {
	return &Attestations{
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

// signed packs signedLog into a new store and attests it with n new keys.
func signed(t testing.TB, n int) (*store.Store, *pack.Manifest, []store.Hash) {
	t.Helper()
	st := storetest.New(t)
	m := packtest.Pack(t, st, signedLog)
	var atts []store.Hash
	for range n {
		key, err := attest.GenerateKey(attest.Ed25519)
		if err != nil {
			t.Fatal(err)
		}
		res, err := attest.Attest(context.Background(), st, m, key)
		if err != nil {
			t.Fatal(err)
		}
		atts = append(atts, res.Ref)
	}
	slices.SortFunc(atts, func(a, b store.Hash) int { return bytes.Compare(a[:], b[:]) })
	return st, m, atts
}

// signedReferrer is a signed pack of a new store, its artifact and the
// referrer of its attestation, with the envelope.
type signedReferrer struct {
	st  *store.Store
	m   *pack.Manifest
	h   store.Hash
	att store.Hash
	env []byte
	a   *artifact
	r   *referrer
}

func newSignedReferrer(t testing.TB) signedReferrer {
	t.Helper()
	st, m, atts := signed(t, 1)
	s := signedReferrer{st: st, m: m, h: packtest.Hash(t, m), att: atts[0]}
	canon, err := st.ReadAll(s.h)
	if err == nil {
		s.a, err = newArtifact(s.h, canon, m, st.Stat)
	}
	if err == nil {
		s.env, err = st.ReadAll(s.att)
	}
	if err == nil {
		s.r, err = testAttestations().newReferrer(s.a.desc, s.att, s.env)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// pushedAtts and pulledAtts are the envelopes of a push or pull's
// attestations, and how many moved.
func pushedAtts(as []PushedAttestation) ([]store.Hash, int) {
	var hs []store.Hash
	for _, a := range as {
		hs = append(hs, a.Attestation)
	}
	return hs, count(as, func(a PushedAttestation) bool { return a.Uploaded })
}

func pulledAtts(as []PulledAttestation) ([]store.Hash, int) {
	var hs []store.Hash
	for _, a := range as {
		hs = append(hs, a.Attestation)
	}
	return hs, count(as, func(a PulledAttestation) bool { return a.Downloaded })
}

// referrersTag resolves the tag of the referrers tag schema for an
// artifact: its digest, or "" when there is no such tag.
func referrersTag(t *testing.T, ref Ref, artifact string) string {
	t.Helper()
	c, err := connect(ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	d, err := c.repo.Resolve(context.Background(), strings.Replace(artifact, ":", "-", 1))
	if isNotFound(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return d.Digest.String()
}

// TestAttestationsByTagSchema: against the CNCF registry 2.8, which has
// no referrers API, the attestations go under the referrers tag; a second
// attestation joins the first, one already there is not sent again, and
// a pull into an empty store brings both, attached to the pack.
func TestAttestationsByTagSchema(t *testing.T) {
	r := reg(t)
	ctx := context.Background()
	src, m, atts := signed(t, 1)
	h := packtest.Hash(t, m)
	ref := mustRef(t, r.Addr+"/referrers/tagschema:v1")

	first, err := Push(ctx, src, h, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	if got, sent := pushedAtts(first.Attestations); !slices.Equal(got, atts) || sent != 1 {
		t.Fatalf("first push: %+v", first.Attestations)
	}
	if referrersTag(t, ref, first.Digest) == "" {
		t.Fatalf("no referrers tag for %s", first.Digest)
	}

	// A second key signs the pack too: only its attestation is sent.
	key, _ := attest.GenerateKey(attest.ECDSAP256)
	second, err := attest.Attest(ctx, src, m, key)
	if err != nil {
		t.Fatal(err)
	}
	atts = append(atts, second.Ref)
	slices.SortFunc(atts, func(a, b store.Hash) int { return bytes.Compare(a[:], b[:]) })
	again, err := Push(ctx, src, h, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	if got, sent := pushedAtts(again.Attestations); !slices.Equal(got, atts) || sent != 1 || again.BlobsUploaded != 0 {
		t.Fatalf("second push: %+v", again)
	}

	dst := storetest.New(t)
	pulled, err := Pull(ctx, dst, ref, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, downloaded := pulledAtts(pulled.Attestations); !slices.Equal(got, atts) || downloaded != 2 {
		t.Fatalf("pull: %+v", pulled.Attestations)
	}
	if stored, _ := attest.List(dst, h); !slices.Equal(stored, atts) {
		t.Errorf("attestations stored: %v, want %v", stored, atts)
	}
	pulled, err = Pull(ctx, dst, ref, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, downloaded := pulledAtts(pulled.Attestations); !slices.Equal(got, atts) || downloaded != 0 {
		t.Errorf("pull again: %+v, %v", pulled, err)
	}
	none, err := Pull(ctx, storetest.New(t), ref, Options{PlainHTTP: true, NoAttestations: true, Config: "/nonexistent/config.json"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if none.Attestations != nil {
		t.Errorf("pull with NoAttestations: %+v, %v", none, err)
	}
}

// TestAttestationsByReferrersAPI: through a registry that has the
// referrers API, the registry files the referrer (no referrers tag is
// made) and a pull finds it there.
func TestAttestationsByReferrersAPI(t *testing.T) {
	r := reg(t)
	ctx := context.Background()
	p, err := registrytest.NewProxy(r.Addr, registrytest.ReferrersAPI)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src, m, atts := signed(t, 1)
	h := packtest.Hash(t, m)
	ref := mustRef(t, p.Addr+"/referrers/api:v1")

	pushed, err := Push(ctx, src, h, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	if got, sent := pushedAtts(pushed.Attestations); !slices.Equal(got, atts) || sent != 1 {
		t.Fatalf("push: %+v", pushed.Attestations)
	}
	direct := mustRef(t, r.Addr+"/referrers/api:v1")
	if tag := referrersTag(t, direct, pushed.Digest); tag != "" {
		t.Errorf("a referrers tag was made (%s) where the registry has the API", tag)
	}
	again, err := Push(ctx, src, h, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	if _, sent := pushedAtts(again.Attestations); sent != 0 || len(again.Attestations) != 1 {
		t.Errorf("push again: %+v, %v", again, err)
	}

	pulled, err := Pull(ctx, storetest.New(t), ref, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := pulledAtts(pulled.Attestations); !slices.Equal(got, atts) {
		t.Errorf("pull: %+v", pulled.Attestations)
	}
	// Without the API (straight to the registry) there is no referrer to
	// find: the pull above went through the API.
	plainPull, err := Pull(ctx, storetest.New(t), direct, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(plainPull.Attestations) != 0 {
		t.Errorf("pull without the API: %+v, %v", plainPull, err)
	}
}

// TestAttestationUnlistedIsSentAgain: a referrer manifest the registry
// has but does not list (a push killed between the manifest and the
// referrers index) is sent again, and then listed.
func TestAttestationUnlistedIsSentAgain(t *testing.T) {
	r := reg(t)
	ctx := context.Background()
	s := newSignedReferrer(t)
	ref := mustRef(t, r.Addr+"/referrers/unlisted:v1")
	if _, err := Push(ctx, s.st, s.h, ref, Options{PlainHTTP: true, NoAttestations: true, Config: "/nonexistent/config.json"}); err != nil {
		t.Fatal(err)
	}

	// The referrer alone, as oras-go pushes it to a registry it takes to
	// have the API: no index.
	c, _ := connect(ref, plain())
	c.repo.SetReferrersCapability(true)
	if err := c.pushReferrer(ctx, s.r, s.env); err != nil {
		t.Fatal(err)
	}
	if referrersTag(t, ref, s.a.desc.Digest.String()) != "" {
		t.Fatal("the referrer was listed")
	}

	pushed, err := Push(ctx, s.st, s.h, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	if _, sent := pushedAtts(pushed.Attestations); sent != 1 {
		t.Fatalf("push: %+v, %v", pushed, err)
	}
	pulled, err := Pull(ctx, storetest.New(t), ref, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := pulledAtts(pulled.Attestations); !slices.Equal(got, []store.Hash{s.att}) {
		t.Errorf("pull: %+v, %v", pulled, err)
	}
}

// TestAttestationsWhereDeletesAreRefused: a registry that refuses
// deletes (the CNCF registry's default) cannot remove the referrers index
// a second attestation replaces; the push succeeds all the same and the
// new index lists both.
func TestAttestationsWhereDeletesAreRefused(t *testing.T) {
	reg(t)
	r, err := registrytest.Start(registrytest.Options{Dir: t.TempDir(), NoDeletes: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Stop()
	ctx := context.Background()
	src, m, atts := signed(t, 2)
	h := packtest.Hash(t, m)
	ref := mustRef(t, r.Addr+"/referrers/nodelete:v1")
	// One attestation at a time, so the second replaces an index.
	first := storetest.New(t)
	if err := copyPack(src, first, h, atts[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, first, h, ref, plain()); err != nil {
		t.Fatal(err)
	}
	pushed, err := Push(ctx, src, h, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	if _, sent := pushedAtts(pushed.Attestations); sent != 1 {
		t.Fatalf("second push: %+v, %v", pushed, err)
	}
	pulled, err := Pull(ctx, storetest.New(t), ref, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := pulledAtts(pulled.Attestations); !slices.Equal(got, atts) {
		t.Errorf("pull: %+v, %v", pulled, err)
	}
}

// copyPack copies pack h and the attestations atts from src to dst.
func copyPack(src, dst *store.Store, h store.Hash, atts []store.Hash) error {
	m, err := pack.Load(src, h)
	if err != nil {
		return err
	}
	objs := []store.Hash{h}
	for _, r := range m.Refs() {
		objs = append(objs, r.Hash)
	}
	for _, o := range append(objs, atts...) {
		b, err := src.ReadAll(o)
		if err != nil {
			return err
		}
		if _, _, err := dst.PutObject(b); err != nil {
			return err
		}
	}
	for _, a := range atts {
		if err := dst.AddAttestation(h, a); err != nil {
			return err
		}
	}
	return nil
}

// TestParseReferrer: a referrer is taken only as ctx makes it: an image
// manifest of the subject, an attestation's artifactType, one layer that
// is a DSSE envelope of a plausible size under a sha256 digest.
func TestParseReferrer(t *testing.T) {
	s := newSignedReferrer(t)
	a, good := s.a, s.r
	if l, eh, err := testAttestations().parseReferrer(good.raw, a.desc.Digest); err != nil || eh != s.att || l.Size != int64(len(s.env)) {
		t.Fatalf("parse of a good referrer: %v, %s, %+v", err, eh, l)
	}
	var doc map[string]any
	json.Unmarshal(good.raw, &doc)
	if doc["artifactType"] != ProvenanceArtifactType || doc["annotations"].(map[string]any)[AnnotationPredicateType] != attest.PredicateType {
		t.Errorf("referrer: %s", good.raw)
	}
	edit := func(f func(*ocispec.Manifest)) []byte {
		var man ocispec.Manifest
		json.Unmarshal(good.raw, &man)
		f(&man)
		b, _ := json.Marshal(man)
		return b
	}
	for _, c := range []struct {
		name string
		raw  []byte
		want string
	}{
		{"not JSON", []byte("{"), "not valid JSON"},
		{"an index", edit(func(m *ocispec.Manifest) { m.MediaType = ocispec.MediaTypeImageIndex }), "image index"},
		{"another subject", edit(func(m *ocispec.Manifest) { m.Subject.Digest = digest.FromString("x") }), "subject is not"},
		{"no subject", edit(func(m *ocispec.Manifest) { m.Subject = nil }), "subject is not"},
		{"a signature", edit(func(m *ocispec.Manifest) { m.ArtifactType = "application/vnd.dev.cosign.artifact.sig.v1+json" }), "artifactType"},
		{"two layers", edit(func(m *ocispec.Manifest) { m.Layers = append(m.Layers, m.Layers[0]) }), "2 layers"},
		{"not an envelope", edit(func(m *ocispec.Manifest) { m.Layers[0].MediaType = "application/octet-stream" }), "media type"},
		{"sha512", edit(func(m *ocispec.Manifest) { m.Layers[0].Digest = "sha512:00" }), "sha256"},
		{"empty", edit(func(m *ocispec.Manifest) { m.Layers[0].Size = 0 }), "claims 0 bytes"},
		{"huge", edit(func(m *ocispec.Manifest) { m.Layers[0].Size = 1 << 40 }), "claims 1099511627776 bytes"},
	} {
		if _, _, err := testAttestations().parseReferrer(c.raw, a.desc.Digest); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestArtifactTypeOf: provenance has in-toto's own artifactType; any
// other statement the envelope's media type, which Pull takes too.
func TestArtifactTypeOf(t *testing.T) {
	for _, c := range []struct{ predicate, want string }{
		{attest.PredicateType, ProvenanceArtifactType},
		{"https://slsa.dev/provenance/v0.2", ProvenanceArtifactType},
		{"https://in-toto.io/attestation/test-result/v0.1", attest.EnvelopeMediaType},
	} {
		if got := testAttestations().artifactTypeOf(c.predicate); got != c.want || !testAttestations().isAttestationType(got) {
			t.Errorf("%s: %s", c.predicate, got)
		}
	}
	for _, other := range []string{"", "application/vnd.dev.sigstore.bundle.v0.3+json", "application/spdx+json", ArtifactType} {
		if testAttestations().isAttestationType(other) {
			t.Errorf("%q taken for an attestation", other)
		}
	}
}
