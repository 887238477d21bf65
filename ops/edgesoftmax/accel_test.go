package edgesoftmax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// The AVX2 kernels run in the other tests when the machine has them; these
// tests check the pure-Go paths on the same machine and compare the two.
// They toggle package variables, so they do not run in parallel with the
// other tests (which wait for them).

// withoutAccel turns the AVX2 kernels off for the rest of the test.
func withoutAccel(t *testing.T) {
	saved := useAVX2
	useAVX2 = false
	t.Cleanup(func() { useAVX2 = saved })
}

func TestForwardPureGo(t *testing.T) {
	withoutAccel(t)
	t.Run("float32", testForward[float32])
}

func TestBackwardPureGo(t *testing.T) {
	withoutAccel(t)
	t.Run("float32", testBackward[float32])
}

// groupGraph returns a graph whose destination k has sizes[k] in-edges from
// random sources, with edge IDs shuffled so that a group's rows are
// scattered.
func groupGraph(t *testing.T, rng *rand.Rand, ns int, sizes []int) *graph.Graph {
	var src, dst []int32
	for v, n := range sizes {
		for range n {
			src, dst = append(src, int32(rng.IntN(ns))), append(dst, int32(v))
		}
	}
	rng.Shuffle(len(src), func(i, j int) {
		src[i], src[j] = src[j], src[i]
		dst[i], dst[j] = dst[j], dst[i]
	})
	return mustGraph(t, ns, len(sizes), src, dst)
}

// accelScores returns scores for the comparison of the kernels: kind
// "normal" is uniform in [-3, 3), "large" spans ±1e4 (most exponentials
// underflow; a group's maximum can be far above the rest), "masked" has a
// fifth of the scores -Inf (and some groups' columns only -Inf), "tiny"
// differ from each other by a few ulp around 1e6.
func accelScores(rng *rand.Rand, n int, kind string) []float32 {
	x := scores[float32](rng, n, 3)
	for i := range x {
		switch kind {
		case "large":
			x[i] = float32(1e4 * (2*rng.Float64() - 1) * math.Pow(10, -4*rng.Float64()))
		case "masked":
			if rng.IntN(5) == 0 {
				x[i] = float32(math.Inf(-1))
			}
		case "tiny":
			x[i] = float32(1e6 + float64(rng.IntN(5))*0.0625)
		}
	}
	return x
}

// TestAccel compares the AVX2 kernels with the pure-Go loops and with the
// float64 reference, for widths 1 to 24 (4 on the narrow kernels; 2 in
// TestAccelNarrow), groups of awkward sizes (0, 1,
// 2, 7, 33 and a hub of 3000, where prefetching runs far ahead and across
// groups), in random and in destination order, by destination and source,
// with masked, large and nearly equal scores, and several prefetch
// distances. Forward agrees with the Go code to float32 rounding of the
// exponential; backward computes as the Go code does and gives its bits.
func TestAccel(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	defer func(d int) { prefetchDist = d }(prefetchDist)
	rng := rand.New(rand.NewPCG(11, 11))
	sizes := []int{0, 1, 2, 7, 33, 0, 3000, 1, 33, 7, 2, 0}
	graphs := []struct {
		name string
		g    *graph.Graph
	}{
		{"groups", groupGraph(t, rng, 50, sizes)},
		{"random", randomGraph(t, rng, 200, 150, 4000)},
	}
	for _, tg := range graphs {
		for _, norm := range norms {
			for _, w := range []int{1, 3, 4, 8, 12, 16, 20, 24} {
				for _, kind := range []string{"normal", "large", "masked", "tiny"} {
					for _, dist := range []int{16, 0, 1, 5000} {
						prefetchDist = dist
						name := fmt.Sprintf("%s/%v/width=%d/%s/dist=%d", tg.name, norm, w, kind, dist)
						compareAccel(t, name, tg.g, norm, w, accelScores(rng, tg.g.NumEdges()*w, kind))
					}
				}
			}
		}
	}
}

// compareAccel runs Forward and Backward on score with and without the
// AVX2 kernels and checks both against each other and the references.
func compareAccel(t *testing.T, name string, g *graph.Graph, norm Norm, w int, score []float32) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(len(score)), uint64(w)))
	ne := g.NumEdges()
	want := reference(g, norm, score, w)
	got, goPath := nans[float32](ne*w), nans[float32](ne*w)
	Forward(got, g, norm, score, w)
	useAVX2 = false
	Forward(goPath, g, norm, score, w)
	useAVX2 = true
	checkForward(t, name+" (AVX2, Go)", want, got, goPath, score, false)
	dy := scores[float32](rng, ne*w, 1)
	ds, dsGo := nans[float32](ne*w), nans[float32](ne*w)
	Backward(ds, g, norm, got, dy, w)
	useAVX2 = false
	Backward(dsGo, g, norm, got, dy, w)
	useAVX2 = true
	wantDs := composed(g, norm, got, dy, w)
	for i, wv := range wantDs {
		if math.Float32bits(ds[i]) != math.Float32bits(dsGo[i]) && !(math.IsNaN(wv) && ds[i] != ds[i] && dsGo[i] != dsGo[i]) {
			t.Fatalf("%s: backward element %d is %v with AVX2, %v in Go", name, i, ds[i], dsGo[i])
		}
		if !math.IsNaN(wv) && !(math.Abs(float64(ds[i])-wv) <= 2e-6*max(1, math.Abs(wv))) {
			t.Fatalf("%s: backward element %d is %v, want %v", name, i, ds[i], wv)
		}
	}
}

