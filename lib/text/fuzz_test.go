package text

import (
	"strings"
	"testing"
)

// FuzzFirstDiff checks the streaming line comparison against splitting
// both texts in memory.
func FuzzFirstDiff(f *testing.F) {
	for _, s := range [][2]string{{"a\nb\n", "a\nc\n"}, {"a", "a\n"}, {"", "\n"}, {"x\r\n", "x\n"}, {"a\x00", "a"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		lines := func(s string) []string {
			l := strings.Split(s, "\n")
			if l[len(l)-1] == "" {
				l = l[:len(l)-1]
			}
			return l
		}
		la, lb := lines(a), lines(b)
		want := 0
		for i := 0; i < max(len(la), len(lb)); i++ {
			if i >= len(la) || i >= len(lb) || la[i] != lb[i] {
				want = i + 1
				break
			}
		}
		d, found, err := FirstDiff(strings.NewReader(a), strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if found != (want > 0) || (found && d.Line != want) {
			t.Fatalf("FirstDiff: line %d found %v, want line %d", d.Line, found, want)
		}
	})
}
