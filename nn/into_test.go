package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/opkit"
)

// TestDoInto: the ops with a DoInto method write into a buffer of the
// output's shape and dtype holding anything, with the bits of the op's Do
// (DoInto into a fresh value), and
// allocate a fresh output for a buffer that does not fit.
func TestDoInto(t *testing.T) {
	const n, k, f = 40, 6, 5
	r := rand.New(rand.NewPCG(3, 4))
	mk := func(size ...int) *tensor.Dense {
		d := make([]float32, tensor.Shape(size).TotalSize())
		for i := range d {
			d[i] = float32(r.NormFloat64())
		}
		return tensor.New(tensor.WithShape(size...), tensor.WithBacking(d))
	}
	x, w, b := mk(n, k), mk(k, f), mk(f)
	h, g, beta, dy := mk(n, f), mk(f), mk(f), mk(n, f)
	bn := &batchNormOp{n: n, f: f, eps: 1e-5, cache: new(bnCache)}
	for _, c := range []struct {
		name  string
		op    opkit.Into
		vals  []gorgonia.Value
		shape []int
	}{
		{"matmul_bias", &matMulBiasOp{mm: &matMulOp{n: n, k: k, m: f}}, []gorgonia.Value{x, w, b}, []int{n, f}},
		{"batch_norm", bn, []gorgonia.Value{h, g}, []int{n, f}},
		{"batch_norm_shift", &batchNormShiftOp{bn: bn, relu: true}, []gorgonia.Value{h, g, beta}, []int{n, f}},
		{"batch_norm_dx", &batchNormGradOp{fwd: bn, kind: bnDX}, []gorgonia.Value{h, g, dy}, []int{n, f}},
		{"batch_norm_dgamma", &batchNormGradOp{fwd: bn, kind: bnDGamma}, []gorgonia.Value{h, dy}, []int{f}},
	} {
		want, err := opkit.New("nn", c.op).Do(c.vals...) // DoInto into a fresh value
		if err != nil {
			t.Fatal(err)
		}
		dst := mk(c.shape...) // holds anything
		got, err := c.op.DoInto(dst, c.vals)
		if err != nil {
			t.Fatal(err)
		}
		if got != gorgonia.Value(dst) {
			t.Errorf("%s: DoInto did not write into the buffer it was given", c.name)
		}
		wd, gd := want.Data().([]float32), got.Data().([]float32)
		for i := range wd {
			if math.Float32bits(gd[i]) != math.Float32bits(wd[i]) {
				t.Fatalf("%s: element %d is %v into a buffer, %v by Do", c.name, i, gd[i], wd[i])
			}
		}
		misfit := mk(c.shape[0] + 1)
		if got, err := c.op.DoInto(misfit, c.vals); err != nil || got == gorgonia.Value(misfit) {
			t.Errorf("%s: into a buffer of another shape: %v, reused %v", c.name, err, got == gorgonia.Value(misfit))
		}
	}
}
