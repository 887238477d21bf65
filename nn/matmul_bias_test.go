package nn

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// TestMatMulBias checks MatMulBias against the formula and by finite
// differences, and requires its output and gradients to have the bits of
// MatMul then AddBias.
func TestMatMulBias(t *testing.T) {
	for _, s := range [][3]int{{7, 5, 3}, {2100, 9, 17}, {1, 4, 1}} {
		for _, dt := range gradcheck.Dtypes {
			n, k, m := s[0], s[1], s[2]
			t.Run(fmt.Sprintf("%dx%dx%d/%v", n, k, m, dt), func(t *testing.T) {
				build := func(fused bool) gradcheck.Func {
					return func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
						x := gradcheck.Input(eg, dt, "x", []int{n, k}, gradcheck.Draw(r, n*k))
						w := gradcheck.Input(eg, dt, "w", []int{k, m}, gradcheck.Draw(r, k*m))
						b := gradcheck.Input(eg, dt, "b", []int{m}, gradcheck.Draw(r, m))
						in := gorgonia.Nodes{x, w, b}
						if fused {
							y, err := MatMulBias(x, w, b)
							return y, in, err
						}
						y, err := MatMul(x, w)
						if err != nil {
							return nil, nil, err
						}
						y, err = AddBias(y, b)
						return y, in, err
					}
				}
				outputs := func(fused bool) [][]float64 {
					y, in, err := build(fused)(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(1, 2)))
					if err != nil {
						t.Fatal(err)
					}
					grads := gradcheck.Gradients(t, y, in, rand.New(rand.NewPCG(3, 4)))
					return append(gradcheck.Run(t, y), grads...)
				}
				got, want := outputs(true), outputs(false)
				for i, what := range []string{"output", "dx", "dw", "db"} {
					gradcheck.Expect(t, what+" against the separate ops", got[i], want[i], 0)
				}
				y, in, _ := build(true)(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(1, 2)))
				x, w, b := gradcheck.Floats(in[0].Value()), gradcheck.Floats(in[1].Value()), gradcheck.Floats(in[2].Value())
				ref := make([]float64, n*m)
				for i := range n {
					for j := range m {
						for l := range k {
							ref[i*m+j] += x[i*k+l] * w[l*m+j]
						}
						ref[i*m+j] += b[j]
					}
				}
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-5
				}
				gradcheck.Expect(t, "MatMulBias", gradcheck.Run(t, y)[0], ref, tol)
				if n*k < 1000 {
					gradcheck.Check(t, dt, build(true), gradcheck.Options{Seed: 5, Stream: uint64(n), Float32Tol: 1e-3})
				}
			})
		}
	}
}

func TestMatMulBiasErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(4, 3), gorgonia.WithName("x"))
	w := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(3, 2), gorgonia.WithName("w"))
	b3 := gorgonia.NewVector(eg, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("b3"))
	b64 := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(2), gorgonia.WithName("b64"))
	for _, c := range []struct {
		x, b *gorgonia.Node
		want string
	}{
		{x, nil, "nil bias"},
		{x, b3, `bias "b3" has shape (3), want (2)`},
		{x, b64, `bias "b64" is float64`},
		{b3, b3, "MatMulBias needs two matrices"},
	} {
		if _, err := MatMulBias(c.x, w, c.b); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}
