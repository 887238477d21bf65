package ops_test

import (
	"runtime"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// TestFusedAllocation checks that builtin message + reduce pairs, forward and
// backward, allocate nothing proportional to edges x features: on a graph
// where E x F floats would be 51 MB, a training step of u_mul_e + sum (with a
// weight per edge, and with multi-head weights) must allocate well under it.
func TestFusedAllocation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200k-edge graph")
	}
	const n, e, f = 2000, 200_000, 64
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		t.Fatal(err)
	}
	g.CSR()
	g.CSC()
	edgeBytes := uint64(e * f * 4)
	for _, c := range []struct {
		name   string
		xs, ws []int
	}{
		{"edge-scalar", []int{f}, []int{1}},
		{"heads", []int{8, 8}, []int{8, 1}},
	} {
		eg := gorgonia.NewGraph()
		x := gradcheck.Input(eg, tensor.Float32, "x", shapeOf(n, c.xs), make([]float64, n*f))
		w := gradcheck.Input(eg, tensor.Float32, "w", shapeOf(e, c.ws), make([]float64, e*size(c.ws)))
		z, err := ops.UMulESum(g, x, w)
		if err != nil {
			t.Fatal(err)
		}
		cost, err := gorgonia.Sum(z)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gorgonia.Grad(cost, x, w); err != nil {
			t.Fatal(err)
		}
		got, _ := stepBytes(t, eg)
		t.Logf("%s: %d bytes per step (E x F x 4 = %d)", c.name, got, edgeBytes)
		if got > edgeBytes/4 {
			t.Errorf("%s: a training step allocated %d bytes; E x F x 4 is %d", c.name, got, edgeBytes)
		}
	}
}

// stepBytes runs all of eg on a TapeMachine once to warm it up, then
// returns the bytes allocated by a second run and the average number of
// allocations of three more.
func stepBytes(t *testing.T, eg *gorgonia.ExprGraph) (bytes uint64, allocs float64) {
	t.Helper()
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	run := func() {
		vm.Reset()
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
	}
	run()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, testing.AllocsPerRun(3, run)
}
