package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// The media types and annotation of a suite as an OCI artifact: an OCI
// image index of artifactType SuiteArtifactType whose first manifest is
// the suite's own (its config the suite object, no layers) and whose
// others are the artifacts of its packs, each exactly as Push makes it.
// So a pack pushed alone and the same pack in a suite are one manifest
// in the registry, its blobs sent once, and a registry's garbage
// collection keeps every pack a tagged suite names.
const (
	// SuiteArtifactType is the artifactType of the index and of the
	// suite's own manifest.
	SuiteArtifactType = "application/vnd.contextsubstrate.ctx.suite.v1"
	// SuiteConfigMediaType is the media type of the suite's config blob:
	// the suite object (lib/suite) in RFC 8785 canonical JSON.
	SuiteConfigMediaType = "application/vnd.contextsubstrate.ctx.suite.v1+json"
	// AnnotationSuiteName is the name the suite was pushed under.
	AnnotationSuiteName = "io.github.contextsubstrate.ctx.suite.name"
)

// Suite is a suite as PushSuite sends it.
type Suite struct {
	Name  string       // its name in the store it is pushed from
	Hash  store.Hash   // the suite object
	Canon []byte       // the suite object's bytes
	Packs []store.Hash // the packs it names, each once
}

// PushedSuite is what PushSuite did.
type PushedSuite struct {
	Ref           string `json:"ref"`    // where the suite is now: host/repo:tag, or host/repo@digest untagged
	Digest        string `json:"digest"` // the digest of its OCI index
	Name          string `json:"name"`
	Suite         string `json:"suite"` // ctx://<hex> of the suite object
	Packs         int    `json:"packs"`
	PacksSkipped  int    `json:"packs_skipped"` // the registry had their artifacts
	BlobsUploaded int    `json:"blobs_uploaded"`
	BlobsSkipped  int    `json:"blobs_skipped"` // the registry had them already
	BytesUploaded int64  `json:"bytes_uploaded"`
}

// Human is the sentence ctx suite push --human prints.
func (p *PushedSuite) Human() string {
	return fmt.Sprintf("pushed suite %s (%s, %s) to %s: %s sent (%s), %d already there",
		p.Name, p.Suite, text.Plural(p.Packs, "pack"), p.Ref, text.Plural(p.BlobsUploaded, "blob"), text.Size(p.BytesUploaded), p.BlobsSkipped)
}

// suiteArtifact is a suite as an OCI index, and what a push needs of
// the artifacts it names: each pack's manifest descriptor and its blobs'
// names and sizes (a few dozen bytes a blob, not the artifacts: a suite
// of 2,000 runs of 40 steps has 84,000 blobs). A pack's artifact is made
// again from the store where its bytes are sent.
type suiteArtifact struct {
	index, own    []byte // the index's JSON, the suite manifest's JSON
	desc, ownDesc ocispec.Descriptor
	config        ocispec.Descriptor // the suite object
	packs         []suitePack
	distinctBlobs int // the packs' blobs, each once, and the suite object
}

// suitePack is a pack of a suite: its hash, its artifact's manifest, and
// its blobs (its manifest object first, then its layers).
type suitePack struct {
	h     store.Hash
	desc  ocispec.Descriptor
	blobs []sizedHash
}

type sizedHash struct {
	h    store.Hash
	size int64
}

