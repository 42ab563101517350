package verify

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
	"github.com/contextsubstrate/ctx/lib/store"
)

// flip changes one byte of a stored object in place, as disk rot or a
// careless edit would; objects are read-only, which does not stop root.
// hexB is a hash no object of the fixtures has.
const hexB = "302b9634df0c3d8c8b174f579a42eaa8797250687cc0a696da7914a1a8deb21a"

func flip(t testing.TB, st *store.Store, h store.Hash) {
	t.Helper()
	p := st.ObjectPath(h)
	if err := os.Chmod(p, 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x20
	if err := os.WriteFile(p, b, 0o444); err != nil {
		t.Fatal(err)
	}
}

func sidecarOf(t testing.TB, f *packtest.Artifacts, name string) sidecar.Sidecar {
	t.Helper()
	sc, err := sidecar.Read(f.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func writeSidecarJSON(t testing.TB, f *packtest.Artifacts, name string, sc any) {
	t.Helper()
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(t, name+sidecar.Suffix, string(b))
}

func TestVerifyArtifact(t *testing.T) {
	hashA := store.Sum([]byte("A\n")).String()
	cases := []struct {
		name     string
		setup    func(t *testing.T, f *packtest.Artifacts)
		artifact string // default a.md
		status   Status
		reason   string // substring; "" means no reason
		expected string // "A" for the recorded hash of a.md, "" for none
		actual   string // "A" for the recorded hash, "" for none, else the content it must hash
		problem  string // "kind where" of the first problem
		fromPack bool   // created and tools come from the pack
		noPack   bool   // no sidecar could be read, so the report names no pack
	}{
		{name: "verified", status: Verified, expected: "A", actual: "A", fromPack: true},
		{name: "no sidecar", setup: func(t *testing.T, f *packtest.Artifacts) {
			os.Remove(f.Path("a.md.ctx.json"))
		}, status: NoProvenance, reason: "no sidecar ", noPack: true},
		{name: "a sidecar named as the artifact", artifact: "a.md.ctx.json",
			status: NoProvenance, reason: "is itself a sidecar: verify ", noPack: true},
		{name: "a sidecar that is not JSON", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "a.md.ctx.json", "{")
		}, status: Broken, reason: "a.md.ctx.json is not a ctx sidecar: not a JSON object", noPack: true},
		{name: "a symlinked sidecar", setup: func(t *testing.T, f *packtest.Artifacts) {
			os.Rename(f.Path("a.md.ctx.json"), f.Path("elsewhere.json"))
			os.Symlink("elsewhere.json", f.Path("a.md.ctx.json"))
		}, status: Broken, reason: "it is a symlink", noPack: true},
		{name: "the pack is not in the store", setup: func(t *testing.T, f *packtest.Artifacts) {
			sc := sidecarOf(t, f, "a.md")
			sc.ContextPack = "sha256:" + hexB
			writeSidecarJSON(t, f, "a.md", sc)
		}, status: Broken, reason: "pack sha256:" + hexB + " is not in the store", expected: "A", actual: "A"},
		{name: "the sidecar names another pack, without that output", setup: func(t *testing.T, f *packtest.Artifacts) {
			_, m := f.Pack(t, `{"model":{"identifier":"m"},"prompts":[],"steps":[],"outputs":[{"name":"c.md","content":"C"}]}`)
			sc := sidecarOf(t, f, "a.md")
			sc.ContextPack = m.Hash
			writeSidecarJSON(t, f, "a.md", sc)
		}, status: Broken, reason: `has no output named "a.md"`, expected: "A", actual: "A", fromPack: true},
		{name: "the sidecar names another pack, whose output differs", setup: func(t *testing.T, f *packtest.Artifacts) {
			_, m := f.Pack(t, `{"model":{"identifier":"m"},"prompts":[],"steps":[],"outputs":[{"name":"a.md","content":"other"}]}`)
			sc := sidecarOf(t, f, "a.md")
			sc.ContextPack = m.Hash
			writeSidecarJSON(t, f, "a.md", sc)
		}, status: Broken, reason: "the sidecar's content_ref " + hashA + ` disagrees with output "a.md"`, expected: store.Sum([]byte("other")).String(), actual: "A", fromPack: true},
		{name: "the sidecar names a blob, not a pack", setup: func(t *testing.T, f *packtest.Artifacts) {
			sc := sidecarOf(t, f, "a.md")
			sc.ContextPack = hashA
			writeSidecarJSON(t, f, "a.md", sc)
		}, status: Broken, reason: "is not a pack manifest", expected: "A", actual: "A"},
		{name: "the artifact edited", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "a.md", "A!\n")
		}, status: Modified, reason: `differs from output "a.md"`, expected: "A", actual: "A!\n", fromPack: true},
		{name: "the artifact deleted", setup: func(t *testing.T, f *packtest.Artifacts) {
			os.Remove(f.Path("a.md"))
		}, status: Modified, reason: "is missing (its sidecar remains)", expected: "A", fromPack: true},
		{name: "the artifact replaced by a directory", setup: func(t *testing.T, f *packtest.Artifacts) {
			os.Remove(f.Path("a.md"))
			os.Mkdir(f.Path("a.md"), 0o755)
		}, status: Modified, reason: "is no longer a file: it is a directory", expected: "A", fromPack: true},
		{name: "an output blob with one byte flipped", setup: func(t *testing.T, f *packtest.Artifacts) {
			flip(t, f.Store, f.Manifest.Outputs[0].ContentRef)
		}, status: Corrupt, reason: "(outputs[0] (a.md)) of pack", expected: "A", actual: "A", problem: "corrupt outputs[0] (a.md)", fromPack: true},
		{name: "an input blob deleted", setup: func(t *testing.T, f *packtest.Artifacts) {
			os.Remove(f.Store.ObjectPath(f.Manifest.Inputs[0].ContentRef))
		}, status: Corrupt, reason: "is missing", expected: "A", actual: "A", problem: "missing inputs[0] (in.txt)", fromPack: true},
		{name: "several objects damaged", setup: func(t *testing.T, f *packtest.Artifacts) {
			flip(t, f.Store, f.Manifest.Outputs[1].ContentRef)
			os.Remove(f.Store.ObjectPath(f.Manifest.Inputs[0].ContentRef))
		}, status: Corrupt, reason: "2 objects of pack ", expected: "A", actual: "A", problem: "missing inputs[0] (in.txt)", fromPack: true},
		{name: "the manifest with one byte flipped", setup: func(t *testing.T, f *packtest.Artifacts) {
			h, _ := store.ParseRef(f.Manifest.Hash)
			flip(t, f.Store, h)
		}, status: Corrupt, reason: "the manifest of pack ", expected: "A", actual: "A", problem: "corrupt manifest"},
		{name: "a sidecar in the seed's shape", setup: func(t *testing.T, f *packtest.Artifacts) {
			writeSidecarJSON(t, f, "a.md", map[string]any{"context_pack": f.Manifest.Hash, "inputs": []string{}, "tools": []string{"x"}})
		}, status: Verified, expected: "A", actual: "A", fromPack: true},
		{name: "a sidecar with a content_ref and no output", setup: func(t *testing.T, f *packtest.Artifacts) {
			writeSidecarJSON(t, f, "a.md", map[string]any{"context_pack": f.Manifest.Hash, "content_ref": hashA})
		}, status: Verified, expected: "A", actual: "A", fromPack: true},
		{name: "a sidecar with no output that matches none", setup: func(t *testing.T, f *packtest.Artifacts) {
			f.Write(t, "z.md", "A\n")
			writeSidecarJSON(t, f, "z.md", map[string]any{"context_pack": f.Manifest.Hash})
		}, artifact: "z.md", status: Broken, reason: "the sidecar names no output", actual: "A", fromPack: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := packtest.TwoArtifacts(t)
			for _, a := range f.Result.Artifacts {
				if err := sidecar.Write(f.Manifest, a.Output, a.Path); err != nil {
					t.Fatal(err)
				}
			}
			if c.setup != nil {
				c.setup(t, f)
			}
			artifact := c.artifact
			if artifact == "" {
				artifact = "a.md"
			}
			r, err := New(f.Store).Artifact(f.Path(artifact))
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != c.status {
				t.Fatalf("status %s, want %s (reason %q)", r.Status, c.status, r.Reason)
			}
			if c.reason == "" && r.Reason != "" || !strings.Contains(r.Reason, c.reason) {
				t.Errorf("reason %q, want one containing %q", r.Reason, c.reason)
			}
			// "" is no hash, "A" the recorded hash of a.md, a ref itself,
			// anything else content to hash.
			hash := func(s string) string {
				switch {
				case s == "":
					return ""
				case s == "A":
					return hashA
				case strings.HasPrefix(s, "sha256:"):
					return s
				}
				return store.Sum([]byte(s)).String()
			}
			if r.Expected != hash(c.expected) {
				t.Errorf("expected %q, want %q", r.Expected, hash(c.expected))
			}
			if r.Actual != hash(c.actual) {
				t.Errorf("actual %q, want %q", r.Actual, hash(c.actual))
			}
			got := ""
			if len(r.Problems) > 0 {
				got = r.Problems[0].Kind + " " + r.Problems[0].Where
			}
			if got != c.problem {
				t.Errorf("first problem %q, want %q (all: %+v)", got, c.problem, r.Problems)
			}
			if c.fromPack != r.Loaded {
				t.Errorf("loaded %v, want %v", r.Loaded, c.fromPack)
			} else if !c.fromPack && r.Created != "" {
				t.Errorf("created %q, though the pack could not be read", r.Created)
			}
			if (r.Pack == "") != c.noPack {
				t.Errorf("pack %q in the report, want one: %v", r.Pack, !c.noPack)
			}
		})
	}
}

