package gemm

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// TestStrip checks Mul and MulTransB on the shapes that mulStrip takes,
// with and without non-temporal stores (ntBytes lowered so that small
// outputs take them), against the naive product and bit for bit against
// mulAccel's blocks (the same chains of fused multiply-adds), at
// GOMAXPROCS 1 and 2: rows not a multiple of 6 (the padded last strip)
// and fewer than 6, widths not a multiple of 16 or 8 (the last block
// overlapping the one before it), rows in 1, 2 and 4 classes by their
// offset from a cache line (m a multiple of 4, with non-temporal stores),
// rows at odd offsets, odd shared dimensions and the longest one taken.
func TestStrip(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 and FMA")
	}
	defer func(b int) { ntBytes = b }(ntBytes)
	rng := rand.New(rand.NewPCG(21, 22))
	shapes := [][3]int{{1, 1, 257}, {5, 16, 300}, {6, 3, 64}, {13, 7, 270}, {61, 16, 500}, {40, 64, 1000},
		{200, 8, 1000}, {97, 33, 3703}, {70, 16, 128}, {31, 9, 260}, {100, 2, 1020}, {12, 64, 72},
		{50, 5, 262}, {300, 1, 64}, {9, 12, 100}, {130, 16, 500}}
	for _, s := range shapes {
		n, k, m := s[0], s[1], s[2]
		a, b := random[float32](rng, n*k), random[float32](rng, k*m)
		bt := transpose(b, k, m)
		want, mag := naive(a, b, n, k, m)
		// mulAccel's blocks, without mulStrip.
		ref := make([]float32, n*m)
		mulBlocks(ref, a, b, n, k, m, (m+7)&^7)
		compare(t, fmt.Sprintf("blocks %v", s), ref, want, mag, 1e-6)
		for _, nt := range []int{1 << 40, 0} {
			ntBytes = nt
			for _, procs := range []int{1, 2} {
				// c and d start 5 floats past a page: rows
				// at every offset from a cache line.
				old := runtime.GOMAXPROCS(procs)
				c, d := make([]float32, n*m+1024)[5:5+n*m], make([]float32, n*m)
				Mul(c, a, b, n, k, m)
				MulTransB(d, a, bt, n, m, k)
				runtime.GOMAXPROCS(old)
				name := fmt.Sprintf("%v ntBytes=%d GOMAXPROCS=%d", s, nt, procs)
				if !slices.Equal(c, ref) {
					t.Fatalf("%s: Mul differs from mulAccel's blocks", name)
				}
				if !slices.Equal(d, ref) {
					t.Fatalf("%s: MulTransB differs from mulAccel's blocks", name)
				}
			}
		}
	}
}
