package seeded

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// TestStream checks every draw against a naive reference on the PCG of
// the same keys: Below by rejection of the low word, the floats from the
// top 53 bits, Uint32 from the top 32, the coin from the top bit: a stream depends only on its
// seed and position.
func TestStream(t *testing.T) {
	if Mix64(0) != 0xe220a8397b1dcdaf {
		t.Fatalf("Mix64(0) = %#x", Mix64(0))
	}
	for _, key := range [][2]uint64{{0, 0}, {1, 7}, {42, 1 << 40}, {^uint64(0), ^uint64(0)}} {
		var s Stream
		s.Reset(key[0], key[1])
		ref := rand.NewPCG(Mix64(key[0]), Mix64(key[1]^0x6a09e667f3bcc909))
		for i := range 2000 {
			n := uint64(i%97 + 1)
			if i%5 == 4 {
				n = 1<<63 + 12345 // rejection happens often
			}
			var want uint64
			for {
				hi, lo := bits.Mul64(ref.Uint64(), n)
				if lo >= -n%n {
					want = hi
					break
				}
			}
			if got := s.Below(n); got != want || got >= n {
				t.Fatalf("key %v draw %d: Below(%d) = %d, want %d", key, i, n, got, want)
			}
			if f, want := s.Float(), float64(ref.Uint64()>>11)/(1<<53); f != want || f < 0 || f >= 1 {
				t.Fatalf("Float = %v, want %v", f, want)
			}
			if f, want := s.Open01(), float64(ref.Uint64()>>11+1)/(1<<53); f != want || f <= 0 || f > 1 {
				t.Fatalf("Open01 = %v, want %v", f, want)
			}
			if u, want := s.Uint32(), uint32(ref.Uint64()>>32); u != want {
				t.Fatalf("Uint32 = %v, want %v", u, want)
			}
			if c, want := s.Coin(), ref.Uint64()>>63 == 1; c != want {
				t.Fatalf("Coin = %v, want %v", c, want)
			}
		}
	}
}
