package oci

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	specs "github.com/opencontainers/image-spec/specs-go"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// testSuite is a suite of n runs sharing a file, stored in st: its object
// here is the JSON list of its packs (lib/oci never reads it; lib/suite's
// format is lib/suite's), and check reads that list back.
func testSuite(t *testing.T, st *store.Store, salt string, n int) Suite {
	t.Helper()
	s := Suite{Name: "nightly"}
	for i := range n {
		s.Packs = append(s.Packs, packtest.Hash(t, packtest.Pack(t, st, runLog(fmt.Sprint(salt, i), 3))))
	}
	s.Canon, _ = json.Marshal(s.Packs)
	h, _, err := st.PutObject(s.Canon)
	if err != nil {
		t.Fatal(err)
	}
	s.Hash = h
	return s
}

func packsIn(_ string, canon []byte) ([]store.Hash, error) {
	var packs []store.Hash
	return packs, json.Unmarshal(canon, &packs)
}

// TestSuiteRoundTrip: a suite and its packs go as one index and come back
// into an empty store whole: the same objects, every pack indexed. Pushed
// again, nothing is sent; a pack pushed alone before is not sent again;
// pulled again, nothing is downloaded.
func TestSuiteRoundTrip(t *testing.T) {
	r := reg(t)
	ctx := context.Background()
	src := storetest.New(t)
	s := testSuite(t, src, "run", 4)
	if _, err := Push(ctx, src, s.Packs[0], mustRef(t, r.Addr+"/suites/rt:alone"), plain()); err != nil {
		t.Fatal(err)
	}
	ref := mustRef(t, r.Addr+"/suites/rt:nightly")
	first, err := PushSuite(ctx, src, s, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	// Each run: 3 inputs of its own, its prompt, its manifest; the shared
	// file once; the suite object. The pack pushed alone is not sent.
	if first.Packs != 4 || first.PacksSkipped != 1 || first.BlobsUploaded != 3*5+1 || first.BlobsSkipped != 5+1 || first.Ref != ref.String() {
		t.Errorf("first push: %+v", first)
	}
	again, err := PushSuite(ctx, src, s, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	if again.BlobsUploaded != 0 || again.PacksSkipped != 4 || again.BlobsSkipped != first.BlobsUploaded+first.BlobsSkipped || again.Digest != first.Digest {
		t.Errorf("push again: %+v", again)
	}

	dst := storetest.New(t)
	pulled, err := PullSuite(ctx, dst, ref, plain(), packsIn, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Suite != s.Hash || pulled.Pushed != "nightly" || pulled.Packs != 4 || pulled.PacksIndexed != 4 ||
		pulled.BlobsDownloaded != first.BlobsUploaded+first.BlobsSkipped || pulled.BlobsSkipped != 0 {
		t.Errorf("pull: %+v", pulled)
	}
	for _, h := range s.Packs {
		m, err := pack.Load(dst, h)
		if err != nil {
			t.Fatal(err)
		}
		if ps := pack.CheckClosure(dst, m); len(ps) > 0 || !pack.HasIndexEntry(dst, h) {
			t.Errorf("pulled pack %s: %v, indexed %v", h, ps, pack.HasIndexEntry(dst, h))
		}
	}
	if b, err := dst.ReadAll(s.Hash); err != nil || !bytes.Equal(b, s.Canon) {
		t.Errorf("suite object: %q, %v", b, err)
	}
	if _, err := dst.ReadRef(store.LatestRef); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a suite pull moved refs/latest: %v", err)
	}
	again2, err := PullSuite(ctx, dst, mustRef(t, r.Addr+"/suites/rt@"+first.Digest), plain(), packsIn, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again2.BlobsDownloaded != 0 || again2.PacksIndexed != 0 {
		t.Errorf("pull again: %+v", again2)
	}
}

// TestPullSuiteRefusesWhatIsNotItsSuite: an index that lists a pack the
// suite does not name, leaves one out, or is no suite's at all is refused
// before anything is stored, as is a check that refuses the suite.
func TestPullSuiteRefusesWhatIsNotItsSuite(t *testing.T) {
	r := reg(t)
	ctx := context.Background()
	src := storetest.New(t)
	s := testSuite(t, src, "run", 3)
	other := testSuite(t, src, "other", 1)
	if _, err := PushSuite(ctx, src, s, mustRef(t, r.Addr+"/suites/bad:good"), plain()); err != nil {
		t.Fatal(err)
	}
	if _, err := PushSuite(ctx, src, other, mustRef(t, r.Addr+"/suites/bad:other"), plain()); err != nil {
		t.Fatal(err)
	}
	if _, err := Push(ctx, src, s.Packs[0], mustRef(t, r.Addr+"/suites/bad:pack"), plain()); err != nil {
		t.Fatal(err)
	}
	good, _ := newSuiteArtifact(src, s)
	lone, _ := newSuiteArtifact(src, other)
	c, err := connect(mustRef(t, r.Addr+"/suites/bad"), plain())
	if err != nil {
		t.Fatal(err)
	}
	// push tags an index of the given manifests (the first the suite's own).
	push := func(tag string, ds ...ocispec.Descriptor) {
		raw, _ := json.Marshal(ocispec.Index{Versioned: specs.Versioned{SchemaVersion: 2}, MediaType: ocispec.MediaTypeImageIndex,
			ArtifactType: SuiteArtifactType, Manifests: ds})
		d := ocispec.Descriptor{MediaType: ocispec.MediaTypeImageIndex, Digest: digest.FromBytes(raw), Size: int64(len(raw))}
		if err := c.repo.Manifests().PushReference(ctx, d, bytes.NewReader(raw), tag); err != nil {
			t.Fatal(err)
		}
	}
	packDesc := func(p suitePack) ocispec.Descriptor {
		d := p.desc
		d.ArtifactType = ArtifactType
		return d
	}
	push("extra", good.ownDesc, packDesc(good.packs[0]), packDesc(good.packs[1]), packDesc(good.packs[2]), packDesc(lone.packs[0]))
	push("short", good.ownDesc, packDesc(good.packs[0]), packDesc(good.packs[1]))
	push("swapped", good.ownDesc, packDesc(good.packs[0]), packDesc(good.packs[1]), packDesc(lone.packs[0]))
	push("packfirst", packDesc(good.packs[0]), good.ownDesc)
	for _, c := range []struct{ tag, want string }{
		{"extra", "the index lists 4 packs, the suite names 3"},
		{"short", "the index lists 2 packs, the suite names 3"},
		{"swapped", "which the suite does not name"},
		{"packfirst", "manifests[0] is application/vnd.oci.image.manifest.v1+json of artifactType " + ArtifactType + ", not a manifest of artifactType " + SuiteArtifactType},
		{"pack", "is not a ctx suite: it is a ctx pack"},
		{"nothing", "no such manifest"},
	} {
		dst := storetest.New(t)
		_, err := PullSuite(ctx, dst, mustRef(t, r.Addr+"/suites/bad:"+c.tag), plain(), packsIn, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pull %s: %v, want %q", c.tag, err, c.want)
		}
		if n, _, _ := dst.ObjectNames(); len(n) != 0 {
			t.Errorf("pull %s stored %d objects", c.tag, len(n))
		}
	}
	// A check that refuses: nothing fetched past the suite object.
	dst := storetest.New(t)
	_, err = PullSuite(ctx, dst, mustRef(t, r.Addr+"/suites/bad:good"), plain(), func(string, []byte) ([]store.Hash, error) {
		return nil, errors.New("name taken")
	}, nil)
	if err == nil || !strings.Contains(err.Error(), "name taken") {
		t.Errorf("refused by check: %v", err)
	}
	if n, _, _ := dst.ObjectNames(); len(n) != 0 {
		t.Errorf("a refused pull stored %d objects", len(n))
	}
}
