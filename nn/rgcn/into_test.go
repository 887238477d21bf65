package rgcn_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/vm"
)

// intoOp is what nn/vm asks of an op that writes into a buffer it is given.
type intoOp interface {
	Do(...gorgonia.Value) (gorgonia.Value, error)
	DoInto(dst gorgonia.Value, vals ...gorgonia.Value) (gorgonia.Value, error)
}

// TestSegmentMatMulInto checks that SegmentMatMul and each of its backward
// ops write into a buffer of the output's shape holding anything (a
// machine's pooled buffer from an earlier run) with the bits of Do, and
// that a machine running a training step twice, the second time into the
// buffers of the first, gives the bits of a fresh one.
func TestSegmentMatMulInto(t *testing.T) {
	orders(t, func(t *testing.T) {
		for _, c := range segCases {
			for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
				name := fmt.Sprintf("%s %v", c.name, dt)
				rel, _, _, _, _ := segRelations(t, c)
				eg := gorgonia.NewGraph()
				x, w, loop, bias := segInputs(eg, dt, rand.New(rand.NewPCG(1, 2)), c, 4, 6)
				y, err := rgcn.SegmentMatMul(rel, x, w, loop, bias)
				if err != nil {
					t.Fatal(err)
				}
				cost, err := gorgonia.Sum(y)
				if err != nil {
					t.Fatal(err)
				}
				wrt := gorgonia.Nodes{x, w}
				for _, p := range []*gorgonia.Node{loop, bias} {
					if p != nil {
						wrt = append(wrt, p)
					}
				}
				grads, err := gorgonia.Grad(cost, wrt...)
				if err != nil {
					t.Fatal(err)
				}
				roots := append(gorgonia.Nodes{y}, grads...)
				m, err := vm.New(roots)
				if err != nil {
					t.Fatal(err)
				}
				if err := m.RunAll(); err != nil {
					t.Fatal(err)
				}
				first := snapshot(roots)
				// Every segment op, into a buffer of garbage.
				checked := 0
				for _, n := range roots {
					op, ok := n.Op().(intoOp)
					if !ok {
						continue
					}
					vals := inputValues(t, eg, n)
					want, err := op.Do(vals...)
					if err != nil {
						t.Fatal(err)
					}
					dst := garbage(n.Shape(), dt)
					got, err := op.DoInto(dst, vals...)
					if err != nil {
						t.Fatal(err)
					}
					if got != gorgonia.Value(dst) {
						t.Errorf("%s: %v did not write into the buffer it was given", name, n)
					}
					equalBits(t, fmt.Sprintf("%s: %v", name, n), bitsOf(got), bitsOf(want))
					checked++
				}
				if checked < len(wrt) {
					t.Fatalf("%s: only %d of the step's ops write into a buffer", name, checked)
				}
				if err := m.RunAll(); err != nil {
					t.Fatal(err)
				}
				for i, v := range snapshot(roots) {
					equalBits(t, fmt.Sprintf("%s: second run, %v", name, roots[i]), v, first[i])
				}
			}
		}
	})
}

// inputValues returns the values of n's inputs, in order.
func inputValues(t *testing.T, eg *gorgonia.ExprGraph, n *gorgonia.Node) []gorgonia.Value {
	t.Helper()
	var vals []gorgonia.Value
	for kids := eg.From(n.ID()); kids.Next(); {
		vals = append(vals, kids.Node().(*gorgonia.Node).Value())
	}
	return vals
}

// garbage returns a tensor of the shape and dtype filled with NaN.
func garbage(s tensor.Shape, dt tensor.Dtype) *tensor.Dense {
	d := tensor.New(tensor.WithShape(s.Clone()...), tensor.Of(dt))
	switch x := d.Data().(type) {
	case []float32:
		for i := range x {
			x[i] = float32(math.NaN())
		}
	case []float64:
		for i := range x {
			x[i] = math.NaN()
		}
	}
	return d
}

// bitsOf returns v's elements as bit patterns.
func bitsOf(v gorgonia.Value) []uint64 {
	var out []uint64
	switch x := v.Data().(type) {
	case []float32:
		for _, f := range x {
			out = append(out, uint64(math.Float32bits(f)))
		}
	case []float64:
		for _, f := range x {
			out = append(out, math.Float64bits(f))
		}
	}
	return out
}

// snapshot copies the bits of the nodes' values.
func snapshot(nodes gorgonia.Nodes) [][]uint64 {
	out := make([][]uint64, len(nodes))
	for i, n := range nodes {
		out[i] = bitsOf(n.Value())
	}
	return out
}

func equalBits(t *testing.T, what string, got, want []uint64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: element %d has bits %x, want %x", what, i, got[i], want[i])
		}
	}
}
