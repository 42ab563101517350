package oci

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync"

	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Pushed is what Push did for one pack.
type Pushed struct {
	Ref           string     `json:"ref"`    // where the pack is now: host/repo:tag, or host/repo@digest untagged
	Digest        string     `json:"digest"` // the digest of its OCI manifest
	Pack          store.Hash `json:"pack"`
	BlobsUploaded int        `json:"blobs_uploaded"`
	BlobsSkipped  int        `json:"blobs_skipped"` // the registry had them already
	BytesUploaded int64      `json:"bytes_uploaded"`
	// Attestations are the pack's attestations, each a referrer of the
	// artifact in the registry now; null with NoAttestations.
	Attestations []PushedAttestation `json:"attestations"`
}

// Human is the sentence ctx push --human prints.
func (p *Pushed) Human() string {
	sent := count(p.Attestations, func(a PushedAttestation) bool { return a.Uploaded })
	return fmt.Sprintf("pushed %s to %s: %s sent (%s), %d already there",
		p.Pack.URI(), p.Ref, text.Plural(p.BlobsUploaded, "blob"), text.Size(p.BytesUploaded), p.BlobsSkipped) +
		attestationsSaid(len(p.Attestations), sent, "sent", "there")
}

// Push sends pack h of st to the repository of ref, tagged with ref's tag
// when it has one. Each blob the registry lacks is streamed from the store
// (and verified as it is read); one it has is not sent; when the registry
// has the whole artifact already, no blob is even asked about. The OCI
// manifest goes last, once every blob is there. Then, unless
// opts.NoAttestations, each attestation of the pack goes as a referrer of
// the artifact (see pushAttestations).
func Push(ctx context.Context, st *store.Store, h store.Hash, ref Ref, opts Options) (*Pushed, error) {
	if ref.Digest != "" {
		return nil, fmt.Errorf("%s names a digest; push to a repository (host/repo) or a tag (host/repo:tag)", ref)
	}
	canon, err := st.ReadAll(h)
	if err != nil {
		return nil, err
	}
	m, err := pack.Parse(canon)
	if err != nil {
		return nil, fmt.Errorf("object %s is not a pack manifest: %w", h, err)
	}
	a, err := newArtifact(h, canon, m, st.Stat)
	if err != nil {
		return nil, err
	}
	c, err := connect(ref, opts)
	if err != nil {
		return nil, err
	}
	res := &Pushed{Digest: a.desc.Digest.String(), Pack: h, Ref: ref.at(a.desc.Digest)}
	tagged, done, err := c.present(ctx, ref, a.desc)
	if err != nil {
		return nil, err
	}
	if done {
		res.BlobsSkipped = 1 + len(a.layers)
	} else if err := c.upload(ctx, st, a, canon, res); err != nil {
		return nil, err
	}
	if err := c.pushTop(ctx, ref, a.desc, a.raw, tagged, done); err != nil {
		return nil, err
	}
	if opts.movesAttestations() {
		if res.Attestations, err = c.pushAttestations(ctx, st, h, a.desc); err != nil {
			return nil, explain(fmt.Errorf("the pack is at %s, but not all of its attestations: %w", res.Ref, err),
				"push again to send them, or push with --no-attestations to leave them behind")
		}
	}
	return res, nil
}

// pushTop sends the manifest at the top of an artifact (a pack's, a
// suite's index), once all it names is there: tagged with ref's tag,
// else by digest; not at all when the tag names it already, or when it
// is there and there is no tag to set.
func (c *client) pushTop(ctx context.Context, ref Ref, desc ocispec.Descriptor, raw []byte, tagged, done bool) error {
	var err error
	switch {
	case tagged:
	case ref.Tag != "":
		err = c.repo.Manifests().PushReference(ctx, desc, bytes.NewReader(raw), ref.Tag)
	case !done:
		err = c.repo.Manifests().Push(ctx, desc, bytes.NewReader(raw))
	}
	return c.fail(err)
}

