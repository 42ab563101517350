package oci

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// The media types and annotations of a pack as an OCI artifact.
const (
	// ArtifactType is the artifactType of every pack's OCI manifest.
	ArtifactType = "application/vnd.contextsubstrate.ctx.pack.v1"
	// ConfigMediaType is the media type of the config blob: the pack's
	// manifest in RFC 8785 canonical JSON.
	ConfigMediaType = "application/vnd.contextsubstrate.ctx.manifest.v1+json"
	// LayerMediaType is the media type of every layer: one object of the
	// store, raw.
	LayerMediaType = "application/vnd.contextsubstrate.ctx.object"
	// AnnotationModel carries the model identifier of the pack.
	AnnotationModel = "io.github.contextsubstrate.ctx.model"
)

// Bounds on what a registry may make Pull read into memory or claim.
const (
	// MaxManifestBytes is the largest OCI manifest: the 4 MiB registries
	// themselves accept (the CNCF distribution registry refuses more), a
	// pack of about 15,000 objects.
	MaxManifestBytes = 4 << 20
	// MaxConfigBytes is the largest pack manifest, read whole to check it.
	MaxConfigBytes = 64 << 20
)

// artifact is a pack as an OCI manifest, and the sizes of its blobs.
type artifact struct {
	raw    []byte // the OCI manifest's JSON
	desc   ocispec.Descriptor
	config ocispec.Descriptor
	layers []ocispec.Descriptor
	where  map[store.Hash]string // the part of the pack that first names each layer, for messages
}

// newArtifact describes pack h (its manifest object canon, decoded as m)
// as an OCI manifest. size gives each object's size. The same pack always
// gives the same bytes, so its digest is stable: nothing of the time or
// place of the push is in it.
func newArtifact(h store.Hash, canon []byte, m *pack.Manifest, size func(store.Hash) (int64, error)) (*artifact, error) {
	a := &artifact{
		config: ocispec.Descriptor{MediaType: ConfigMediaType, Digest: digestOf(h), Size: int64(len(canon))},
		where:  map[store.Hash]string{},
	}
	for _, r := range m.Refs() {
		n, err := size(r.Hash)
		if err != nil {
			return nil, fmt.Errorf("pack %s is incomplete: %s: %w", h, r.Where, err)
		}
		a.where[r.Hash] = r.Where
		a.layers = append(a.layers, ocispec.Descriptor{
			MediaType: LayerMediaType,
			Digest:    digestOf(r.Hash),
			Size:      n,
			// oras pull writes a layer to the file its title names: the
			// object's hex name, as sha256sum prints it.
			Annotations: map[string]string{ocispec.AnnotationTitle: r.Hash.Hex()},
		})
	}
	if a.layers == nil {
		a.layers = []ocispec.Descriptor{}
	}
	annotations := map[string]string{AnnotationModel: m.Model.Identifier}
	if c := m.CreatedText(); c != "" { // a run with no time has no annotation
		annotations[ocispec.AnnotationCreated] = c
	}
	man := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: ArtifactType,
		Config:       a.config,
		Layers:       a.layers,
		Annotations:  annotations,
	}
	raw, err := json.Marshal(man)
	if err != nil {
		return nil, err
	}
	if len(raw) > MaxManifestBytes {
		return nil, fmt.Errorf("pack %s names %d objects: as an OCI manifest that is %d bytes, more than the %d registries accept", h, len(a.layers), len(raw), MaxManifestBytes)
	}
	a.raw = raw
	a.desc = ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
	return a, nil
}

// digestOf is an object's name as an OCI digest: the same sha256 hex.
func digestOf(h store.Hash) digest.Digest { return digest.Digest(h.String()) }

// hashOf is the object named by an OCI digest; only sha256:<64 hex> names
// one. (digest.Digest's own methods panic on a digest without a colon,
// which a registry may send.)
func hashOf(d digest.Digest) (store.Hash, error) {
	h, err := store.ParseRef(string(d))
	if err != nil {
		return h, fmt.Errorf("digest %s is not sha256:<64 hex digits>", shown(string(d)))
	}
	return h, nil
}

// NotPackError says a manifest is not a ctx pack, and what it is.
type NotPackError struct {
	Ref    string
	What   string // "an OCI image manifest", "an image index"...
	Detail string // its artifactType and config media type
}

func (e *NotPackError) Error() string {
	return fmt.Sprintf("%s is not a ctx pack: it is %s (%s); a pack has artifactType %s", e.Ref, e.What, e.Detail, ArtifactType)
}

// ErrorHints say how to fetch a suite.
func (e *NotPackError) ErrorHints() []string {
	if e.What == aSuite {
		return []string{fmt.Sprintf("'ctx suite pull %s' fetches a suite and its packs", e.Ref)}
	}
	return nil
}

// aSuite is what NotPackError calls a suite's index.
const aSuite = "a ctx suite"

