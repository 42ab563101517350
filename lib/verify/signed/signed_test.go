package signed

import (
	"context"
	"slices"
	"testing"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/lib/attest"
	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
	"github.com/contextsubstrate/ctx/lib/verify"
)

// TestSignPackAndAttestPack: ctx pack --sign adds its attestation to the
// sidecars it wrote, ctx attest to those under its root (or to none), and
// either makes the artifacts signed under the key's checker.
func TestSignPackAndAttestPack(t *testing.T) {
	ctx := context.Background()
	f := packtest.TwoArtifacts(t)
	attestations := func(name string) []string {
		sc, err := sidecar.Read(f.Path(name))
		if err != nil {
			t.Fatal(err)
		}
		return sc.Attestations
	}
	var warned []string
	warn := func(s string) { warned = append(warned, s) }
	sidecar.WriteAll(f.Manifest, f.Result.Artifacts, warn)
	key1, err := attest.GenerateKey(attest.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := SignPack(ctx, f.Store, f.Result, key1, true, warn)
	if err != nil || len(warned) > 0 {
		t.Fatalf("SignPack: %v, warnings %q", err, warned)
	}
	for _, name := range []string{"a.md", "b.md"} {
		if got := attestations(name); !slices.Equal(got, []string{ref}) {
			t.Errorf("%s: attestations %q, want [%s]", name, got, ref)
		}
	}

	key2, err := attest.GenerateKey(attest.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	fail := func(err error) { t.Errorf("warned: %v", err) }
	_, r, err := AttestPack(ctx, f.Store, f.Manifest, AttestOptions{Key: key2, Warn: fail})
	if err != nil || len(r.Sidecars) != 0 || r.KeyID == nil || r.Subjects != 3 || r.Attestation == ref {
		t.Fatalf("AttestPack without a root: %+v, %v", r, err)
	}
	if got := attestations("a.md"); len(got) != 1 {
		t.Errorf("without a root, the sidecar changed: %q", got)
	}
	_, r, err = AttestPack(ctx, f.Store, f.Manifest, AttestOptions{Key: key2, Root: f.Dir, Warn: fail})
	if err != nil || len(r.Sidecars) != 2 {
		t.Fatalf("AttestPack under %s: %+v, %v", f.Dir, r, err)
	}
	if got := attestations("b.md"); !slices.Equal(got, []string{ref, r.Attestation}) {
		t.Errorf("b.md: attestations %q", got)
	}

	for _, key := range []*attest.Checker{checker(t, key1.Public()), checker(t, key2.Public())} {
		v := verify.New(f.Store)
		v.WithKey(keyChecker{key})
		rep, err := v.Artifact(f.Path("a.md"))
		if err != nil || rep.Status != verify.Signed || !v.Pass(rep) {
			t.Errorf("key %s: %s (%s), %v", key.KeyID(), rep.Status, rep.Reason, err)
		}
	}
}

func checker(t testing.TB, pub any) *attest.Checker {
	t.Helper()
	c, err := attest.NewChecker(pub)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
