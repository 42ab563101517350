package store

import (
	"strings"
	"testing"
)

// FuzzParseStatCache feeds parseStatCache, the reader of .ctx/cache/stat,
// arbitrary bytes: it never panics, and what it accepts has its header,
// a checksum that matches and paths without newlines.
func FuzzParseStatCache(f *testing.F) {
	body := statCacheHeader + strings.Repeat("ab", 32) + " 6 1700000000000000000 1700000000000000001 2049 1234 /tmp/a b.txt\n"
	sum := Sum([]byte(body))
	f.Add([]byte(body + statCacheTrailer + sum.Hex() + "\n"))
	f.Add([]byte(statCacheHeader + statCacheTrailer + Sum([]byte(statCacheHeader)).Hex() + "\n"))
	f.Add([]byte("ctx stat cache 1\nsha256 00\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, ok := parseStatCache(data)
		if !ok {
			return
		}
		if !strings.HasPrefix(string(data), statCacheHeader) {
			t.Fatal("accepted a cache without its header")
		}
		for k := range m {
			if k == "" || strings.ContainsAny(k, "\n") {
				t.Fatalf("accepted path %q", k)
			}
		}
		i := strings.LastIndex(string(data), "\n"+statCacheTrailer)
		if Sum(data[:i+1]).Hex() != strings.TrimSuffix(string(data[i+1+len(statCacheTrailer):]), "\n") {
			t.Fatal("accepted a cache whose checksum does not match")
		}
	})
}
