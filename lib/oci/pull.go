package oci

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sync"
	"time"

	"github.com/opencontainers/go-digest"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"golang.org/x/sync/errgroup"

	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
	"github.com/contextsubstrate/ctx/lib/text"
)

// Pulled is what Pull did for one reference.
type Pulled struct {
	Ref             string     `json:"ref"`
	Digest          string     `json:"digest"` // the digest of the OCI manifest
	Pack            store.Hash `json:"pack"`
	BlobsDownloaded int        `json:"blobs_downloaded"`
	BlobsSkipped    int        `json:"blobs_skipped"` // already in the store
	BytesDownloaded int64      `json:"bytes_downloaded"`
	Indexed         bool       `json:"indexed"` // the pack's index entry was written
	// Attestations are the attestations of the pack the registry has as
	// referrers, now in the store; null with NoAttestations.
	Attestations []PulledAttestation `json:"attestations"`
}

// Human is the note ctx pull prints on stderr.
func (p *Pulled) Human() string {
	got := count(p.Attestations, func(a PulledAttestation) bool { return a.Downloaded })
	return fmt.Sprintf("%s: %s downloaded (%s), %d already here", p.Ref, text.Plural(p.BlobsDownloaded, "blob"), text.Size(p.BytesDownloaded), p.BlobsSkipped) +
		attestationsSaid(len(p.Attestations), got, "downloaded", "here")
}

// smallBlob is the size up to which a blob is read into memory, checked,
// then stored; larger ones are streamed into the store.
const smallBlob = 1 << 20

// largeAtOnce is how many large blobs stream at once, each with the
// store's buffers: memory stays bounded however many are large.
const largeAtOnce = 2

// Pull fetches the pack ref names (a tag or a digest) into st through a
// new store batch: the OCI manifest and the pack manifest are checked
// (their sizes bounded, the layers exactly the pack's objects, the whole
// within the free space of the store), then every blob the store lacks is
// fetched, verified against its digest as it streams and held in the
// batch; only when all are good is the batch committed, the pack manifest
// last, and the pack indexed. On any error the batch is aborted and
// nothing of the artifact is stored; the error says so, with the
// registry's hints when it refused. interrupt, when set, is given what
// undoes the pull, to run on an interrupt (cli.OnSignal).
//
// Then, unless opts.NoAttestations, the attestations of the pack the
// registry has as referrers of the artifact are stored (see
// pullAttestations), each whole or not at all. When one is refused, or
// the pack cannot be indexed, Pull returns what it stored with the error.
func Pull(ctx context.Context, st *store.Store, ref Ref, opts Options, interrupt func(abort func()) (stop func())) (*Pulled, error) {
	// Until the pack is indexed, ctx gc deletes nothing (store.LockWrites).
	unlock, err := st.LockWrites()
	if err != nil {
		return nil, explain(err, fmt.Sprintf("nothing of %s was stored", ref))
	}
	defer unlock()
	var res *Pulled
	var m *pack.Manifest
	var c *client
	err = inBatch(st, ref, interrupt, func(batch *store.Batch) (last []store.Hash, err error) {
		if res, m, c, err = pull(ctx, st, batch, ref, opts); err != nil {
			return nil, err
		}
		return []store.Hash{res.Pack}, nil
	})
	if err != nil {
		return nil, err
	}
	if !pack.IndexCurrent(st, res.Pack, m) {
		if _, err := pack.Reindex(st, res.Pack); err != nil {
			return res, text.WithHints(&IndexError{Pack: res.Pack, Err: err}, "run 'ctx fsck --repair-index' to finish indexing what was stored")
		}
		res.Indexed = true
	}
	// As ctx pack names what it made latest, so does a pull.
	if _, err := pack.SetLatest(st, res.Pack, time.Now()); err != nil {
		return res, text.WithHints(fmt.Errorf("pack %s is stored and indexed, but refs/latest could not name it: %w", res.Pack, err), "pull again, or name the pack by its hash")
	}
	if !opts.movesAttestations() {
		return res, nil
	}
	subject := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageManifest, Digest: digest.Digest(res.Digest)}
	res.Attestations, err = c.pullAttestations(ctx, st, res.Pack, subject)
	var refused *RefusedError
	if err != nil && !errors.As(err, &refused) {
		err = explain(fmt.Errorf("pack %s is stored, but not its attestations: %w", res.Pack, err), "pull again to fetch them, or pull with --no-attestations to leave them behind")
	}
	return res, err
}

