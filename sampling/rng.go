package sampling

import (
	"math/bits"
	"math/rand/v2"
)

// mix64 is the SplitMix64 finaliser, a bijection on uint64.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// derive returns a seed for the sub-stream tag of seed, such as one layer of
// a batch or one batch of an epoch.
func derive(seed, tag uint64) uint64 { return mix64(seed ^ mix64(tag+0x3c6ef372fe94f82b)) }

// nodeRNG is the random stream of one seed node: a PCG generator keyed by
// the call's seed and the node's position among the seeds.
type nodeRNG struct{ p rand.PCG }

func (r *nodeRNG) reset(seed uint64, pos int) {
	r.p.Seed(mix64(seed), mix64(uint64(pos)^0x6a09e667f3bcc909))
}

// below returns a uniform integer in [0, n), n > 0, by Lemire's method with
// rejection, so exactly uniform.
func (r *nodeRNG) below(n uint64) uint64 {
	hi, lo := bits.Mul64(r.p.Uint64(), n)
	if lo < n {
		reject := -n % n
		for lo < reject {
			hi, lo = bits.Mul64(r.p.Uint64(), n)
		}
	}
	return hi
}

// open01 returns a uniform float64 in (0, 1].
func (r *nodeRNG) open01() float64 {
	return float64(r.p.Uint64()>>11+1) / (1 << 53)
}