// present asks the registry whether ref's tag already names the
// artifact (then there is nothing to send, not even the manifest, which a
// registry checks blob by blob when it receives one), else whether it has
// the manifest (then it has every blob: a registry accepts a manifest
// only when it has them).
func (c *client) present(ctx context.Context, ref Ref, desc ocispec.Descriptor) (tagged, done bool, err error) {
	if ref.Tag != "" {
		d, err := c.repo.Manifests().Resolve(ctx, ref.Tag)
		switch {
		case err == nil && d.Digest == desc.Digest:
			return true, true, nil
		case err != nil && !isNotFound(err):
			return false, false, c.fail(err)
		}
	}
	done, err = c.repo.Manifests().Exists(ctx, desc)
	return false, done, c.fail(err)
}

// upload sends the config and every layer the registry lacks, a few at
// once.
func (c *client) upload(ctx context.Context, st *store.Store, a *artifact, canon []byte, res *Pushed) error {
	blobs := []blob{{desc: a.config, data: canon, where: func() string { return "the pack manifest" }}}
	for _, l := range a.layers {
		h, _ := hashOf(l.Digest)
		blobs = append(blobs, blob{desc: l, where: func() string { return a.where[h] }})
	}
	return c.sendBlobs(ctx, st, slices.Values(blobs), Progress{Total: len(blobs)}, &res.BlobsUploaded, &res.BytesUploaded, &res.BlobsSkipped)
}

// blob is one blob to send: data when it is in memory, else the store's
// object of its digest; where says which part of a pack it is, for
// errors.
type blob struct {
	desc  ocispec.Descriptor
	data  []byte
	where func() string
}

// sendBlobs sends each blob the registry lacks, a few at once (taken
// from blobs as workers come free, so they need not all be in memory),
// and counts each as sent (in sent and sentBytes) or found there already
// (in skipped), and in prog, which it reports (Options.Progress).
func (c *client) sendBlobs(ctx context.Context, st *store.Store, blobs iter.Seq[blob], prog Progress, sent *int, sentBytes *int64, skipped *int) error {
	var mu sync.Mutex
	report := func(uploaded bool, n int64) {
		mu.Lock()
		defer mu.Unlock()
		prog.Done++
		if uploaded {
			*sent++
			*sentBytes += n
			prog.Bytes += n
		} else {
			*skipped++
		}
		if c.opts.Progress != nil {
			c.opts.Progress(prog)
		}
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.concurrency())
	for b := range blobs {
		if gctx.Err() != nil {
			break // a blob failed: the others are not sent
		}
		g.Go(func() error {
			have, err := c.repo.Blobs().Exists(gctx, b.desc)
			if err != nil {
				return c.fail(err)
			}
			if have {
				report(false, 0)
				return nil
			}
			if b.data != nil {
				err = c.repo.Blobs().Push(gctx, b.desc, bytes.NewReader(b.data))
			} else {
				err = c.pushObject(gctx, st, b.desc)
			}
			if err != nil {
				return c.blobError(b, err)
			}
			report(true, b.desc.Size)
			return nil
		})
	}
	return g.Wait()
}

// pushObject streams one object from the store.
func (c *client) pushObject(ctx context.Context, st *store.Store, d ocispec.Descriptor) error {
	h, err := hashOf(d.Digest)
	if err != nil {
		return err
	}
	o, err := st.Open(h)
	if err != nil {
		return err
	}
	defer o.Close()
	// Only Read: the object checks its hash at the end of the stream, so
	// a damaged one fails the upload rather than reaching the registry.
	return c.repo.Blobs().Push(ctx, d, struct{ io.Reader }{o})
}

// blobError names the object of a failed upload and the part of the pack
// it is.
func (c *client) blobError(b blob, err error) error {
	h, _ := hashOf(b.desc.Digest)
	var corrupt *store.CorruptError
	var missing *store.NotFoundError
	switch {
	case errors.As(err, &corrupt):
		return fmt.Errorf("%s: %w (run 'ctx fsck'); nothing was tagged or pushed as a manifest", b.where(), corrupt)
	case errors.As(err, &missing):
		return fmt.Errorf("%s: %w", b.where(), missing)
	}
	return fmt.Errorf("%s %s: %w", b.where(), h, c.fail(err))
}
