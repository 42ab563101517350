package oci

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/interop"
	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/internal/registrytest"
	"github.com/contextsubstrate/ctx/internal/storetest"
	"github.com/contextsubstrate/ctx/lib/pack"
	"github.com/contextsubstrate/ctx/lib/store"
)

// shared is the registry every test of the package uses, each in its own
// repositories: one start for the whole binary.
var shared *registrytest.Registry

func TestMain(m *testing.M) {
	var stop func()
	if _, err := interop.Look("docker-registry"); err == nil {
		dir, err := os.MkdirTemp("", "ctx-oci-test-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		r, err := registrytest.Start(registrytest.Options{Dir: dir})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		shared = r
		stop = func() { r.Stop(); os.RemoveAll(dir) }
	}
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

// reg returns the shared registry, or skips (fails under
// CTX_REQUIRE_INTEROP) without one.
func reg(t *testing.T) *registrytest.Registry {
	t.Helper()
	if shared == nil {
		interop.Need(t, "docker-registry")
	}
	return shared
}

func plain() Options {
	return Options{PlainHTTP: true, Config: "/nonexistent/config.json", Attestations: testAttestations()}
}

func mustRef(t *testing.T, s string) Ref {
	t.Helper()
	r, err := ParseRef(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// runLog is a log with n inputs of its own (named by salt) and a few
// shared with every other run.
func runLog(salt string, n int) string {
	var inputs []map[string]string
	for i := 0; i < n; i++ {
		inputs = append(inputs, map[string]string{"name": fmt.Sprintf("src/f%03d.txt", i), "content": fmt.Sprintf("file %d of %s\n", i, salt)})
	}
	inputs = append(inputs, map[string]string{"name": "shared.txt", "content": "shared by every run\n"})
	b, _ := json.Marshal(map[string]any{
		"created": "2026-02-01T00:00:00Z",
		"model":   map[string]any{"identifier": "test-model"},
		"prompts": []any{map[string]any{"content": "task " + salt}},
		"inputs":  inputs,
		"steps":   []any{map[string]any{"tool": "read_file", "parameters": map[string]any{"path": "shared.txt"}, "output": "shared by every run\n"}},
	})
	return string(b)
}

func TestPushPullRoundTrip(t *testing.T) {
	r := reg(t)
	ctx := context.Background()
	src := storetest.New(t)
	h := packtest.Hash(t, packtest.Pack(t, src, runLog("a", 20)))
	ref := mustRef(t, r.Addr+"/roundtrip/runs:a")

	first, err := Push(ctx, src, h, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	// 20 inputs, the shared file (also the step's output), the prompt,
	// and the config.
	if first.BlobsUploaded != 23 || first.BlobsSkipped != 0 || first.Pack != h || first.Ref != ref.String() {
		t.Errorf("first push: %+v", first)
	}
	again, err := Push(ctx, src, h, ref, plain())
	if err != nil {
		t.Fatal(err)
	}
	if again.BlobsUploaded != 0 || again.BytesUploaded != 0 || again.BlobsSkipped != 23 || again.Digest != first.Digest {
		t.Errorf("second push: %+v", again)
	}

	// A pack sharing most of its objects uploads only its own.
	h2 := packtest.Hash(t, packtest.Pack(t, src, strings.Replace(runLog("a", 20), "task a", "task b", 1)))
	third, err := Push(ctx, src, h2, mustRef(t, r.Addr+"/roundtrip/runs:b"), plain())
	if err != nil {
		t.Fatal(err)
	}
	if third.BlobsUploaded != 2 || third.BlobsSkipped != 21 {
		t.Errorf("push of a pack sharing all but its prompt: %+v (want the prompt and the config uploaded)", third)
	}

	dst := storetest.New(t)
	pulled, err := Pull(ctx, dst, ref, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if pulled.Pack != h || pulled.BlobsDownloaded != 23 || pulled.Digest != first.Digest || !pulled.Indexed {
		t.Errorf("pull: %+v", pulled)
	}
	m, err := pack.Load(dst, h)
	if err != nil {
		t.Fatal(err)
	}
	if ps := pack.CheckClosure(dst, m); len(ps) > 0 {
		t.Errorf("pulled pack: %v", ps)
	}
	// The second pack needs only what the first did not bring.
	byDigest := mustRef(t, r.Addr+"/roundtrip/runs@"+third.Digest)
	pulled2, err := Pull(ctx, dst, byDigest, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if pulled2.Pack != h2 || pulled2.BlobsDownloaded != 2 || pulled2.BlobsSkipped != 21 {
		t.Errorf("pull of the second pack: %+v", pulled2)
	}
	// Pulling again downloads nothing.
	pulled3, err := Pull(ctx, dst, ref, plain(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if pulled3.BlobsDownloaded != 0 || pulled3.Indexed {
		t.Errorf("pull again: %+v", pulled3)
	}
}

func TestPullRefusesWhatIsNotAPack(t *testing.T) {
	r := reg(t)
	ctx := context.Background()
	st := storetest.New(t)
	for _, c := range []struct{ ref, want string }{
		{r.Addr + "/nothing/here:v1", "no such manifest"},
		{r.Addr + "/nothing/here", "names no tag or digest"},
	} {
		_, err := Pull(ctx, st, mustRef(t, c.ref), plain(), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pull %s: %v, want %q", c.ref, err, c.want)
		}
	}
}

func TestUnreachableRegistry(t *testing.T) {
	st := storetest.New(t)
	h := packtest.Hash(t, packtest.Pack(t, st, runLog("x", 1)))
	_, err := Push(context.Background(), st, h, mustRef(t, "127.0.0.1:1/team/runs:x"), plain())
	var re *RegistryError
	if !errors.As(err, &re) || re.Status != 0 || !strings.Contains(err.Error(), "127.0.0.1:1") || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("push to a closed port: %v", err)
	}
}

func TestParseRef(t *testing.T) {
	for _, c := range []struct {
		in, out, tag, digest string
		bad                  bool
	}{
		{in: "localhost:5000/team/runs:baseline", out: "localhost:5000/team/runs:baseline", tag: "baseline"},
		{in: "ghcr.io/org/runs", out: "ghcr.io/org/runs"},
		{in: "127.0.0.1:5000/a@sha256:" + strings.Repeat("ab", 32), out: "127.0.0.1:5000/a@sha256:" + strings.Repeat("ab", 32), digest: "sha256:" + strings.Repeat("ab", 32)},
		{in: "https://ghcr.io/org/runs", bad: true},
		{in: "runs", bad: true},
		{in: "localhost:5000/Team/runs", bad: true},
		{in: "localhost:5000/team/runs:-bad", bad: true},
	} {
		r, err := ParseRef(c.in)
		if c.bad {
			if err == nil {
				t.Errorf("%q: parsed as %+v", c.in, r)
			}
			continue
		}
		if err != nil || r.String() != c.out || r.Tag != c.tag || r.Digest != c.digest {
			t.Errorf("%q: %+v, %v", c.in, r, err)
		}
	}
}

// testArtifact packs a small run and describes it as an artifact.
func testArtifact(t testing.TB) (*store.Store, store.Hash, []byte, *pack.Manifest, *artifact) {
	t.Helper()
	st := storetest.New(t)
	h := packtest.Hash(t, packtest.Pack(t, st, runLog("s", 3)))
	canon, err := st.ReadAll(h)
	if err != nil {
		t.Fatal(err)
	}
	m, err := pack.Parse(canon)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newArtifact(h, canon, m, st.Stat)
	if err != nil {
		t.Fatal(err)
	}
	return st, h, canon, m, a
}

// TestArtifactIsStable: the OCI manifest of a pack depends on the pack
// alone.
func TestArtifactIsStable(t *testing.T) {
	st, h, canon, m, a1 := testArtifact(t)
	a2, _ := newArtifact(h, canon, m, st.Stat)
	if string(a1.raw) != string(a2.raw) {
		t.Error("two encodings of one pack differ")
	}
	back, ph, err := parseArtifact("r", a1.desc.MediaType, a1.raw)
	if err != nil || ph != h {
		t.Fatalf("parse: %v, %s", err, ph)
	}
	if err := back.checkLayers("r", h, m); err != nil {
		t.Error(err)
	}
	var doc map[string]any
	json.Unmarshal(a1.raw, &doc)
	ann := doc["annotations"].(map[string]any)
	if ann["org.opencontainers.image.created"] != "2026-02-01T00:00:00Z" || ann[AnnotationModel] != "test-model" || doc["artifactType"] != ArtifactType {
		t.Errorf("manifest: %s", a1.raw)
	}
	cfg := doc["config"].(map[string]any)
	if cfg["digest"] != h.String() || cfg["mediaType"] != ConfigMediaType {
		t.Errorf("config: %v", cfg)
	}
}