// newSuiteArtifact describes s as an OCI index: the same suite and packs
// always give the same bytes.
func newSuiteArtifact(st *store.Store, s Suite) (*suiteArtifact, error) {
	sa := &suiteArtifact{config: ocispec.Descriptor{MediaType: SuiteConfigMediaType, Digest: digestOf(s.Hash), Size: int64(len(s.Canon))}}
	own := ocispec.Manifest{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageManifest,
		ArtifactType: SuiteArtifactType,
		Config:       sa.config,
		Layers:       []ocispec.Descriptor{},
	}
	var err error
	if sa.own, err = json.Marshal(own); err != nil {
		return nil, err
	}
	sa.ownDesc = ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, ArtifactType: SuiteArtifactType,
		Digest: digest.FromBytes(sa.own), Size: int64(len(sa.own))}
	index := ocispec.Index{
		Versioned:    specs.Versioned{SchemaVersion: 2},
		MediaType:    ocispec.MediaTypeImageIndex,
		ArtifactType: SuiteArtifactType,
		Manifests:    []ocispec.Descriptor{sa.ownDesc},
		Annotations:  map[string]string{AnnotationSuiteName: s.Name},
	}
	distinct := map[store.Hash]bool{}
	for _, h := range s.Packs {
		a, err := packArtifact(st, h)
		if err != nil {
			return nil, fmt.Errorf("suite %s: %w", s.Name, err)
		}
		p := suitePack{h: h, desc: a.desc, blobs: []sizedHash{{h, a.config.Size}}}
		for _, l := range a.layers {
			lh, _ := hashOf(l.Digest)
			p.blobs = append(p.blobs, sizedHash{lh, l.Size})
		}
		for _, b := range p.blobs {
			distinct[b.h] = true
		}
		sa.packs = append(sa.packs, p)
		d := a.desc
		d.ArtifactType = ArtifactType
		index.Manifests = append(index.Manifests, d)
	}
	if sa.index, err = json.Marshal(index); err != nil {
		return nil, err
	}
	if len(sa.index) > MaxManifestBytes {
		return nil, fmt.Errorf("suite %s names %d packs: as an OCI index that is %d bytes, more than the %d registries accept", s.Name, len(s.Packs), len(sa.index), MaxManifestBytes)
	}
	sa.desc = ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, ArtifactType: SuiteArtifactType,
		Digest: digest.FromBytes(sa.index), Size: int64(len(sa.index))}
	sa.distinctBlobs = len(distinct) + 1
	return sa, nil
}

// packArtifact is pack h of st as Push makes it an OCI artifact.
func packArtifact(st *store.Store, h store.Hash) (*artifact, error) {
	canon, err := st.ReadAll(h)
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", h, err)
	}
	m, err := pack.Parse(canon)
	if err != nil {
		return nil, fmt.Errorf("object %s is not a pack manifest: %w", h, err)
	}
	return newArtifact(h, canon, m, st.Stat)
}

// PushSuite sends suite s of st and all its packs to the repository of
// ref, tagged with ref's tag when it has one, as one OCI index. As Push
// does for a pack: when the tag names the index already, nothing is sent;
// a pack whose artifact the registry has is not looked into; of the
// others, each distinct blob the registry lacks is sent once, streamed
// from the store and verified as it is read. The packs' manifests go
// once their blobs are there, the suite's next, the index last. The
// packs' attestations stay behind (ctx push a pack to send its own).
func PushSuite(ctx context.Context, st *store.Store, s Suite, ref Ref, opts Options) (*PushedSuite, error) {
	if ref.Digest != "" {
		return nil, fmt.Errorf("%s names a digest; push to a repository (host/repo) or a tag (host/repo:tag)", ref)
	}
	sa, err := newSuiteArtifact(st, s)
	if err != nil {
		return nil, err
	}
	c, err := connect(ref, opts)
	if err != nil {
		return nil, err
	}
	res := &PushedSuite{Ref: ref.at(sa.desc.Digest), Digest: sa.desc.Digest.String(), Name: s.Name, Suite: s.Hash.URI(), Packs: len(s.Packs)}
	tagged, done, err := c.present(ctx, ref, sa.desc)
	if err != nil {
		return nil, err
	}
	if !done {
		if err := c.uploadSuite(ctx, st, s, sa, res); err != nil {
			return nil, err
		}
	} else {
		res.PacksSkipped, res.BlobsSkipped = len(sa.packs), sa.distinctBlobs
	}
	if err := c.pushTop(ctx, ref, sa.desc, sa.index, tagged, done); err != nil {
		return nil, err
	}
	return res, nil
}