// parseArtifact checks a fetched OCI manifest and returns the pack hash
// and the layers, each a distinct object with a plausible size. Nothing
// of what it names has been fetched yet.
func parseArtifact(ref string, mediaType string, raw []byte) (*artifact, store.Hash, error) {
	var index ocispec.Index
	if mediaType == ocispec.MediaTypeImageIndex && json.Unmarshal(raw, &index) == nil && index.ArtifactType == SuiteArtifactType {
		return nil, store.Hash{}, &NotPackError{Ref: ref, What: aSuite, Detail: "an image index of artifactType " + SuiteArtifactType}
	}
	if mediaType != ocispec.MediaTypeImageManifest {
		return nil, store.Hash{}, &NotPackError{Ref: ref, What: kindOf(mediaType), Detail: "media type " + shown(mediaType)}
	}
	var man ocispec.Manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		return nil, store.Hash{}, fmt.Errorf("%s: the manifest is not valid JSON: %v", ref, err)
	}
	if man.MediaType != "" && man.MediaType != ocispec.MediaTypeImageManifest {
		return nil, store.Hash{}, &NotPackError{Ref: ref, What: kindOf(man.MediaType), Detail: "media type " + shown(man.MediaType)}
	}
	if man.ArtifactType != ArtifactType || man.Config.MediaType != ConfigMediaType {
		at := "no artifactType"
		if man.ArtifactType != "" {
			at = "artifactType " + shown(man.ArtifactType)
		}
		what := "an OCI artifact"
		if man.ArtifactType == "" && strings.HasPrefix(man.Config.MediaType, "application/vnd.oci.image.config") {
			what = "a container image"
		}
		return nil, store.Hash{}, &NotPackError{Ref: ref, What: what, Detail: fmt.Sprintf("%s, config media type %s", at, shown(man.Config.MediaType))}
	}
	h, err := hashOf(man.Config.Digest)
	if err != nil {
		return nil, h, fmt.Errorf("%s: config: %w", ref, err)
	}
	if man.Config.Size < 0 || man.Config.Size > MaxConfigBytes {
		return nil, h, fmt.Errorf("%s: the pack manifest claims %d bytes, more than the %d a pack manifest may have", ref, man.Config.Size, MaxConfigBytes)
	}
	seen := map[store.Hash]bool{}
	for i, l := range man.Layers {
		lh, err := hashOf(l.Digest)
		switch {
		case err != nil:
			return nil, h, fmt.Errorf("%s: layers[%d]: %w", ref, i, err)
		case l.MediaType != LayerMediaType:
			return nil, h, fmt.Errorf("%s: layers[%d] has media type %s, not %s", ref, i, shown(l.MediaType), LayerMediaType)
		case l.Size < 0:
			return nil, h, fmt.Errorf("%s: layers[%d] claims %d bytes", ref, i, l.Size)
		case seen[lh]:
			return nil, h, fmt.Errorf("%s: layers[%d] names %s a second time", ref, i, lh)
		}
		seen[lh] = true
	}
	return &artifact{raw: raw, config: man.Config, layers: man.Layers}, h, nil
}

// checkLayers checks, once the pack manifest is in hand, that the layers
// are exactly the objects the pack names, each with the size the pack
// records for it where it records one.
func (a *artifact) checkLayers(ref string, h store.Hash, m *pack.Manifest) error {
	recorded := map[store.Hash]int64{}
	for _, f := range m.Inputs {
		recorded[f.ContentRef] = f.Size
	}
	for _, o := range m.Outputs {
		recorded[o.ContentRef] = o.Size
	}
	for _, s := range m.Steps {
		if s.OutputRef != nil && s.OutputSize != nil {
			recorded[*s.OutputRef] = *s.OutputSize
		}
	}
	refs := m.Refs()
	a.where = make(map[store.Hash]string, len(refs))
	for _, r := range refs {
		a.where[r.Hash] = r.Where
	}
	for i, l := range a.layers {
		lh, _ := hashOf(l.Digest) // checked by parseArtifact
		if _, ok := a.where[lh]; !ok {
			return fmt.Errorf("%s: layers[%d] %s is not an object of pack %s", ref, i, lh, h)
		}
		if n, ok := recorded[lh]; ok && n != l.Size {
			return fmt.Errorf("%s: layers[%d] claims %d bytes for %s, which the pack records as %d", ref, i, l.Size, a.where[lh], n)
		}
	}
	if len(a.layers) != len(refs) {
		// Every layer is an object of the pack, each once: some object
		// of the pack is missing.
		layers := make(map[digest.Digest]bool, len(a.layers))
		for _, l := range a.layers {
			layers[l.Digest] = true
		}
		for _, r := range refs {
			if !layers[digestOf(r.Hash)] {
				return fmt.Errorf("%s: pack %s names %s (%s), which is not a layer of the artifact", ref, h, r.Hash, r.Where)
			}
		}
	}
	return nil
}

// kindOf names a manifest media type for a message.
func kindOf(mediaType string) string {
	switch mediaType {
	case ocispec.MediaTypeImageIndex, "application/vnd.docker.distribution.manifest.list.v2+json":
		return "an image index (a multi-platform container image)"
	case "application/vnd.docker.distribution.manifest.v2+json", "application/vnd.docker.distribution.manifest.v1+prettyjws":
		return "a Docker container image"
	case ocispec.MediaTypeImageManifest:
		return "an OCI image manifest"
	}
	return "not an OCI image manifest"
}

// shown is what a registry sent, fit for a message: shortened, and
// quoted when it holds anything but printable characters.
func shown(s string) string {
	s = text.Clip(s, 100)
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	if s == "" {
		return `""`
	}
	return s
}
