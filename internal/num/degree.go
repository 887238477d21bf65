package num

import "math"

// DegreeFactor returns max(deg, 1)^power, the degree normalisation of
// GraphConv and the mean: nodes without edges count as degree 1. The common
// powers -1 and -0.5 are computed exactly as 1/d and 1/sqrt(d), so every
// caller (a single-process op or a distributed worker) gets the same bits.
func DegreeFactor[T Float](deg int64, power float64) T {
	d := float64(max(deg, 1))
	switch power {
	case -1:
		return T(1 / d)
	case -0.5:
		return T(1 / math.Sqrt(d))
	}
	return T(math.Pow(d, power))
}