// uploadSuite sends the blobs the registry lacks of every pack artifact
// it does not have, each once, then their manifests, then the suite's
// blob and manifest.
func (c *client) uploadSuite(ctx context.Context, st *store.Store, s Suite, sa *suiteArtifact, res *PushedSuite) error {
	missing, err := c.missingPacks(ctx, sa.packs)
	if err != nil {
		return err
	}
	res.PacksSkipped = len(sa.packs) - len(missing)
	seen := map[store.Hash]bool{}
	total := 1
	for _, p := range missing {
		for _, b := range p.blobs {
			if !seen[b.h] {
				seen[b.h] = true
				total++
			}
		}
	}
	clear(seen)
	blobs := func(yield func(blob) bool) {
		for _, p := range missing {
			for i, b := range p.blobs {
				if seen[b.h] {
					continue
				}
				seen[b.h] = true
				desc := ocispec.Descriptor{MediaType: LayerMediaType, Digest: digestOf(b.h), Size: b.size}
				if i == 0 {
					desc.MediaType = ConfigMediaType
				}
				if !yield(blob{desc: desc, where: p.where(st, b.h)}) {
					return
				}
			}
		}
		yield(blob{desc: sa.config, data: s.Canon, where: func() string { return "the suite object" }})
	}
	var there int // of these; the others are in the packs skipped
	if err := c.sendBlobs(ctx, st, blobs, Progress{Total: total}, &res.BlobsUploaded, &res.BytesUploaded, &there); err != nil {
		return err
	}
	res.BlobsSkipped = sa.distinctBlobs - res.BlobsUploaded
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.concurrency())
	for _, p := range missing {
		g.Go(func() error {
			a, err := packArtifact(st, p.h)
			if err != nil {
				return err
			}
			return c.fail(c.repo.Manifests().Push(gctx, a.desc, bytes.NewReader(a.raw)))
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return c.fail(c.repo.Manifests().Push(ctx, sa.ownDesc, bytes.NewReader(sa.own)))
}

// where says, for an error, which part of pack p blob h is: its artifact
// made again, as the error is rare and the suite's push keeps no map.
func (p suitePack) where(st *store.Store, h store.Hash) func() string {
	return func() string {
		if h == p.h {
			return fmt.Sprintf("the manifest of pack %s", p.h)
		}
		if a, err := packArtifact(st, p.h); err == nil && a.where[h] != "" {
			return fmt.Sprintf("%s of pack %s", a.where[h], p.h)
		}
		return fmt.Sprintf("an object of pack %s", p.h)
	}
}

// missingPacks returns the packs whose artifacts the registry does not
// have, asked a few at once.
func (c *client) missingPacks(ctx context.Context, packs []suitePack) ([]suitePack, error) {
	have := make([]bool, len(packs))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.concurrency())
	for i, p := range packs {
		g.Go(func() error {
			ok, err := c.repo.Manifests().Exists(gctx, p.desc)
			have[i] = ok
			return c.fail(err)
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	var out []suitePack
	for i, p := range packs {
		if !have[i] {
			out = append(out, p)
		}
	}
	return out, nil
}

// PulledSuite is what PullSuite did.
type PulledSuite struct {
	Ref    string     `json:"ref"`
	Digest string     `json:"digest"` // the digest of the OCI index
	Suite  store.Hash `json:"-"`
	// Pushed is the name the suite was pushed under, as the registry
	// says it ("" when it says none): not checked, clipped.
	Pushed          string `json:"-"`
	Packs           int    `json:"packs"`
	PacksIndexed    int    `json:"packs_indexed"` // packs whose index entry was written
	BlobsDownloaded int    `json:"blobs_downloaded"`
	BlobsSkipped    int    `json:"blobs_skipped"` // already in the store
	BytesDownloaded int64  `json:"bytes_downloaded"`
}

// Human is the note ctx suite pull prints on stderr.
func (p *PulledSuite) Human() string {
	return fmt.Sprintf("%s: %s, %s downloaded (%s), %d already here", p.Ref, text.Plural(p.Packs, "pack"),
		text.Plural(p.BlobsDownloaded, "blob"), text.Size(p.BytesDownloaded), p.BlobsSkipped)
}

// NotSuiteError says a reference names something other than a suite.
type NotSuiteError struct {
	Ref  string
	What string // "a ctx pack", "an OCI artifact (...)"
	Hint string
}

func (e *NotSuiteError) Error() string {
	return fmt.Sprintf("%s is not a ctx suite: it is %s; a suite is an OCI index of artifactType %s", e.Ref, e.What, SuiteArtifactType)
}

// ErrorHints say what to use instead.
func (e *NotSuiteError) ErrorHints() []string {
	if e.Hint == "" {
		return nil
	}
	return []string{e.Hint}
}

// PullSuite fetches the suite ref names (a tag or a digest) and all its
// packs into st, as Pull fetches one pack: the index, the suite's
// manifest and the suite object are checked first (sizes bounded, the
// object against its hash), then given to check (lib/suite's reader of
// the object, with the name the suite was pushed under), which may
// refuse it before anything else is fetched and says which packs it
// names; the index must list exactly their artifacts. Each pack is then checked as Pull checks one, every blob
// the store lacks is fetched once and verified as it streams, all held
// in one batch committed only when all are good, the packs' manifests
// and the suite object last; then the packs are indexed. On any error
// nothing of the suite is stored. refs/latest is not moved, and no ref
// names the suite object: the caller, holding the write lock across the
// call (so ctx gc cannot take the object first), names it.
func PullSuite(ctx context.Context, st *store.Store, ref Ref, opts Options, check func(pushed string, canon []byte) ([]store.Hash, error), interrupt func(abort func()) (stop func())) (*PulledSuite, error) {
	unlock, err := st.LockWrites()
	if err != nil {
		return nil, explain(err, fmt.Sprintf("nothing of %s was stored", ref))
	}
	defer unlock()
	var res *PulledSuite
	var packs []store.Hash
	err = inBatch(st, ref, interrupt, func(batch *store.Batch) (last []store.Hash, err error) {
		if res, packs, err = pullSuite(ctx, st, batch, ref, opts, check); err != nil {
			return nil, err
		}
		return append(slices.Clone(packs), res.Suite), nil
	})
	if err != nil {
		return nil, err
	}
	var entries []pack.IndexEntry
	for _, h := range packs {
		if pack.HasIndexEntry(st, h) {
			continue
		}
		e, err := pack.RebuildIndexEntry(st, h)
		if err != nil {
			return res, text.WithHints(&IndexError{Pack: h, Err: err}, "run 'ctx fsck --repair-index' to finish indexing what was stored")
		}
		entries = append(entries, e)
	}
	if err := pack.WriteIndexEntries(st, entries); err != nil {
		return res, text.WithHints(fmt.Errorf("the packs of %s are stored, but their index entries could not be written: %w", ref, err),
			"run 'ctx fsck --repair-index' to finish indexing what was stored")
	}
	res.PacksIndexed = len(entries)
	return res, nil
}

func pullSuite(ctx context.Context, st *store.Store, batch *store.Batch, ref Ref, opts Options, check func(string, []byte) ([]store.Hash, error)) (*PulledSuite, []store.Hash, error) {
	if ref.Tag == "" && ref.Digest == "" {
		return nil, nil, fmt.Errorf("%s names no tag or digest: pull host/repo:tag or host/repo@sha256:hex", ref)
	}
	c, err := connect(ref, opts)
	if err != nil {
		return nil, nil, err
	}
	desc, raw, err := c.fetchManifest(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	index, err := parseSuiteIndex(ref.String(), desc.MediaType, raw)
	if err != nil {
		return nil, nil, err
	}
	res := &PulledSuite{Ref: ref.String(), Digest: desc.Digest.String(), Pushed: text.Clip(index.Annotations[AnnotationSuiteName], 200)}
	canon, fetched, err := c.fetchSuite(ctx, st, ref.String(), index.Manifests[0])
	if err != nil {
		return nil, nil, err
	}
	res.Suite = store.Sum(canon)
	named, err := check(res.Pushed, canon)
	if err != nil {
		return nil, nil, err
	}
	want := map[store.Hash]bool{}
	for _, h := range named {
		want[h] = true
	}
	if len(index.Manifests)-1 != len(want) {
		return nil, nil, fmt.Errorf("%s: the index lists %d packs, the suite names %d", ref, len(index.Manifests)-1, len(want))
	}
	// What is kept of each pack is its hash and its blobs still to fetch
	// (its artifact and manifest are let go): a suite of 2,000 runs of
	// 40 steps has 84,000 blobs.
	var mu sync.Mutex
	var need []neededBlob
	seen := map[store.Hash]bool{}
	var packs []store.Hash
	err = c.pullPacks(ctx, st, batch, ref.String(), index.Manifests[1:], func(p *packPull) error {
		mu.Lock()
		defer mu.Unlock()
		if !want[p.h] {
			return fmt.Errorf("%s: the index lists pack %s, which the suite does not name (or lists it twice)", ref, p.h)
		}
		delete(want, p.h)
		packs = append(packs, p.h)
		res.countConfig(p.fetched, p.a.config.Size)
		for _, l := range p.a.layers {
			lh, _ := hashOf(l.Digest)
			switch {
			case seen[lh]:
			case p.needs[l.Digest]:
				need = append(need, neededBlob{lh, l.Size, p.h})
			default:
				res.BlobsSkipped++
			}
			seen[lh] = true
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	res.Packs = len(packs)
	descs := func(yield func(ocispec.Descriptor) bool) {
		for _, n := range need {
			if !yield(ocispec.Descriptor{MediaType: LayerMediaType, Digest: digestOf(n.h), Size: n.size}) {
				return
			}
		}
	}
	where := func(h store.Hash) string {
		for _, n := range need {
			if n.h == h {
				return whereInPack(batch, n.pack, h)
			}
		}
		return "an object"
	}
	if err := fits(st, ref.String(), descs, where); err != nil {
		return nil, nil, err
	}
	if fetched {
		if err := batch.PutExpectedBytes(res.Suite, canon); err != nil {
			return nil, nil, err
		}
	}
	res.countConfig(fetched, int64(len(canon)))
	err = c.download(ctx, batch, descs, where, Progress{Total: len(need)}, &res.BlobsDownloaded, &res.BytesDownloaded)
	return res, packs, err
}

// neededBlob is a blob of a suite's pull still to fetch, and its pack.
type neededBlob struct {
	h    store.Hash
	size int64
	pack store.Hash
}

// whereInPack says, for an error, which part of pack p object h is, from
// the pack's manifest as the batch holds it.
func whereInPack(batch *store.Batch, p, h store.Hash) string {
	if o, err := batch.Open(p); err == nil {
		b, err := io.ReadAll(io.LimitReader(o, MaxConfigBytes))
		o.Close()
		if m, perr := pack.Parse(b); err == nil && perr == nil {
			for _, r := range m.Refs() {
				if r.Hash == h {
					return fmt.Sprintf("%s of pack %s", r.Where, p)
				}
			}
		}
	}
	return fmt.Sprintf("an object of pack %s", p)
}

// countConfig counts a manifest object (a pack's or the suite's) as
// downloaded or found in the store.
func (p *PulledSuite) countConfig(fetched bool, size int64) {
	if fetched {
		p.BlobsDownloaded++
		p.BytesDownloaded += size
	} else {
		p.BlobsSkipped++
	}
}

// parseSuiteIndex checks a fetched manifest is a suite's index: its
// first manifest the suite's own, each other an image manifest of a ctx
// pack, none twice. A pack's artifact is refused, saying what it is.
func parseSuiteIndex(ref, mediaType string, raw []byte) (*ocispec.Index, error) {
	if mediaType == ocispec.MediaTypeImageManifest {
		var man ocispec.Manifest
		if json.Unmarshal(raw, &man) == nil && man.ArtifactType == ArtifactType {
			return nil, &NotSuiteError{Ref: ref, What: "a ctx pack", Hint: fmt.Sprintf("'ctx pull %s' fetches a pack", ref)}
		}
	}
	if mediaType != ocispec.MediaTypeImageIndex {
		return nil, &NotSuiteError{Ref: ref, What: fmt.Sprintf("%s (media type %s)", kindOf(mediaType), shown(mediaType))}
	}
	var index ocispec.Index
	if err := json.Unmarshal(raw, &index); err != nil {
		return nil, fmt.Errorf("%s: the index is not valid JSON: %v", ref, err)
	}
	if index.ArtifactType != SuiteArtifactType || len(index.Manifests) == 0 {
		return nil, &NotSuiteError{Ref: ref, What: fmt.Sprintf("an image index of artifactType %s", shown(index.ArtifactType))}
	}
	seen := map[digest.Digest]bool{}
	for i, d := range index.Manifests {
		kind := ArtifactType
		if i == 0 {
			kind = SuiteArtifactType
		}
		switch {
		case d.MediaType != ocispec.MediaTypeImageManifest || d.ArtifactType != kind:
			return nil, fmt.Errorf("%s: manifests[%d] is %s of artifactType %s, not a manifest of artifactType %s", ref, i, shown(d.MediaType), shown(d.ArtifactType), kind)
		case d.Size <= 0 || d.Size > MaxManifestBytes:
			return nil, fmt.Errorf("%s: manifests[%d] claims %d bytes (a manifest has 1 to %d)", ref, i, d.Size, MaxManifestBytes)
		case seen[d.Digest]:
			return nil, fmt.Errorf("%s: manifests[%d] names %s a second time", ref, i, shown(d.Digest.String()))
		}
		if _, err := hashOf(d.Digest); err != nil {
			return nil, fmt.Errorf("%s: manifests[%d]: %w", ref, i, err)
		}
		seen[d.Digest] = true
	}
	return &index, nil
}

// fetchManifestOf fetches the manifest d describes, exactly its size
// and checked against its digest.
func (c *client) fetchManifestOf(ctx context.Context, d ocispec.Descriptor) ([]byte, error) {
	rc, err := c.repo.Manifests().Fetch(ctx, d)
	if err != nil {
		return nil, c.fail(err)
	}
	defer rc.Close()
	raw, err := readExactly(rc, d.Size)
	if err != nil {
		return nil, c.fail(err)
	}
	if got := digest.FromBytes(raw); got != d.Digest {
		return nil, fmt.Errorf("the registry sent a manifest that hashes to %s, not %s", got, d.Digest)
	}
	return raw, nil
}

// fetchSuite fetches the suite's own manifest d and returns its config,
// the suite object (from the store when it has it), checked against its
// hash.
func (c *client) fetchSuite(ctx context.Context, st *store.Store, ref string, d ocispec.Descriptor) ([]byte, bool, error) {
	raw, err := c.fetchManifestOf(ctx, d)
	if err != nil {
		return nil, false, fmt.Errorf("%s: the suite's manifest: %w", ref, err)
	}
	var man ocispec.Manifest
	if err := json.Unmarshal(raw, &man); err != nil {
		return nil, false, fmt.Errorf("%s: the suite's manifest is not valid JSON: %v", ref, err)
	}
	switch {
	case man.ArtifactType != SuiteArtifactType || man.Config.MediaType != SuiteConfigMediaType:
		return nil, false, fmt.Errorf("%s: the suite's manifest has artifactType %s and config media type %s, not %s and %s", ref,
			shown(man.ArtifactType), shown(man.Config.MediaType), SuiteArtifactType, SuiteConfigMediaType)
	case len(man.Layers) != 0:
		return nil, false, fmt.Errorf("%s: the suite's manifest has %d layers, not none", ref, len(man.Layers))
	case man.Config.Size < 0 || man.Config.Size > MaxConfigBytes:
		return nil, false, fmt.Errorf("%s: the suite object claims %d bytes, more than the %d a suite object may have", ref, man.Config.Size, MaxConfigBytes)
	}
	h, err := hashOf(man.Config.Digest)
	if err != nil {
		return nil, false, fmt.Errorf("%s: the suite's config: %w", ref, err)
	}
	return c.fetchConfig(ctx, st, man.Config, h, "suite object")
}

// pullPacks fetches and checks the pack artifacts ds names, a few at
// once (pullPack): their manifests go into the batch, and each is given
// to each (one at a time), which says which of its layers the store
// lacks.
func (c *client) pullPacks(ctx context.Context, st *store.Store, batch *store.Batch, ref string, ds []ocispec.Descriptor, each func(*packPull) error) error {
	large := make(chan struct{}, largeAtOnce)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.concurrency())
	for i, d := range ds {
		g.Go(func() error {
			raw, err := c.fetchManifestOf(gctx, d)
			if err != nil {
				return fmt.Errorf("%s: manifests[%d]: %w", ref, i+1, err)
			}
			label := fmt.Sprintf("%s manifests[%d]", ref, i+1)
			a, h, err := parseArtifact(label, d.MediaType, raw)
			if err != nil {
				return err
			}
			// A pack manifest (up to MaxConfigBytes) is read whole: a
			// few large ones at a time.
			if a.config.Size > smallBlob {
				large <- struct{}{}
				defer func() { <-large }()
			}
			p, err := c.pullPack(gctx, st, batch, label, a, h)
			if err != nil {
				return err
			}
			return each(p)
		})
	}
	return g.Wait()
}
