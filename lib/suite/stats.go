package suite

import (
	"math"
	"math/big"
)

// The statistics of a suite: McNemar's exact test of one run per task,
// the sign test of pass rates, the mean rate difference with its
// confidence interval, and pass@k. docs/SUITES.md says when each applies.

// SignTest is the two-sided p-value of the exact sign test: of n = down +
// up tasks that moved (down fell, up rose), the probability under the
// null hypothesis (each move equally likely either way, a binomial with
// p = 1/2) of a split at least as uneven as the one seen, doubled and
// capped at 1. With no move it is 1. The sum of binomial coefficients is
// exact (big integers), so the result is the double nearest the true
// value: 3 against 1 give exactly 0.625.
func SignTest(down, up int) float64 {
	n := down + up
	if n == 0 {
		return 1
	}
	k := min(down, up)
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

// McNemarExact is the two-sided p-value of McNemar's exact test over the
// discordant pairs of one run per task (b passed in A only, c in B only):
// the sign test of those pairs.
func McNemarExact(b, c int) float64 { return SignTest(b, c) }

// PassAt is the unbiased estimator of pass@k for a task of n trials of
// which c passed: 1 - C(n-c, k)/C(n, k), the chance that k trials drawn
// without replacement hold at least one that passed. It is computed as
// the product 1 - prod_{i=n-c+1..n} (1 - k/i), as HumanEval's and
// Terminal-Bench's harnesses do, so it gives their figures. k must be 1
// to n.
func PassAt(n, c, k int) float64 {
	if n-c < k {
		return 1
	}
	p := 1.0
	for i := n - c + 1; i <= n; i++ {
		p *= 1 - float64(k)/float64(i)
	}
	return 1 - p
}

// MeanCI is the mean of xs and the two-sided confidence interval of the
// given level (0.95) around it from Student's t with n-1 degrees of
// freedom: the tasks are the sample, so the interval says how far the
// mean difference of another draw of tasks could lie. ok is false with
// fewer than two values.
func MeanCI(xs []float64, level float64) (mean, lo, hi float64, ok bool) {
	n := len(xs)
	if n == 0 {
		return 0, 0, 0, false
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(n)
	if n < 2 {
		return mean, 0, 0, false
	}
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	se := math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	half := StudentTQuantile(1-(1-level)/2, float64(n-1)) * se
	return mean, mean - half, mean + half, true
}

// StudentTQuantile is the p-quantile (0.5 <= p < 1) of Student's t
// distribution with df degrees of freedom, found by bisection on its
// distribution function to within 1e-12.
func StudentTQuantile(p, df float64) float64 {
	lo, hi := 0.0, 1.0
	for studentTCDF(hi, df) < p {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for hi-lo > 1e-12*math.Max(1, hi) {
		mid := (lo + hi) / 2
		if studentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// studentTCDF is P(T <= t) for t >= 0: 1 - I_x(df/2, 1/2)/2 with
// x = df/(df+t^2).
func studentTCDF(t, df float64) float64 {
	return 1 - 0.5*regIncBeta(df/(df+t*t), df/2, 0.5)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (modified Lentz), on the side where it converges
// fast.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(x, a, b) / a
	}
	return 1 - front*betaCF(1-x, b, a)/b
}

func betaCF(x, a, b float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		for _, num := range []float64{
			fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)),
			-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1)),
		} {
			d = 1 + num*d
			if math.Abs(d) < tiny {
				d = tiny
			}
			c = 1 + num/c
			if math.Abs(c) < tiny {
				c = tiny
			}
			d = 1 / d
			h *= d * c
		}
		if math.Abs(d*c-1) < 1e-15 {
			break
		}
	}
	return h
}
