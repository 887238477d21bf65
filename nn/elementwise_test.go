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

// awayFromZero moves draws at least 0.1 from 0, where ReLU has its kink
// and finite differences would straddle it.
func awayFromZero(v []float64) []float64 {
	for i, x := range v {
		if x >= 0 {
			v[i] = x + 0.1
		} else {
			v[i] = x - 0.1
		}
	}
	return v
}

// TestAddBias checks AddBias against gorgonia.BroadcastAdd, forward, and
// its gradients by finite differences, for a matrix and a (N, H, F) x.
func TestAddBias(t *testing.T) {
	for _, shape := range [][]int{{7, 5}, {6, 3, 4}, {1, 2}} {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%v/%v", shape, dt), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(len(shape)), 1))
				n := tensor.Shape(shape).TotalSize()
				eg := gorgonia.NewGraph()
				x := gradcheck.Input(eg, dt, "x", shape, gradcheck.Draw(r, n))
				b := gradcheck.Input(eg, dt, "b", shape[1:], gradcheck.Draw(r, n/shape[0]))
				got, err := AddBias(x, b)
				if err != nil {
					t.Fatal(err)
				}
				flat := gorgonia.Must(gorgonia.Reshape(x, tensor.Shape{shape[0], n / shape[0]}))
				bflat := gorgonia.Must(gorgonia.Reshape(b, tensor.Shape{n / shape[0]}))
				want := gorgonia.Must(gorgonia.BroadcastAdd(flat, bflat, nil, []byte{0}))
				v := gradcheck.Run(t, got, want)
				gradcheck.Expect(t, "AddBias", v[0], v[1], 0)
				gradcheck.Check(t, dt, func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
					x := gradcheck.Input(eg, dt, "x", shape, gradcheck.Draw(r, n))
					b := gradcheck.Input(eg, dt, "b", shape[1:], gradcheck.Draw(r, n/shape[0]))
					y, err := AddBias(x, b)
					return y, gorgonia.Nodes{x, b}, err
				}, gradcheck.Options{Seed: uint64(n), Stream: 5, Float32Tol: 1e-5})
			})
		}
	}
}

// TestActivations checks ReLU against gorgonia.Rectify and ELU against its
// formula, forward, and their gradients by finite differences, away from
// the kink at 0.
func TestActivations(t *testing.T) {
	eluRef := func(x float64) float64 {
		if x > 0 {
			return x
		}
		return math.Expm1(x)
	}
	for _, fn := range []struct {
		name string
		f    func(*gorgonia.Node) (*gorgonia.Node, error)
	}{{"relu", ReLU}, {"elu", ELU}} {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fn.name+"/"+dt.String(), func(t *testing.T) {
				r := rand.New(rand.NewPCG(2, 3))
				vals := gradcheck.Draw(r, 36)
				eg := gorgonia.NewGraph()
				x := gradcheck.Input(eg, dt, "x", []int{9, 4}, vals)
				got, err := fn.f(x)
				if err != nil {
					t.Fatal(err)
				}
				if fn.name == "relu" {
					want := gorgonia.Must(gorgonia.Rectify(x))
					v := gradcheck.Run(t, got, want)
					gradcheck.Expect(t, "ReLU", v[0], v[1], 0)
				} else {
					want := make([]float64, len(vals))
					for i, v := range vals {
						want[i] = eluRef(v)
					}
					tol := 1e-15
					if dt == tensor.Float32 {
						tol = 1e-7
					}
					gradcheck.Expect(t, "ELU", gradcheck.Run(t, got)[0], want, tol)
				}
				gradcheck.Check(t, dt, func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
					x := gradcheck.Input(eg, dt, "x", []int{9, 4}, awayFromZero(gradcheck.Draw(r, 36)))
					y, err := fn.f(x)
					return y, gorgonia.Nodes{x}, err
				}, gradcheck.Options{Seed: 4, Stream: 6, Float32Tol: 1e-5})
			})
		}
	}
}

// TestElementwiseErrors checks the input checks of AddBias, ReLU and ELU.
func TestElementwiseErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	m := func(dt tensor.Dtype, shape ...int) *gorgonia.Node {
		return gorgonia.NewTensor(eg, dt, len(shape), gorgonia.WithShape(shape...))
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"bias shape", second(AddBias(m(tensor.Float32, 4, 3), m(tensor.Float32, 4))), "want (3)"},
		{"bias rank", second(AddBias(m(tensor.Float32, 4, 3, 2), m(tensor.Float32, 6))), "want (3, 2)"},
		{"bias dtype", second(AddBias(m(tensor.Float32, 4, 3), m(tensor.Float64, 3))), "dtypes"},
		{"bias nil", second(AddBias(nil, m(tensor.Float64, 3))), "nil"},
		{"relu dtype", second(ReLU(m(tensor.Int, 3))), "dtype"},
		{"relu nil", second(ReLU(nil)), "nil"},
		{"elu dtype", second(ELU(m(tensor.Int, 3))), "dtype"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

func second(_ *gorgonia.Node, err error) error { return err }