// inBatch fills a new batch of st (fill returns the objects to link
// last: the manifests) and commits it. On an error, or an interrupt
// (interrupt, when set, is given what undoes the batch), the batch is
// aborted and the error says that nothing of ref was stored.
func inBatch(st *store.Store, ref Ref, interrupt func(abort func()) (stop func()), fill func(*store.Batch) ([]store.Hash, error)) error {
	batch := st.NewBatch()
	stop := func() {}
	if interrupt != nil {
		stop = interrupt(batch.Abort)
	}
	last, err := fill(batch)
	if err == nil {
		if err = batch.CommitLast(last); err != nil {
			err = fmt.Errorf("cannot store the objects of %s: %w", ref, err)
		}
	}
	stop()
	if err != nil {
		batch.Abort()
		return explain(err, fmt.Sprintf("nothing of %s was stored", ref))
	}
	return nil
}

// explain gives err the hints it holds already (a registry's refusal's,
// a caller's), if any, then more.
func explain(err error, more ...string) error {
	var h interface{ ErrorHints() []string }
	var hints []string
	if errors.As(err, &h) {
		hints = h.ErrorHints()
	}
	return text.WithHints(err, append(hints, more...)...)
}

// IndexError says a pulled pack is stored whole but could not be indexed;
// 'ctx fsck --repair-index' finishes the work.
type IndexError struct {
	Pack store.Hash
	Err  error
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("pack %s is stored, but its index entry could not be written: %v", e.Pack, e.Err)
}

// Unwrap returns the reason.
func (e *IndexError) Unwrap() error { return e.Err }

