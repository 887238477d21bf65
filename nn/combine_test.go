package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// TestCombine checks Combine against an elementwise loop and its gradients
// by finite differences, for one, two and three terms, on a tensor large
// enough to be split over goroutines too.
func TestCombine(t *testing.T) {
	t.Parallel()
	for _, coeffs := range [][]float64{{-1.5}, {0.9, 0.1}, {-2, 1.5, -1}} {
		for _, shape := range [][]int{{3, 4}, {5, 2, 3}, {20000, 2}} {
			for _, dt := range gradcheck.Dtypes {
				t.Run(fmt.Sprintf("%v/%v/%v", coeffs, shape, dt), func(t *testing.T) {
					model := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
						n := tensor.Shape(shape).TotalSize()
						var xs gorgonia.Nodes
						for i := range coeffs {
							xs = append(xs, gradcheck.Input(eg, dt, fmt.Sprintf("x%d", i), shape, gradcheck.Draw(r, n)))
						}
						y, err := Combine(coeffs, xs...)
						return y, xs, err
					}
					eg := gorgonia.NewGraph()
					y, xs, err := model(eg, dt, rand.New(rand.NewPCG(1, 1)))
					if err != nil {
						t.Fatal(err)
					}
					in := gradcheck.Values(xs)
					want := make([]float64, len(in[0]))
					for i, c := range coeffs {
						for j, x := range in[i] {
							want[j] += c * x
						}
					}
					tol := 1e-12
					if dt == tensor.Float32 {
						tol = 1e-6
					}
					gradcheck.Expect(t, "combination", gradcheck.Run(t, y)[0], want, tol)
					if len(want) < 100 {
						gradcheck.Check(t, dt, model, gradcheck.Options{Seed: 2, Stream: 3, Float32Tol: 1e-6})
					}
				})
			}
		}
	}
}

func TestCombineErrors(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a := gradcheck.Zeros(eg, tensor.Float64, "a", 2, 3)
	b := gradcheck.Zeros(eg, tensor.Float64, "b", 3, 2)
	c := gradcheck.Zeros(eg, tensor.Float32, "c", 2, 3)
	for _, k := range []struct {
		name   string
		coeffs []float64
		xs     []*gorgonia.Node
		want   string
	}{
		{"none", nil, nil, "0 tensors"},
		{"count", []float64{1}, []*gorgonia.Node{a, a}, "2 tensors with 1 coefficients"},
		{"nan", []float64{math.NaN()}, []*gorgonia.Node{a}, "coefficient 0"},
		{"nil", []float64{1, 1}, []*gorgonia.Node{a, nil}, "tensor 1 is nil"},
		{"shape", []float64{1, 1}, []*gorgonia.Node{a, b}, `"b" is float64 (3, 2)`},
		{"dtype", []float64{1, 1}, []*gorgonia.Node{a, c}, `"c" is float32`},
	} {
		if _, err := Combine(k.coeffs, k.xs...); err == nil || !strings.Contains(err.Error(), k.want) {
			t.Errorf("%s: error %v, want one containing %q", k.name, err, k.want)
		}
	}
}
