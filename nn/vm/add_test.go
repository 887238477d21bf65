package vm_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/vm"
)

// TestAdd checks that a Machine's addition of two tensors (its own
// kernel) gives the bits of an addition in Go, in float32 and float64, for
// sizes with and without a tail that does not fill a vector, with zeros
// of both signs, NaN and infinities among the values; and that an
// addition of a tensor and a scalar still runs Gorgonia's op.
func TestAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1)}
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, n := range []int{1, 7, 8, 33, 1000, 40001} {
			vals := func() *tensor.Dense {
				d := tensor.New(tensor.WithShape(n, 1), tensor.Of(dt))
				for i := range n {
					v := r.NormFloat64()
					if r.IntN(10) == 0 {
						v = special[r.IntN(len(special))]
					}
					if dt == tensor.Float32 {
						d.Data().([]float32)[i] = float32(v)
					} else {
						d.Data().([]float64)[i] = v
					}
				}
				return d
			}
			eg := gorgonia.NewGraph()
			a := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(n, 1), gorgonia.WithName("a"), gorgonia.WithValue(vals()))
			b := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(n, 1), gorgonia.WithName("b"), gorgonia.WithValue(vals()))
			s := gorgonia.NewScalar(eg, dt, gorgonia.WithName("s"), gorgonia.WithValue(scalar(dt, 1.5)))
			sum := gorgonia.Must(gorgonia.Add(a, b))
			shifted := gorgonia.Must(gorgonia.Add(sum, s))
			want := []gorgonia.Value{reference(a.Value(), b.Value(), 0), reference(a.Value(), b.Value(), 1.5)}
			m, err := vm.New(gorgonia.Nodes{sum, shifted})
			if err != nil {
				t.Fatal(err)
			}
			for run := range 2 {
				if err := m.RunAll(); err != nil {
					t.Fatal(err)
				}
				for k, node := range []*gorgonia.Node{sum, shifted} {
					if got := node.Value(); !equalBits(got, want[k]) {
						t.Fatalf("%v n=%d run %d: %v differs from the tape's: %v vs %v (a %v b %v)", dt, n, run, node.Name(), node.Value(), want[k], a.Value(), b.Value())
					}
				}
			}
			m.Close()
		}
	}
}

// reference returns a + b + s element by element, in the dtype of a
// (the tape cannot be the reference: it overwrites the sum of a (1, 1)
// graph with the next addition).
func reference(a, b gorgonia.Value, s float64) gorgonia.Value {
	switch x := a.Data().(type) {
	case []float32:
		y, out := b.Data().([]float32), make([]float32, len(x))
		for i := range x {
			out[i] = x[i] + y[i]
			if s != 0 {
				out[i] += float32(s)
			}
		}
		return tensor.New(tensor.WithShape(len(out), 1), tensor.WithBacking(out))
	case []float64:
		y, out := b.Data().([]float64), make([]float64, len(x))
		for i := range x {
			out[i] = x[i] + y[i]
			if s != 0 {
				out[i] += s
			}
		}
		return tensor.New(tensor.WithShape(len(out), 1), tensor.WithBacking(out))
	}
	return nil
}

func scalar(dt tensor.Dtype, v float64) any {
	if dt == tensor.Float32 {
		return float32(v)
	}
	return v
}

// equalBits reports whether two dense values hold the same bits, any NaN
// matching any NaN.
func equalBits(a, b gorgonia.Value) bool {
	switch x := a.Data().(type) {
	case float32:
		y := b.Data().(float32)
		return math.Float32bits(x) == math.Float32bits(y) || x != x && y != y
	case float64:
		y := b.Data().(float64)
		return math.Float64bits(x) == math.Float64bits(y) || x != x && y != y
	case []float32:
		y := b.Data().([]float32)
		for i := range x {
			if math.Float32bits(x[i]) != math.Float32bits(y[i]) && !(x[i] != x[i] && y[i] != y[i]) {
				return false
			}
		}
		return len(x) == len(y)
	case []float64:
		y := b.Data().([]float64)
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) && !(x[i] != x[i] && y[i] != y[i]) {
				return false
			}
		}
		return len(x) == len(y)
	}
	return false
}
