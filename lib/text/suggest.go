package text

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// DidYouMean is the hint that offers the candidates close to an unknown
// name (Suggest): "did you mean 'show'?", "did you mean 'a' or 'b'?", or
// "" when none is close.
func DidYouMean(name string, candidates []string) string {
	switch s := Suggest(name, candidates); len(s) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("did you mean '%s'?", s[0])
	default:
		return fmt.Sprintf("did you mean '%s' or '%s'?", strings.Join(s[:len(s)-1], "', '"), s[len(s)-1])
	}
}

// Suggest returns the candidates close enough to an unknown name (a verb,
// a subcommand) to offer as "did you mean": the one candidate name is a prefix of, else those at
// the smallest edit distance within reach (one edit for names of up to four
// letters, two for longer ones, so 'ctx sho' and 'ctx replya' are caught but
// 'ctx xy' suggests nothing). The result is sorted.
func Suggest(name string, candidates []string) []string {
	if name == "" {
		return nil
	}
	var prefixed []string
	for _, c := range candidates {
		if strings.HasPrefix(c, name) && c != name {
			prefixed = append(prefixed, c)
		}
	}
	if len(prefixed) == 1 {
		return prefixed
	}
	limit := 1
	if utf8.RuneCountInString(name) > 4 {
		limit = 2
	}
	best := limit + 1
	var out []string
	for _, c := range candidates {
		d := distance(name, c)
		switch {
		case d == 0 || d > limit:
		case d < best:
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return dedup(out)
}

func dedup(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// distance is the optimal string alignment distance between a and b, over
// runes: insertions, deletions, substitutions and swaps of two neighbours
// each count one, so the common typo 'pakc' is one edit from 'pack'.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows are enough: the swap looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