// checkForward checks the forward outputs got, of the path under test, and
// other, of the path it is compared with (name says which), against the
// float64 reference want: NaN where want is NaN, 0 where the score is
// -Inf, and within the rounding of the float32 exponential (about 1e-7
// relative) and of the output and quotient of want and of each other; with
// sameBits, the bits of other.
func checkForward(t *testing.T, name string, want []float64, got, other, score []float32, sameBits bool) {
	t.Helper()
	const tol = 4e-7
	for i, wv := range want {
		gv, ov := float64(got[i]), float64(other[i])
		if math.IsNaN(wv) {
			if !math.IsNaN(gv) || !math.IsNaN(ov) {
				t.Fatalf("%s: forward element %d is %v, %v, want NaN", name, i, gv, ov)
			}
			continue
		}
		if sameBits && math.Float32bits(got[i]) != math.Float32bits(other[i]) {
			t.Fatalf("%s: forward element %d is %v, %v, want the same bits", name, i, gv, ov)
		}
		if math.IsInf(float64(score[i]), -1) && gv != 0 {
			t.Fatalf("%s: forward element %d of score -Inf is %v, want 0", name, i, gv)
		}
		if !(math.Abs(gv-wv) <= tol) || !(math.Abs(gv-ov) <= tol) {
			t.Fatalf("%s: forward element %d is %v, %v, want %v", name, i, gv, ov, wv)
		}
	}
}

// TestAccelSpecial checks the special scores of TestSpecialScores through
// the AVX2 kernel, in full and in masked column blocks: NaN or +Inf in a
// column, or only -Inf, give NaN in that column of the group; -Inf
// elsewhere gives 0; columns are independent.
func TestAccelSpecial(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	defer func(d int) { prefetchDist = d }(prefetchDist)
	g := mustGraph(t, 3, 2, []int32{0, 1, 2, 0, 1}, []int32{0, 0, 0, 1, 1})
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	// Column h of destination 1 (edges 3 and 4) is column h%8 of d1: NaN,
	// NaN first, +Inf, only -Inf, or finite; destination 0 (edges 0-2) is
	// {-Inf, 0, 0} in every column.
	d1 := [2][8]float32{
		{1, nan, inf, -inf, 1, 2, 3, 4},
		{nan, 1, 1, -inf, 2, 3, 4, 5},
	}
	for _, w := range []int{2, 3, 4, 8, 11} {
		score := make([]float32, 5*w)
		for h := range w {
			score[0*w+h], score[1*w+h], score[2*w+h] = -inf, 0, 0
			score[3*w+h], score[4*w+h] = d1[0][h%8], d1[1][h%8]
		}
		for _, dist := range []int{0, 16} {
			prefetchDist = dist
			got := make([]float32, len(score))
			Forward(got, g, ByDst, score, w)
			for h := range w {
				if got[h] != 0 || got[w+h] != 0.5 || got[2*w+h] != 0.5 {
					t.Errorf("width %d: column %d into destination 0: %v, %v, %v, want 0, 0.5, 0.5", w, h, got[h], got[w+h], got[2*w+h])
				}
				a, b := got[3*w+h], got[4*w+h]
				if wantNaN := h%8 < 4; wantNaN != (a != a && b != b) {
					t.Errorf("width %d: column %d into destination 1: %v, %v", w, h, a, b)
				}
				if h%8 >= 4 {
					// Scores x and x+1: 1/(1+e) and e/(1+e).
					want := 1 / (1 + math.E)
					if math.Abs(float64(a)-want) > 1e-7 || math.Abs(float64(b)-(1-want)) > 1e-7 {
						t.Errorf("width %d: column %d into destination 1: %v, %v, want %v, %v", w, h, a, b, want, 1-want)
					}
				}
			}
		}
	}
}

// TestAccelNarrow checks that the kernels of rows of 2 and 4 floats give
// the bits of the general kernels (masked blocks of 8 lanes), forward and
// backward, on groups of every size modulo the 4 or 2 edges they pack, in
// random and destination order, with masked, large and nearly equal
// scores.
func TestAccelNarrow(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	rng := rand.New(rand.NewPCG(13, 13))
	sizes := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 33, 1000, 3}
	graphs := []struct {
		name string
		g    *graph.Graph
	}{
		{"groups", groupGraph(t, rng, 50, sizes)},
		{"random", randomGraph(t, rng, 200, 150, 4000)},
	}
	for _, tg := range graphs {
		for _, norm := range norms {
			for _, w := range []int{2, 4} {
				for _, kind := range []string{"normal", "large", "masked", "tiny"} {
					name := fmt.Sprintf("%s/%v/width=%d/%s", tg.name, norm, w, kind)
					ne := tg.g.NumEdges()
					score := accelScores(rng, ne*w, kind)
					got, want := nans[float32](ne*w), nans[float32](ne*w)
					Forward(got, tg.g, norm, score, w)
					useNarrow = false
					Forward(want, tg.g, norm, score, w)
					useNarrow = true
					sameBits(t, name+" forward", got, want)
					// Against the Go loops and the reference too.
					compareAccel(t, name, tg.g, norm, w, score)
					dy := scores[float32](rng, ne*w, 1)
					Backward(got, tg.g, norm, want, dy, w)
					useNarrow = false
					Backward(want, tg.g, norm, want, dy, w) // in place: ds may be y
					useNarrow = true
					sameBits(t, name+" backward", got, want)
				}
			}
		}
	}
}

// sameBits fails the test unless got and want have the same bits, NaN
// matching any NaN.
func sameBits(t *testing.T, name string, got, want []float32) {
	t.Helper()
	for i, v := range got {
		if math.Float32bits(v) != math.Float32bits(want[i]) && !(v != v && want[i] != want[i]) {
			t.Fatalf("%s: element %d is %v, want %v", name, i, v, want[i])
		}
	}
}
