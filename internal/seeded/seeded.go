package seeded

import (
	"math/bits"
	"math/rand/v2"
)

// Mix64 is the SplitMix64 finaliser, a bijection on uint64.
func Mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Stream is the random stream of one position of one call. The zero value
// is a valid stream; Reset keys it.
type Stream struct{ p rand.PCG }

// Reset keys s by seed and pos.
func (s *Stream) Reset(seed, pos uint64) {
	s.p.Seed(Mix64(seed), Mix64(pos^0x6a09e667f3bcc909))
}

// Below returns a uniform integer in [0, n), n > 0, by Lemire's method with
// rejection, so exactly uniform.
func (s *Stream) Below(n uint64) uint64 {
	hi, lo := bits.Mul64(s.p.Uint64(), n)
	if lo < n {
		return s.belowSlow(n, hi, lo)
	}
	return hi
}

// belowSlow finishes Below in the rare case (probability below n/2^64)
// that the first draw may need rejecting.
func (s *Stream) belowSlow(n, hi, lo uint64) uint64 {
	reject := -n % n
	for lo < reject {
		hi, lo = bits.Mul64(s.p.Uint64(), n)
	}
	return hi
}

// Float returns a uniform float64 in [0, 1).
func (s *Stream) Float() float64 {
	return float64(s.p.Uint64()>>11) / (1 << 53)
}

// Open01 returns a uniform float64 in (0, 1], which a logarithm takes.
func (s *Stream) Open01() float64 {
	return float64(s.p.Uint64()>>11+1) / (1 << 53)
}

// Uint32 returns a uniform uint32: the top 32 bits of a draw.
func (s *Stream) Uint32() uint32 { return uint32(s.p.Uint64() >> 32) }

// Coin returns a fair random bit.
func (s *Stream) Coin() bool { return s.p.Uint64()>>63 == 1 }
