package gat_test

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/layertest"
	"github.com/gnngo/gnn/nn/gat"
)

// TestOutputAfterGradients reads the output of a layer averaging its heads
// after a run that also computes gradients: it must be the forward value
// (with gorgonia.Mean, the backward pass overwrote it with 1/H of it).
func TestOutputAfterGradients(t *testing.T) {
	t.Parallel()
	for _, dt := range gradcheck.Dtypes {
		eg := gorgonia.NewGraph()
		g := gradcheck.Graph(t, testN, testN, testSrc, testDst)
		l, err := gat.New(eg, 3, 2, gat.WithHeads(4), gat.WithMeanHeads(true), gat.WithSeed(5), gat.WithDtype(dt))
		if err != nil {
			t.Fatal(err)
		}
		y, wrt, err := layertest.Output(eg, dt, rand.New(rand.NewPCG(1, 1)), g, l, 3, false)
		if err != nil {
			t.Fatal(err)
		}
		forward := gorgonia.NewTapeMachine(eg.SubgraphRoots(y))
		if err := forward.RunAll(); err != nil {
			t.Fatal(err)
		}
		forward.Close()
		want := gradcheck.Floats(y.Value())
		layertest.Gradients(t, y, wrt, 2) // runs the forward and backward passes
		gradcheck.Expect(t, dt.String()+" output after the gradient run", gradcheck.Floats(y.Value()), want, 0)
	}
}
