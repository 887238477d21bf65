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

// matMulShapes reach the vector kernel (M a multiple of 8) and the Go path.
var matMulShapes = [][3]int{{5, 3, 8}, {7, 6, 5}, {4, 9, 16}}

// TestMatMul checks MatMul against gorgonia.Mul, forward, and its
// gradients by finite differences, in float64 and float32.
func TestMatMul(t *testing.T) {
	for _, s := range matMulShapes {
		n, k, m := s[0], s[1], s[2]
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%dx%dx%d/%v", n, k, m, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(n), uint64(m)))
				xv, wv := gradcheck.Draw(r, n*k), gradcheck.Draw(r, k*m)
				eg := gorgonia.NewGraph()
				x := gradcheck.Input(eg, dt, "x", []int{n, k}, xv)
				w := gradcheck.Input(eg, dt, "w", []int{k, m}, wv)
				got, err := MatMul(x, w)
				if err != nil {
					t.Fatal(err)
				}
				want := gorgonia.Must(gorgonia.Mul(x, w))
				vm := gorgonia.NewTapeMachine(eg)
				defer vm.Close()
				if err := vm.RunAll(); err != nil {
					t.Fatal(err)
				}
				g, wt := gradcheck.Floats(got.Value()), gradcheck.Floats(want.Value())
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 1e-5
				}
				if i := gradcheck.Mismatch(g, wt, tol); i >= 0 {
					t.Fatalf("element %d = %v, gorgonia.Mul gives %v", i, g[i], wt[i])
				}
				gradcheck.Check(t, dt, func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
					x := gradcheck.Input(eg, dt, "x", []int{n, k}, gradcheck.Draw(r, n*k))
					w := gradcheck.Input(eg, dt, "w", []int{k, m}, gradcheck.Draw(r, k*m))
					y, err := MatMul(x, w)
					return y, gorgonia.Nodes{x, w}, err
				}, gradcheck.Options{Seed: uint64(n * m), Stream: 3, Float32Tol: 1e-4})
			})
		}
	}
}

// TestMatMulErrors checks the shape and dtype checks.
func TestMatMulErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	m := func(dt tensor.Dtype, shape ...int) *gorgonia.Node {
		return gorgonia.NewTensor(eg, dt, len(shape), gorgonia.WithShape(shape...))
	}
	for _, c := range []struct {
		x, w *gorgonia.Node
		want string
	}{
		{m(tensor.Float32, 3, 4), m(tensor.Float32, 5, 2), "inner sizes"},
		{m(tensor.Float32, 3, 4, 1), m(tensor.Float32, 4, 2), "two matrices"},
		{m(tensor.Float32, 3, 4), m(tensor.Float64, 4, 2), "dtypes"},
		{nil, m(tensor.Float64, 4, 2), "nil"},
	} {
		if _, err := MatMul(c.x, c.w); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want one mentioning %q", err, c.want)
		}
	}
}
