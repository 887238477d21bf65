package ops_test

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// TestSubDivInKernels checks that Sub and Div run in the kernels: the
// forward pass of u_sub_e and u_div_e, as SpMM with sum and as SDDMM, builds
// no negated or inverted copy of the edge operand (E x F floats), so it
// allocates less than its output plus half of E x F.
func TestSubDivInKernels(t *testing.T) {
	const n, e, f = 500, 20_000, 16
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		t.Fatal(err)
	}
	g.CSR()
	g.CSC()
	edgeBytes := float64(e * f * 4)
	ones := make([]float64, e*f)
	for i := range ones {
		ones[i] = 1
	}
	for _, op := range []ops.Binary{ops.Sub, ops.Div} {
		for _, kind := range []string{"spmm", "sddmm"} {
			eg := gorgonia.NewGraph()
			x := gradcheck.Input(eg, tensor.Float32, "x", []int{n, f}, make([]float64, n*f))
			w := gradcheck.Input(eg, tensor.Float32, "w", []int{e, f}, ones)
			var z *gorgonia.Node
			out := float64(n * f * 4)
			if kind == "spmm" {
				z, err = ops.SpMM(g, op, ops.Sum, x, w)
			} else {
				z, err = ops.SDDMM(g, op, x, ops.U, w, ops.E)
				out = edgeBytes
			}
			if err != nil {
				t.Fatal(err)
			}
			bytes, allocs := stepBytes(t, eg)
			got := float64(bytes)
			t.Logf("%s u_%v_e: %.0f bytes and %.0f allocations per forward pass (output %.0f bytes, E x F x 4 = %.0f)", kind, op, got, allocs, out, edgeBytes)
			if got > out+edgeBytes/2 {
				t.Errorf("%s u_%v_e: a forward pass allocated %.0f bytes, more than its output (%.0f) and half of E x F x 4 (%.0f)", kind, op, got, out, edgeBytes)
			}
			if z.Value() == nil {
				t.Errorf("%s u_%v_e: no value", kind, op)
			}
		}
	}
}
