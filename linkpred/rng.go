package linkpred

import (
	"math/bits"
	"math/rand/v2"
)

// The random streams of this package are counter-based, as those of package
// sampling: every positive pair (and every split) has its own PCG generator
// keyed by the call's seed and its position, so the draws do not depend on
// which goroutine makes them.

// mix64 is the SplitMix64 finaliser, a bijection on uint64.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// stream is the random stream of one position of one call.
type stream struct{ p rand.PCG }

// reset keys s by seed and pos.
func (s *stream) reset(seed, pos uint64) {
	s.p.Seed(mix64(seed), mix64(pos^0x6a09e667f3bcc909))
}

// below returns a uniform integer in [0, n), n > 0, by Lemire's method with
// rejection, so exactly uniform.
func (s *stream) below(n uint64) uint64 {
	hi, lo := bits.Mul64(s.p.Uint64(), n)
	if lo < n {
		return s.belowSlow(n, hi, lo)
	}
	return hi
}

// belowSlow finishes below in the rare case (probability below n/2^64) that
// the first draw may need rejecting; kept apart so that below inlines.
func (s *stream) belowSlow(n, hi, lo uint64) uint64 {
	reject := -n % n
	for lo < reject {
		hi, lo = bits.Mul64(s.p.Uint64(), n)
	}
	return hi
}

// float returns a uniform float64 in [0, 1).
func (s *stream) float() float64 {
	return float64(s.p.Uint64()>>11) / (1 << 53)
}

// coin returns a fair random bit.
func (s *stream) coin() bool { return s.p.Uint64()>>63 == 1 }
