package verify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/internal/packtest"
	"github.com/contextsubstrate/ctx/lib/pack/sidecar"
)

// benchFixture packs a run with n outputs of size bytes each, on disk.
func benchFixture(b *testing.B, n, size int) *packtest.Artifacts {
	files := map[string]string{}
	var outs []string
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("out/%04d.txt", i)
		files[name] = strings.Repeat(fmt.Sprintf("%07d\n", i), size/8)
		outs = append(outs, fmt.Sprintf(`{"name":%q,"path":%q}`, name, name))
	}
	log := `{"created":"2026-01-01T00:00:00Z","model":{"identifier":"m"},"prompts":[],` +
		`"steps":[{"tool":"write_file","output":"ok"}],"outputs":[` + strings.Join(outs, ",") + `]}`
	f := packtest.NewArtifacts(b, log, files)
	for _, a := range f.Result.Artifacts {
		if err := sidecar.Write(f.Manifest, a.Output, a.Path); err != nil {
			b.Fatal(err)
		}
	}
	return f
}

// BenchmarkVerifyArtifact is one ctx verify of a 1 MiB artifact: the
// sidecar, the pack's closure rehashed, the artifact hashed.
func BenchmarkVerifyArtifact(b *testing.B) {
	f := benchFixture(b, 1, 1<<20)
	path := f.Path("out/0000.txt")
	b.SetBytes(2 << 20) // the artifact and its blob in the store
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r, err := New(f.Store).Artifact(path)
		if err != nil || r.Status != Verified {
			b.Fatal(r.Status, err)
		}
	}
}

// BenchmarkVerifyTree is ctx verify -r over 200 small outputs of one pack:
// the pack's closure is checked once, each artifact and sidecar read once.
func BenchmarkVerifyTree(b *testing.B) {
	f := benchFixture(b, 200, 4<<10)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		v := New(f.Store)
		n := 0
		err := Walk(f.Dir, func(a string) error {
			r, err := v.Artifact(a)
			if err == nil && r.Status != Verified {
				err = fmt.Errorf("%s: %s", a, r.Status)
			}
			n++
			return err
		})
		if err != nil || n != 200 {
			b.Fatal(n, err)
		}
	}
}

// BenchmarkWriteSidecar is the sidecar ctx pack writes for one 1 MiB
// output, the second time: the file is hashed and the identical sidecar
// left alone.
func BenchmarkWriteSidecar(b *testing.B) {
	f := benchFixture(b, 1, 1<<20)
	path := f.Path("out/0000.txt")
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := sidecar.Write(f.Manifest, 0, path); err != nil {
			b.Fatal(err)
		}
	}
}
