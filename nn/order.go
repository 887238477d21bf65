package nn

import "gorgonia.org/tensor"

// ProjectFirst reports whether a layer that multiplies features by an
// in x out weight and sums them over edges should multiply first, so that
// the aggregation gathers rows out wide instead of in wide. On large graphs
// the aggregation is bound by the cache lines it gathers per edge, not by
// the numbers it adds, so the width whose rows span fewer lines wins: 16
// float32 features (one 64-byte line) beat 10 (40-byte rows, half of which
// straddle two lines). At equal lines the narrower width wins, DGL's rule.
func ProjectFirst(in, out int, dt tensor.Dtype) bool {
	size := int(dt.Size())
	li, lo := rowLines(in*size), rowLines(out*size)
	if li != lo {
		return lo < li
	}
	return out < in
}

// rowLines returns 64 times the mean number of 64-byte cache lines that a
// row of b bytes spans in a contiguous table of such rows starting on a
// line boundary: row i starts at byte i*b mod 64, and the offsets repeat
// every 64/gcd(b, 64) rows, so the scaled mean is an integer.
func rowLines(b int) int {
	if b <= 0 {
		return 0
	}
	period := 64 / gcd(b, 64)
	total := 0
	for i := range period {
		off := i * b % 64
		total += (off + b + 63) / 64
	}
	return total * (64 / period)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
