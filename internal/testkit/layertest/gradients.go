package layertest

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// Model builds the computation under test on eg in dtype dt and returns its
// output and the nodes to differentiate with respect to (inputs and
// parameters). It must build the same numbers for both dtypes: draw inputs
// with gradcheck.Draw from a fixed seed.
type Model func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (out *gorgonia.Node, wrt gorgonia.Nodes, err error)

// Output draws features x (g.NumSrc() x in) from r and, when weighted, a
// column of edge weights ew, runs l on g, and returns its output and what a
// Model differentiates with respect to: x, l's learnables, then ew.
func Output(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand, g *graph.Graph, l Layer, in int, weighted bool) (*gorgonia.Node, gorgonia.Nodes, error) {
	x := gradcheck.Input(eg, dt, "x", []int{g.NumSrc(), in}, gradcheck.Draw(r, g.NumSrc()*in))
	wrt := append(gorgonia.Nodes{x}, l.Learnables()...)
	if !weighted {
		y, err := l.Forward(g, x)
		return y, wrt, err
	}
	ew := gradcheck.Input(eg, dt, "ew", []int{g.NumEdges(), 1}, gradcheck.Draw(r, g.NumEdges()))
	y, err := l.ForwardWeighted(g, x, ew)
	return y, append(wrt, ew), err
}

// LayerModel is the Model of a whole layer on g: build makes the layer in
// dtype dt, its learnables are randomised (scale 0.5) from PCG(seed, seed),
// and Output draws the features (in columns) and, when weighted, the edge
// weights from the same generator.
func LayerModel(g *graph.Graph, in int, weighted bool, seed uint64, build func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (Layer, error)) Model {
	return func(eg *gorgonia.ExprGraph, dt tensor.Dtype) (*gorgonia.Node, gorgonia.Nodes, error) {
		r := rand.New(rand.NewPCG(seed, seed))
		l, err := build(eg, dt)
		if err != nil {
			return nil, nil, err
		}
		Randomize(r, 0.5, l.Learnables()...)
		return Output(eg, dt, r, g, l, in, weighted)
	}
}

// GradConfig configures GradCheck.
type GradConfig struct {
	Seed uint64 // draws the projection R
	// Kinks says the model is only piecewise smooth (ReLU, max
	// aggregation): the float32 gradients are then compared with the
	// float64 ones only, because a finite-difference step that float32 can
	// resolve may cross a kink.
	Kinks bool
}

// rStream is the PCG stream R is drawn from.
const rStream = 0x5eed

// GradCheck runs gradcheck.Check on model in both dtypes, float32 gradients
// to 1e-3 of the float64 ones.
func GradCheck(t *testing.T, model Model, c GradConfig) {
	t.Helper()
	f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, _ *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
		return model(eg, dt)
	}
	for _, dt := range gradcheck.Dtypes {
		gradcheck.Check(t, dt, f, gradcheck.Options{Seed: c.Seed, Stream: rStream, Float32Tol: 1e-3, NonSmooth: c.Kinks})
	}
}

// Gradients returns the values of the gradients of sum(out ⊙ R) (R drawn
// from seed) with respect to wrt: for comparing two ways of computing the
// same layer.
func Gradients(t *testing.T, out *gorgonia.Node, wrt gorgonia.Nodes, seed uint64) [][]float64 {
	t.Helper()
	return gradcheck.Gradients(t, out, wrt, rand.New(rand.NewPCG(seed, rStream)))
}
