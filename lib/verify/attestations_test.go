package verify

import (
	"context"
	"slices"
	"testing"

	"github.com/contextsubstrate/ctx/lib/attest"
)

// TestSignPackAndAttestPack: ctx pack --sign adds its attestation to the
// sidecars it wrote, ctx attest to those under its root (or to none), and
// either makes the artifacts signed under the key's checker.
func TestSignPackAndAttestPack(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t, twoOutputs, map[string]string{"a.md": "A\n", "b.md": "B\n"})
	var warned []string
	warn := func(s string) { warned = append(warned, s) }
	WriteSidecars(f.m, f.res.Artifacts, warn)
	key1, err := attest.GenerateKey(attest.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := SignPack(ctx, f.st, f.res, key1, true, warn)
	if err != nil || len(warned) > 0 {
		t.Fatalf("SignPack: %v, warnings %q", err, warned)
	}
	for _, name := range []string{"a.md", "b.md"} {
		if got := sidecarOf(t, f, name).Attestations; !slices.Equal(got, []string{ref}) {
			t.Errorf("%s: attestations %q, want [%s]", name, got, ref)
		}
	}

	key2, err := attest.GenerateKey(attest.Ed25519)
	if err != nil {
		t.Fatal(err)
	}
	fail := func(err error) { t.Errorf("warned: %v", err) }
	_, r, err := AttestPack(ctx, f.st, f.m, AttestOptions{Key: key2, Warn: fail})
	if err != nil || len(r.Sidecars) != 0 || r.KeyID == nil || r.Subjects != 3 || r.Attestation == ref {
		t.Fatalf("AttestPack without a root: %+v, %v", r, err)
	}
	if got := sidecarOf(t, f, "a.md").Attestations; len(got) != 1 {
		t.Errorf("without a root, the sidecar changed: %q", got)
	}
	_, r, err = AttestPack(ctx, f.st, f.m, AttestOptions{Key: key2, Root: f.dir, Warn: fail})
	if err != nil || len(r.Sidecars) != 2 {
		t.Fatalf("AttestPack under %s: %+v, %v", f.dir, r, err)
	}
	if got := sidecarOf(t, f, "b.md").Attestations; !slices.Equal(got, []string{ref, r.Attestation}) {
		t.Errorf("b.md: attestations %q", got)
	}

	for _, key := range []*attest.Checker{checker(t, key1.Public()), checker(t, key2.Public())} {
		v := New(f.st)
		v.WithKey(key)
		rep, err := v.Artifact(f.path("a.md"))
		if err != nil || rep.Status != Signed || !v.Pass(rep) {
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
