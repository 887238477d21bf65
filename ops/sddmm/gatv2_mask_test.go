package sddmm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// TestGATv2MaskZeros checks that GradAll's pass over the sources gives the
// bits of the Go loop of maskRows with the AVX2 kernel, on a random graph
// and one numbered by destination, for the shapes with loops of their own
// (8 heads of 8 and of 2 features, whose rows the kernel keeps in
// registers) and some of the general loops, when per-edge gradients are
// zeros of either sign: score gradients of +0 and -0 (every one of head 0
// -0, so that whole sums of a source are sums of zeros, +0 from the
// cleared row), elements of A of +0 and -0, and t exactly 0 (ties).
func TestGATv2MaskZeros(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	rng := rand.New(rand.NewPCG(25, 5))
	random := randomGraph(t, rng, 120, 90, 2500)
	byDst, _, err := random.ReorderEdges(graph.ByDst)
	if err != nil {
		t.Fatal(err)
	}
	for gname, g := range map[string]*graph.Graph{"random": random, "dst": byDst} {
		for _, hf := range [][2]int{{8, 8}, {8, 2}, {4, 8}, {2, 16}, {8, 4}} {
			h, f := hf[0], hf[1]
			k, ds := newGATv2[float32](rng, g, h, f, 0, 0.2, true)
			k.A[0], k.A[f] = float32(math.Copysign(0, -1)), 0
			for e := range g.NumEdges() {
				ds[e*h] = float32(math.Copysign(0, -1))
				for hd := 1; hd < h; hd++ {
					switch rng.IntN(5) {
					case 0:
						ds[e*h+hd] = 0
					case 1:
						ds[e*h+hd] = float32(math.Copysign(0, -1))
					}
				}
			}
			name := fmt.Sprintf("%s/h=%d/f=%d", gname, h, f)
			got := k.run(ds)
			useAVX2 = false
			want := k.run(ds)
			useAVX2 = true
			sameBits(t, name, got, want)
			if math.Signbit(float64(got.dzl[0])) {
				t.Fatalf("%s: dZL[0], a sum of zeros, is -0", name)
			}
		}
	}
}
