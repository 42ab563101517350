package oci

import (
	"encoding/json"
	"testing"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/contextsubstrate/ctx/lib/attest"
	"github.com/contextsubstrate/ctx/lib/store"
)

// FuzzParseArtifact: whatever manifest a registry sends, parseArtifact
// returns an error or an artifact whose claims are bounded: a pack hash,
// a config of plausible size, distinct sha256 layers of no negative size;
// and checkLayers never accepts a layer the pack does not name.
func FuzzParseArtifact(f *testing.F) {
	_, h, _, m, a := testArtifact(f)
	f.Add(a.raw)
	f.Add([]byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:` + h.Hex() + `","size":2},"layers":[]}`))
	f.Add([]byte(`{"layers":[{"digest":"sha512:00","size":-1}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, ph, err := parseArtifact("r", ocispec.MediaTypeImageManifest, raw)
		if err != nil {
			return
		}
		if got.config.Size < 0 || got.config.Size > MaxConfigBytes || ph.IsZero() && got.config.Digest != digestOf(ph) {
			t.Fatalf("accepted config %+v", got.config)
		}
		seen := map[string]bool{}
		for _, l := range got.layers {
			if l.Size < 0 || seen[l.Digest.String()] || l.MediaType != LayerMediaType {
				t.Fatalf("accepted layer %+v", l)
			}
			seen[l.Digest.String()] = true
		}
		if ph != h {
			return
		}
		if err := got.checkLayers("r", h, m); err == nil {
			var want []string
			for _, r := range m.Refs() {
				want = append(want, r.Hash.String())
			}
			if len(want) != len(got.layers) {
				b, _ := json.Marshal(got.layers)
				t.Fatalf("accepted layers %s for a pack of %d objects", b, len(want))
			}
			for _, d := range want {
				if !seen[d] {
					t.Fatalf("accepted layers without %s", d)
				}
			}
		}
	})
}

// FuzzParseRef: a reference that parses writes back to one that parses
// to the same.
func FuzzParseRef(f *testing.F) {
	for _, s := range []string{"localhost:5000/team/runs:v1", "ghcr.io/a/b@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "h/r", "https://x/y", "a/../b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			return
		}
		back, err := ParseRef(r.String())
		if err != nil || back != r {
			t.Fatalf("%q parsed as %+v, written %q, parsed back as %+v (%v)", s, r, r.String(), back, err)
		}
	})
}

// FuzzParseReferrer: whatever referrer manifest a registry sends,
// parseReferrer returns an error or one DSSE envelope of the subject
// under its sha256 name, with a size that can be read.
func FuzzParseReferrer(f *testing.F) {
	s := newSignedReferrer(f)
	a, r := s.a, s.r
	f.Add(r.raw)
	f.Add([]byte(`{"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.in-toto.x+dsse","subject":{"digest":"` + a.desc.Digest.String() + `"},"layers":[{"mediaType":"application/vnd.dsse.envelope.v1+json","digest":"sha256:00","size":-1}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		l, eh, err := testAttestations().parseReferrer(raw, a.desc.Digest)
		if err != nil {
			return
		}
		if l.Digest != digestOf(eh) || l.MediaType != attest.EnvelopeMediaType || l.Size <= 0 || l.Size > attest.MaxEnvelopeSize {
			t.Fatalf("accepted layer %+v (%s)", l, eh)
		}
		var man ocispec.Manifest
		if json.Unmarshal(raw, &man) != nil || man.Subject == nil || man.Subject.Digest != a.desc.Digest || !testAttestations().isAttestationType(man.ArtifactType) {
			t.Fatalf("accepted %s", raw)
		}
	})
}

// FuzzParseSuiteIndex: whatever index a registry sends for a suite,
// parseSuiteIndex returns an error or an index whose first manifest is a
// suite's and every other a pack artifact's, each once, each of a
// plausible size and a sha256 digest.
func FuzzParseSuiteIndex(f *testing.F) {
	h := store.Sum([]byte("x"))
	f.Add([]byte(`{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","artifactType":"` + SuiteArtifactType + `","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"` + SuiteArtifactType + `","digest":"` + h.String() + `","size":10}]}`))
	f.Add([]byte(`{"artifactType":"` + SuiteArtifactType + `","manifests":[{"digest":"sha256:00","size":-1},{}]}`))
	f.Add([]byte(`{"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"` + ArtifactType + `"}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, mt := range []string{ocispec.MediaTypeImageIndex, ocispec.MediaTypeImageManifest} {
			index, err := parseSuiteIndex("r", mt, raw)
			if err != nil {
				continue
			}
			seen := map[string]bool{}
			for i, d := range index.Manifests {
				kind := ArtifactType
				if i == 0 {
					kind = SuiteArtifactType
				}
				if _, err := hashOf(d.Digest); err != nil || d.ArtifactType != kind || d.Size <= 0 || d.Size > MaxManifestBytes || seen[d.Digest.String()] {
					t.Fatalf("accepted manifests[%d] %+v", i, d)
				}
				seen[d.Digest.String()] = true
			}
			if len(index.Manifests) == 0 || mt != ocispec.MediaTypeImageIndex {
				t.Fatalf("accepted %s with %d manifests", mt, len(index.Manifests))
			}
		}
	})
}