func pull(ctx context.Context, st *store.Store, batch *store.Batch, ref Ref, opts Options) (*Pulled, *pack.Manifest, *client, error) {
	if ref.Tag == "" && ref.Digest == "" {
		return nil, nil, nil, fmt.Errorf("%s names no tag or digest: pull host/repo:tag or host/repo@sha256:hex", ref)
	}
	c, err := connect(ref, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	desc, raw, err := c.fetchManifest(ctx, ref)
	if err != nil {
		return nil, nil, nil, err
	}
	a, h, err := parseArtifact(ref.String(), desc.MediaType, raw)
	if err != nil {
		return nil, nil, nil, err
	}
	p, err := c.pullPack(ctx, st, batch, ref.String(), a, h)
	if err != nil {
		return nil, nil, nil, err
	}
	res := &Pulled{Ref: ref.String(), Digest: desc.Digest.String(), Pack: p.h}
	where := func(h store.Hash) string { return p.a.where[h] }
	if err := fits(st, ref.String(), slices.Values(p.need), where); err != nil {
		return nil, nil, nil, err
	}
	if p.fetched {
		res.BlobsDownloaded++
		res.BytesDownloaded += p.a.config.Size
	} else {
		res.BlobsSkipped++
	}
	res.BlobsSkipped += len(p.a.layers) - len(p.need)
	prog := Progress{Total: len(p.a.layers) + 1, Done: len(p.a.layers) + 1 - len(p.need)}
	err = c.download(ctx, batch, slices.Values(p.need), where, prog, &res.BlobsDownloaded, &res.BytesDownloaded)
	if err != nil {
		return nil, nil, nil, err
	}
	return res, p.m, c, nil
}

// packPull is a pack artifact being pulled: its manifest object is in
// the batch (or the store), its layers checked against it.
type packPull struct {
	a       *artifact
	h       store.Hash // the pack
	m       *pack.Manifest
	need    []ocispec.Descriptor // the layers neither the store nor the batch has
	needs   map[digest.Digest]bool
	fetched bool // the pack manifest was downloaded
}

// pullPack gets the pack manifest h of artifact a (parseArtifact; ref
// names it in messages) from the store or the registry into the batch,
// checks the layers against it, and says which layers are still to
// fetch. Nothing else is fetched.
func (c *client) pullPack(ctx context.Context, st *store.Store, batch *store.Batch, ref string, a *artifact, h store.Hash) (*packPull, error) {
	canon, fetched, err := c.fetchConfig(ctx, st, a.config, h, "pack manifest")
	if err != nil {
		return nil, err
	}
	m, err := pack.Parse(canon)
	if err != nil {
		return nil, fmt.Errorf("%s: its config %s is not a pack manifest: %w", ref, h, err)
	}
	if err := a.checkLayers(ref, h, m); err != nil {
		return nil, err
	}
	p := &packPull{a: a, h: h, m: m, fetched: fetched, needs: map[digest.Digest]bool{}}
	for _, l := range a.layers {
		lh, _ := hashOf(l.Digest)
		if batch.Has(lh) {
			if err := checkLocal(st, lh, l.Size, a.where[lh]); err != nil {
				return nil, err
			}
			continue
		}
		p.need = append(p.need, l)
		p.needs[l.Digest] = true
	}
	if fetched {
		if err := batch.PutExpectedBytes(h, canon); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// fits checks that the blobs of need fit in the space free for the
// store, each and all together, before any is fetched; ref and where
// name them in the error.
func fits(st *store.Store, ref string, need iter.Seq[ocispec.Descriptor], where func(store.Hash) string) error {
	free, bounded := freeSpace(st.Root())
	if !bounded {
		return nil
	}
	var total int64
	for l := range need {
		total += l.Size // each at most the free space, checked here, so it cannot overflow
		if l.Size > free || total > free {
			lh, _ := hashOf(l.Digest)
			return fmt.Errorf("%s: its objects claim more than the %d bytes free for the store (%s claims %d)", ref, free, where(lh), l.Size)
		}
	}
	return nil
}

// fetchManifest fetches the OCI manifest ref names, bounded in size and
// checked against its digest.
func (c *client) fetchManifest(ctx context.Context, ref Ref) (ocispec.Descriptor, []byte, error) {
	name := ref.Tag
	if ref.Digest != "" {
		name = ref.Digest
	}
	desc, rc, err := c.repo.Manifests().FetchReference(ctx, name)
	if err != nil {
		if isNotFound(err) {
			return desc, nil, fmt.Errorf("%s: no such manifest in the registry %s", ref, ref.Registry)
		}
		return desc, nil, c.fail(err)
	}
	defer rc.Close()
	if desc.Size < 0 || desc.Size > MaxManifestBytes {
		return desc, nil, fmt.Errorf("%s: the registry says its manifest has %d bytes, more than the %d a manifest may have", ref, desc.Size, MaxManifestBytes)
	}
	raw, err := readExactly(rc, desc.Size)
	if err != nil {
		return desc, nil, fmt.Errorf("%s: manifest: %w", ref, c.fail(err))
	}
	if got := digest.FromBytes(raw); got != desc.Digest || ref.Digest != "" && got.String() != ref.Digest {
		return desc, nil, fmt.Errorf("%s: the manifest the registry sent hashes to %s, not %s", ref, got, desc.Digest)
	}
	return desc, raw, nil
}

// fetchConfig returns the pack manifest: from the store when it has it,
// else fetched, bounded and checked against the pack hash.
func (c *client) fetchConfig(ctx context.Context, st *store.Store, config ocispec.Descriptor, h store.Hash, what string) ([]byte, bool, error) {
	if st.Has(h) {
		if n, err := st.Stat(h); err == nil && n == config.Size {
			b, err := st.ReadAll(h)
			return b, false, err
		}
	}
	rc, err := c.repo.Blobs().Fetch(ctx, config)
	if err != nil {
		return nil, false, c.fail(err)
	}
	defer rc.Close()
	b, err := readExactly(rc, config.Size)
	if err != nil {
		return nil, false, fmt.Errorf("%s %s: %w", what, h, c.fail(err))
	}
	if got := store.Sum(b); got != h {
		return nil, false, &BlobError{Where: "the " + what, Hash: h, Err: &store.MismatchError{Hash: h, Actual: got}}
	}
	return b, true, nil
}

// download fetches the blobs of need into the batch, a few at once, each
// verified as it streams, and counts each once it is held in blobs and
// bytes, and in prog, which it reports (Options.Progress); where names
// the part of a pack each is, for errors.
func (c *client) download(ctx context.Context, batch *store.Batch, need iter.Seq[ocispec.Descriptor], where func(store.Hash) string, prog Progress, blobs *int, bytes *int64) error {
	var mu sync.Mutex
	report := func(n int64) {
		mu.Lock()
		defer mu.Unlock()
		*blobs++
		*bytes += n
		prog.Done++
		prog.Bytes += n
		if c.opts.Progress != nil {
			c.opts.Progress(prog)
		}
	}
	large := make(chan struct{}, largeAtOnce)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(c.opts.concurrency())
	for d := range need {
		if gctx.Err() != nil {
			break // a blob failed: the others are not fetched
		}
		g.Go(func() error {
			h, _ := hashOf(d.Digest)
			if d.Size > smallBlob {
				large <- struct{}{}
				defer func() { <-large }()
			}
			if err := c.fetchBlob(gctx, batch, d, h); err != nil {
				return &BlobError{Where: where(h), Hash: h, Err: err}
			}
			report(d.Size)
			return nil
		})
	}
	return g.Wait()
}

// fetchBlob fetches one blob into the batch: exactly d.Size bytes that
// hash to h, or an error and nothing kept.
func (c *client) fetchBlob(ctx context.Context, batch *store.Batch, d ocispec.Descriptor, h store.Hash) error {
	rc, err := c.repo.Blobs().Fetch(ctx, d)
	if err != nil {
		return c.fail(err)
	}
	defer rc.Close()
	if d.Size <= smallBlob {
		b, err := readExactly(rc, d.Size)
		if err != nil {
			return c.fail(err)
		}
		return batch.PutExpectedBytes(h, b)
	}
	n, err := batch.PutExpected(h, io.LimitReader(rc, d.Size+1))
	switch {
	case n > d.Size:
		return fmt.Errorf("the registry sent more than the %d bytes the manifest says", d.Size)
	case n < d.Size && (err == nil || errors.As(err, new(*store.MismatchError))):
		return fmt.Errorf("the registry sent %d bytes, not the %d the manifest says", n, d.Size)
	}
	if err != nil {
		return c.fail(err)
	}
	return nil
}

// BlobError says which blob of an artifact could not be pulled, and
// which part of the pack it is.
type BlobError struct {
	Where string // the part of the pack: "inputs[2] (src/a.go)"
	Hash  store.Hash
	Err   error
}

func (e *BlobError) Error() string {
	var mm *store.MismatchError
	if errors.As(e.Err, &mm) {
		return fmt.Sprintf("%s: the registry sent bytes for %s that hash to %s: refused", e.Where, e.Hash, mm.Actual)
	}
	return fmt.Sprintf("%s %s: %v", e.Where, e.Hash, e.Err)
}

// Unwrap returns the reason.
func (e *BlobError) Unwrap() error { return e.Err }

// checkLocal checks that an object the store has is the size the artifact
// says; another size is a damaged copy, which is never silently kept.
func checkLocal(st *store.Store, h store.Hash, size int64, where string) error {
	n, err := st.Stat(h)
	if err != nil {
		return err
	}
	if n != size {
		return fmt.Errorf("%s: this store's copy of %s has %d bytes, the artifact's %d: the copy is damaged (run 'ctx fsck')", where, h, n, size)
	}
	return nil
}

// readExactly reads exactly n bytes, and fails when r has fewer or more.
// A small n is read into a buffer of its size; a larger one grows with
// what arrives, so a size claimed but never sent costs nothing.
func readExactly(r io.Reader, n int64) ([]byte, error) {
	var b []byte
	var err error
	if n <= smallBlob {
		b = make([]byte, n+1)
		var got int
		got, err = io.ReadFull(r, b)
		b = b[:got]
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			err = nil
		}
	} else {
		b, err = io.ReadAll(io.LimitReader(r, n+1))
	}
	switch {
	case err != nil:
		return nil, err
	case int64(len(b)) > n:
		return nil, fmt.Errorf("the registry sent more than the %d bytes the manifest says", n)
	case int64(len(b)) < n:
		return nil, fmt.Errorf("the registry sent %d bytes, not the %d the manifest says", len(b), n)
	}
	return b, nil
}
