package suite

import "math/big"

// McNemarExact is the two-sided p-value of McNemar's exact test: of the
// n = b + c discordant pairs (b passed in A only, c in B only), the
// probability under the null hypothesis (each discordant pair equally
// likely either way, a binomial with p = 1/2) of a split at least as
// uneven as the one seen, doubled and capped at 1. With no discordant
// pair it is 1. The sum of binomial coefficients is exact (big integers),
// so the result is the double nearest the true value: 3 regressions
// against 1 improvement give exactly 0.625.
func McNemarExact(b, c int) float64 {
	n := b + c
	if n == 0 {
		return 1
	}
	k := min(b, c)
	sum := new(big.Int)
	term := big.NewInt(1) // C(n, 0)
	for i := 0; i <= k; i++ {
		sum.Add(sum, term)
		term.Mul(term, big.NewInt(int64(n-i)))
		term.Quo(term, big.NewInt(int64(i+1)))
	}
	// p = 2 * sum / 2^n = sum / 2^(n-1)
	p := new(big.Rat).SetFrac(sum, new(big.Int).Lsh(big.NewInt(1), uint(n-1)))
	if p.Cmp(big.NewRat(1, 1)) > 0 {
		return 1
	}
	f, _ := p.Float64()
	return f
}
