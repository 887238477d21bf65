package link

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gnngo/gnn/metrics"
)

// TestDotsAccel compares the AVX2/FMA kernel with the Go loop and a
// float64 reference, for widths 8 to 72, values of mixed magnitudes, and
// with NaN and infinities.
func TestDotsAccel(t *testing.T) {
	if !useFMA {
		t.Skip("no AVX2/FMA kernel on this machine or build")
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, dim := range []int{8, 16, 24, 64, 72} {
		const n, p = 50, 400
		h := make([]float32, n*dim)
		for i := range h {
			h[i] = float32(rng.NormFloat64() * math.Pow(2, float64(rng.IntN(20)-10)))
		}
		left, right := make([]int32, p), make([]int32, p)
		for i := range left {
			left[i], right[i] = int32(rng.IntN(n)), int32(rng.IntN(n))
		}
		got, goPath := make([]float32, p), make([]float32, p)
		dots(got, h, dim, left, right)
		useFMA = false
		dots(goPath, h, dim, left, right)
		useFMA = true
		for q := range got {
			var want, mag float64
			for j := range dim {
				x, y := float64(h[int(left[q])*dim+j]), float64(h[int(right[q])*dim+j])
				want += x * y
				mag += math.Abs(x * y)
			}
			tol := 1e-5 * mag
			if math.Abs(float64(got[q])-want) > tol || math.Abs(float64(goPath[q])-want) > tol {
				t.Fatalf("dim %d pair %d: kernel %v, Go %v, float64 %v", dim, q, got[q], goPath[q], want)
			}
		}
	}
	h := make([]float32, 3*16)
	for i := range h {
		h[i] = 1
	}
	h[3] = float32(math.Inf(1))
	h[16+5] = float32(math.NaN())
	out := make([]float32, 3)
	dots(out, h, 16, []int32{0, 1, 2}, []int32{2, 2, 2})
	if !math.IsInf(float64(out[0]), 1) || !math.IsNaN(float64(out[1])) || out[2] != 16 {
		t.Errorf("special values: %v, want [+Inf NaN 16]", out)
	}
}

// TestRankDotPaths checks RankDot against ranking every score, in float32
// and float64, with the vector kernel and without, with the negatives
// grouped by node block and in order, on tables of one and several blocks.
func TestRankDotPaths(t *testing.T) {
	saved := directBytes
	t.Cleanup(func() { directBytes = saved })
	for _, n := range []int{300, 20_000} {
		h32, ps, pd, nd := rankInput(n, 16, 700, 40, uint64(n))
		for i := range h32 {
			h32[i] = float32(math.Round(float64(h32[i]))) // ties
		}
		h64 := make([]float64, len(h32))
		for i, x := range h32 {
			h64[i] = float64(x)
		}
		for _, grouped := range []bool{false, true} {
			directBytes = 1 << 40
			if grouped {
				directBytes = 0
			}
			for _, fma := range []bool{false, true} {
				if fma && !useFMA {
					continue
				}
				saved := useFMA
				useFMA = fma
				checkRanks(t, h32, ps, pd, nd)
				checkRanks(t, h64, ps, pd, nd)
				useFMA = saved
			}
		}
	}
}

func checkRanks[T float32 | float64](t *testing.T, h []T, ps, pd, nd []int32) {
	const dim, k = 16, 40
	pos, neg := make([]T, len(ps)), make([]T, len(nd))
	src := make([]int32, len(nd))
	for i := range src {
		src[i] = ps[i/k]
	}
	if err := ScoreDot(pos, h, dim, ps, pd); err != nil {
		t.Fatal(err)
	}
	if err := ScoreDot(neg, h, dim, src, nd); err != nil {
		t.Fatal(err)
	}
	var want, got metrics.Ranking
	wp, wn := make([]float64, len(pos)), make([]float64, len(neg))
	for i, x := range pos {
		wp[i] = float64(x)
	}
	for i, x := range neg {
		wn[i] = float64(x)
	}
	if err := want.Add(wp, wn, k); err != nil {
		t.Fatal(err)
	}
	if err := RankDot(h, dim, ps, pd, nd, k, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Ranks(), want.Ranks()) {
		t.Errorf("%T, %d rows: RankDot's ranks differ from ranking every score", h[0], len(h)/dim)
	}
}

// TestDotsPairing checks that a pair's dot product has the same bits
// whether the kernel computes it alone, paired with the one before or with
// the one after (RankDot and ScoreDot split the same pairs differently).
func TestDotsPairing(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for _, dim := range []int{8, 16, 24, 32, 40, 64, 96} {
		const n, p = 40, 101
		h := make([]float32, n*dim)
		for i := range h {
			h[i] = float32(rng.NormFloat64())
		}
		left, right := make([]int32, p), make([]int32, p)
		for i := range left {
			left[i], right[i] = int32(rng.IntN(n)), int32(rng.IntN(n))
		}
		all := make([]float32, p)
		dots(all, h, dim, left, right)
		shifted := make([]float32, p)
		dots(shifted[:1], h, dim, left[:1], right[:1])
		dots(shifted[1:], h, dim, left[1:], right[1:])
		for q := range all {
			var alone [1]float32
			dots(alone[:], h, dim, left[q:q+1], right[q:q+1])
			if math.Float32bits(alone[0]) != math.Float32bits(all[q]) || math.Float32bits(shifted[q]) != math.Float32bits(all[q]) {
				t.Fatalf("dim %d pair %d: %v in a run, %v alone, %v shifted", dim, q, all[q], alone[0], shifted[q])
			}
		}
	}
}