// TestVerifyReportCarriesProvenance checks what a verified report shows: the
// pack in a form ctx show accepts, created, tools, inputs, confidence and
// notes, taken from the pack rather than from the sidecar's claims.
func TestVerifyReportCarriesProvenance(t *testing.T) {
	f := packtest.TwoArtifacts(t)
	if err := sidecar.Write(f.Manifest, 0, f.Path("a.md")); err != nil {
		t.Fatal(err)
	}
	// A sidecar's informational fields are claims; the report uses the pack.
	sc := sidecarOf(t, f, "a.md")
	sc.Tools, sc.Confidence, sc.Notes = []string{"rm"}, "low", "trust me"
	writeSidecarJSON(t, f, "a.md", sc)

	r, err := New(f.Store).Artifact(f.Path("a.md"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Verified {
		t.Fatalf("status %s: %s", r.Status, r.Reason)
	}
	if h, err := f.Store.ResolvePack(r.Pack); err != nil || h.String() != f.Manifest.Hash {
		t.Errorf("the report's pack %q does not resolve to the pack: %v", r.Pack, err)
	}
	if r.Created != "2026-01-01T00:00:00Z" || strings.Join(r.Tools, ",") != "read_file,write_file" ||
		r.Confidence != "high" || r.Notes != "from a template" || r.Output != "a.md" {
		t.Errorf("report = %+v", r)
	}
	if len(r.Inputs) != 1 || strings.Join(r.InputNames, ",") != "in.txt,copy.txt" {
		t.Errorf("inputs %v, names %v", r.Inputs, r.InputNames)
	}

	// Without confidence and notes, nothing is made up.
	if err := sidecar.Write(f.Manifest, 1, f.Path("b.md")); err != nil {
		t.Fatal(err)
	}
	r, err = New(f.Store).Artifact(f.Path("b.md"))
	if err != nil || r.Status != Verified || r.Confidence != "" || r.Notes != "" {
		t.Errorf("b.md: %+v, %v", r, err)
	}
}

func TestVerifyPack(t *testing.T) {
	f := packtest.TwoArtifacts(t)
	h, _ := store.ParseRef(f.Manifest.Hash)
	r, err := New(f.Store).Pack(h)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Verified || r.Artifact != "" || r.Pack != f.Manifest.Hash || r.Created == "" || len(r.Problems) != 0 || r.Reason != "" {
		t.Errorf("intact pack: %+v", r)
	}
	flip(t, f.Store, *f.Manifest.Steps[2].OutputRef)
	r, err = New(f.Store).Pack(h)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Corrupt || len(r.Problems) != 1 || r.Problems[0].Where != "steps[2] (write_file)" ||
		r.Problems[0].Object != f.Manifest.Steps[2].OutputRef.String() || !strings.Contains(r.Problems[0].Detail, "its content hashes to sha256:") {
		t.Errorf("damaged pack: %+v", r)
	}
}

func TestReportJSONHasEveryKey(t *testing.T) {
	// encode is how ctx verify writes reports: HTML escaping off.
	encode := func(r Report) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	got := encode(Report{Artifact: "x<&>", Status: NoProvenance, Reason: "no sidecar x<&>.ctx.json"})
	want := `{"artifact":"x<&>","status":"no_provenance","pack":null,"output":null,"created":null,"tools":null,"inputs":null,"confidence":null,"notes":null,"expected":null,"actual":null,"reason":"no sidecar x<&>.ctx.json","problems":[],"key_id":null,"attestation":null}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	got = encode(Report{Status: Verified, Tools: []string{}, Inputs: []string{}, InputNames: []string{"secret"}})
	if !strings.Contains(got, `"tools":[],"inputs":[]`) || strings.Contains(got, "secret") {
		t.Errorf("empty lists must stay arrays and input names stay out: %s", got)
	}
}
