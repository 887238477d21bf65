package ops_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// TestPairScoreDeterminism checks that UCosV and DistMult (with several
// relations and with one), forward and backward, give the same bits at
// GOMAXPROCS 1 and 2 on a graph large enough to be split over goroutines.
func TestPairScoreDeterminism(t *testing.T) {
	const n, e, f, nrel = 3000, 60_000, 16, 5
	g, err := generate.Uniform(n, e, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	hv, wv := gradcheck.Draw(rng, n*f), gradcheck.Draw(rng, nrel*f)
	rel := make([]int32, e)
	for i := range rel {
		rel[i] = int32(rng.IntN(nrel))
	}
	one := make([]int32, e)
	run := func(procs int, name string) [][]float64 {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		eg := gorgonia.NewGraph()
		h := gradcheck.Input(eg, tensor.Float32, "h", []int{n, f}, hv)
		w := gradcheck.Input(eg, tensor.Float32, "w", []int{nrel, f}, wv)
		wrt := gorgonia.Nodes{h}
		var s *gorgonia.Node
		switch name {
		case "cos":
			s, err = ops.UCosV(g, h, h, 1e-8)
		case "distmult":
			s, err = ops.DistMult(g, h, w, h, rel)
			wrt = append(wrt, w)
		default: // one relation: the SDDMM/SpMM path
			w1 := gradcheck.Input(eg, tensor.Float32, "w1", []int{1, f}, wv[:f])
			s, err = ops.DistMult(g, h, w1, h, one)
			wrt = append(wrt, w1)
		}
		if err != nil {
			t.Fatal(err)
		}
		grads := gradcheck.Gradients(t, s, wrt, rand.New(rand.NewPCG(9, 9)))
		return append([][]float64{gradcheck.Floats(s.Value())}, grads...)
	}
	for _, name := range []string{"cos", "distmult", "distmult1"} {
		one, two := run(1, name), run(2, name)
		for i := range one {
			if !slices.Equal(one[i], two[i]) {
				t.Errorf("%s: output %d differs between GOMAXPROCS 1 and 2", name, i)
			}
		}
	}
}
