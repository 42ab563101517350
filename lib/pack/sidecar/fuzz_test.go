package sidecar

import (
	"errors"
	"strings"
	"testing"

	"github.com/contextsubstrate/ctx/lib/store"
)

// FuzzParseSidecar feeds arbitrary bytes to the sidecar parser, which reads
// files found in any tree ctx verify -r walks. Every input must give a
// sidecar or a not-a-sidecar error, never a panic; a sidecar's hashes are in
// the one canonical form; and what parses encodes and parses back the same.
func FuzzParseSidecar(f *testing.F) {
	seeds := []string{
		`{"context_pack":"sha256:` + hexB + `","output":"a.md","content_ref":"sha256:` + hexA + `","inputs":["sha256:` + hexA + `"],"tools":["read_file"],"confidence":"high","notes":"n"}`,
		`{"context_pack":"ctx://` + strings.ToUpper(hexB) + `","inputs":[],"tools":[]}`,
		`{"context_pack":"sha256:` + hexB + `","output":null,"x":[1,{"y":2}]}`,
		`{"context_pack":"sha256:302b"}`,
		`{"context_pack":1}`,
		`{"context_pack":"sha256:` + hexB + `","inputs":"x"}`,
		`{"context_pack":"sha256:` + hexB + `"} trailing`,
		`{"Context_Pack":"sha256:` + hexB + `","context_pack":"sha256:` + hexA + `"}`,
		`[]`, `null`, ``, `{`, "\xff\xfe", `{"notes":"\ud800"}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrNotSidecar) {
				t.Fatalf("error %v is not a not-a-sidecar error", err)
			}
			return
		}
		h, err := store.ParseRef(sc.ContextPack)
		if err != nil || h.String() != sc.ContextPack {
			t.Fatalf("context_pack %q is not canonical", sc.ContextPack)
		}
		if sc.ContentRef != "" {
			if h, err := store.ParseRef(sc.ContentRef); err != nil || h.String() != sc.ContentRef {
				t.Fatalf("content_ref %q is not canonical", sc.ContentRef)
			}
		}
		b, err := Encode(sc)
		if err != nil {
			t.Fatalf("a parsed sidecar does not encode: %v", err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("an encoded sidecar does not parse: %v\n%s", err, b)
		}
		b2, _ := Encode(back)
		if string(b2) != string(b) {
			t.Fatalf("round trip changed the sidecar:\n%s\n%s", b, b2)
		}
	})
}
