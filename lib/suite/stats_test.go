package suite

import (
	"math"
	"math/big"
	"testing"
)

// TestSignTest holds the exact two-sided p-value to values worked out
// with exact fractions (Python's fractions and math.comb, rounded to the
// nearest double): small tables, ties, one-sided splits, and thousands of
// moves. McNemar's exact test is the same test over discordant pairs.
func TestSignTest(t *testing.T) {
	cases := []struct {
		down, up int
		want     float64
	}{
		{0, 0, 1},
		{0, 1, 1},
		{1, 6, 0.125},
		{6, 1, 0.125},
		{0, 5, 0.0625},
		{4, 0, 0.125},
		{3, 1, 0.625},
		{10, 2, 0.03857421875},
		{3, 3, 1},
		{25, 40, 0.08168153394154005},
		{900, 1000, 0.02310884510890107},
		{0, 60, 1.734723475976807e-18},
	}
	for _, c := range cases {
		if got := SignTest(c.down, c.up); got != c.want {
			t.Errorf("SignTest(%d, %d) = %.17g, want %.17g", c.down, c.up, got, c.want)
		}
		if got := McNemarExact(c.down, c.up); got != c.want {
			t.Errorf("McNemarExact(%d, %d) = %.17g, want %.17g", c.down, c.up, got, c.want)
		}
	}
}

// TestPassAt holds the estimator to cases worked by hand and to 1 -
// C(n-c,k)/C(n,k) in exact fractions for every n up to 20.
func TestPassAt(t *testing.T) {
	for _, c := range []struct {
		n, c, k int
		want    float64
	}{
		{5, 2, 1, 0.4},        // c/n
		{5, 2, 2, 0.7},        // 1 - C(3,2)/C(5,2) = 1 - 3/10
		{5, 2, 3, 0.9},        // 1 - C(3,3)/C(5,3) = 1 - 1/10
		{5, 2, 4, 1},          // fewer failures than k: certain
		{10, 3, 5, 11.0 / 12}, // 1 - C(7,5)/C(10,5) = 1 - 21/252
		{3, 0, 2, 0},
		{4, 4, 1, 1},
	} {
		if got := PassAt(c.n, c.c, c.k); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("PassAt(%d, %d, %d) = %.17g, want %.17g", c.n, c.c, c.k, got, c.want)
		}
	}
	for n := 1; n <= 20; n++ {
		for c := 0; c <= n; c++ {
			for k := 1; k <= n; k++ {
				exact := new(big.Rat).SetFrac(new(big.Int).Binomial(int64(n-c), int64(k)), new(big.Int).Binomial(int64(n), int64(k)))
				want, _ := new(big.Rat).Sub(big.NewRat(1, 1), exact).Float64()
				if got := PassAt(n, c, k); math.Abs(got-want) > 1e-12 {
					t.Errorf("PassAt(%d, %d, %d) = %.17g, want %.17g", n, c, k, got, want)
				}
			}
		}
	}
}

// TestStudentTQuantile holds the quantile to the tables' values of
// t(0.975) and t(0.95).
func TestStudentTQuantile(t *testing.T) {
	for _, c := range []struct {
		p, df, want float64
	}{
		{0.975, 1, 12.706204736174698},
		{0.975, 2, 4.302652729749464},
		{0.975, 4, 2.7764451051977934},
		{0.975, 10, 2.2281388519862744},
		{0.975, 30, 2.0422724563012373},
		{0.975, 1e6, 1.959966},
		{0.95, 5, 2.0150483726691575},
		{0.5, 7, 0},
	} {
		if got := StudentTQuantile(c.p, c.df); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("StudentTQuantile(%g, %g) = %.12g, want %.12g", c.p, c.df, got, c.want)
		}
	}
}

// TestMeanCI holds the interval to R's t.test: t.test(1:5) gives
// 1.036757 to 4.963243.
func TestMeanCI(t *testing.T) {
	for _, c := range []struct {
		xs           []float64
		mean, lo, hi float64
		ok           bool
	}{
		{[]float64{1, 2, 3, 4, 5}, 3, 1.036757, 4.963243, true},
		{[]float64{-1, 0, 0, 0, 1}, 0, -0.8780, 0.8780, true},
		{[]float64{0.2, 0.2, 0.2}, 0.2, 0.2, 0.2, true},
		{[]float64{0.5}, 0.5, 0, 0, false},
	} {
		mean, lo, hi, ok := MeanCI(c.xs, 0.95)
		if ok != c.ok || math.Abs(mean-c.mean) > 1e-9 || math.Abs(lo-c.lo) > 5e-5 || math.Abs(hi-c.hi) > 5e-5 {
			t.Errorf("MeanCI(%v) = %g [%g, %g] %v, want %g [%g, %g] %v", c.xs, mean, lo, hi, ok, c.mean, c.lo, c.hi, c.ok)
		}
	}
}
