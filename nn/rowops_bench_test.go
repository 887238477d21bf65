package nn

import (
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BenchmarkRowOps times the row-wise ops of a GIN MLP on a PROTEINS-sized
// (43471, 32) float32 matrix: the fused batch norm forward, its dx and
// dgamma, the bias gradient and ReLU's gradient, each called directly
// into an output buffer reused from call to call, as nn/vm runs them.
func BenchmarkRowOps(b *testing.B) {
	const n, f = 43471, 32
	r := rand.New(rand.NewPCG(1, 2))
	mk := func(size ...int) *tensor.Dense {
		d := make([]float32, tensor.Shape(size).TotalSize())
		for i := range d {
			d[i] = float32(r.NormFloat64())
		}
		return tensor.New(tensor.WithShape(size...), tensor.WithBacking(d))
	}
	x, dy, g, beta := mk(n, f), mk(n, f), mk(f), mk(f)
	bn := &batchNormOp{n: n, f: f, eps: 1e-5, cache: new(bnCache)}
	shape := tensor.Shape{n, f}
	cases := []struct {
		name string
		op   interface {
			DoInto(*tensor.Dense, []gorgonia.Value) (gorgonia.Value, error)
		}
		vals []gorgonia.Value
	}{
		{"op=batch_norm_shift_relu", &batchNormShiftOp{bn: bn, relu: true}, []gorgonia.Value{x, g, beta}},
		{"op=batch_norm_dx", &batchNormGradOp{fwd: bn, kind: bnDX}, []gorgonia.Value{x, g, dy}},
		{"op=batch_norm_dgamma", &batchNormGradOp{fwd: &batchNormOp{n: n, f: f, eps: 1e-5, cache: new(bnCache)}, kind: bnDGamma}, []gorgonia.Value{x, dy}},
		{"op=dbias", &biasGradOp{fwd: &biasOp{shape: shape}}, []gorgonia.Value{dy}},
		{"op=drelu", &activationGradOp{fwd: &activationOp{fn: relu, shape: shape}}, []gorgonia.Value{x, dy}},
		{"op=add_bias", &biasOp{shape: shape}, []gorgonia.Value{x, beta}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			out, err := c.op.DoInto(nil, c.vals)
			if err != nil {
				b.Fatal(err)
			}
			dst := out.(*tensor.Dense)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.op.DoInto(dst, c.vals); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*f)*float64(b.N)/b.Elapsed().Seconds(), "elems/s")
		})
	}
}
