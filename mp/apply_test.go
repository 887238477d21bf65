package mp

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops/fn"
)

// TestApplyEdgesBuiltins checks every builtin message computed onto the
// edges by ApplyEdges against the same message written as an EdgeFunc
// (DGL's test_sddmm style), in value and gradient.
func TestApplyEdgesBuiltins(t *testing.T) {
	t.Parallel()
	for gname, g := range gradcheck.Fixtures(t) {
		for _, dt := range gradcheck.Dtypes {
			for _, m := range allMessages() {
				edges := func(msg MessageFunc) program {
					return func(f *Frame) (*gorgonia.Node, error) {
						if err := f.ApplyEdges(msg); err != nil {
							return nil, err
						}
						return f.EdgeData().Get("m")
					}
				}
				in := inputsOf(m, []int{3})
				want := evaluate(t, g, dt, in, edges(udfMessage(m)), 12)
				got := evaluate(t, g, dt, in, edges(m), 12)
				if err := compare(got, want, tol(dt)); err != nil {
					t.Errorf("%s %v %v: %v", gname, dt, m, err)
				}
			}
		}
	}
}

// TestNoEdges checks message passing on a graph without edges (DGL's
// test_update_all_0deg): builtins give every node the initial value, a
// user-defined reducer is not called and writes nothing, and the apply
// function still runs; edge routines do nothing.
func TestNoEdges(t *testing.T) {
	t.Parallel()
	g := generate.Empty(4)
	in := []input{{"x", 0, []int{3}}}
	for _, r := range reducers {
		got := forwardOnly(t, g, tensor.Float64, in, func(f *Frame) (*gorgonia.Node, error) {
			f.SetInitial(2)
			if err := f.UpdateAll(fn.CopyU("x", "m"), r("m", "h"), nil); err != nil {
				return nil, err
			}
			return f.NodeData().Get("h")
		}, 13)
		if !got.shape.Eq(tensor.Shape{4, 3}) {
			t.Errorf("%v: shape %v", r("m", "h"), got.shape)
		}
		for i, x := range got.out {
			if x != 2 {
				t.Errorf("%v: h[%d] = %v, want the initial value 2", r("m", "h"), i, x)
				break
			}
		}
	}
	called := false
	got := forwardOnly(t, g, tensor.Float64, in, func(f *Frame) (*gorgonia.Node, error) {
		red := NodeFunc(func(*NodeBatch) (Fields, error) {
			called = true
			return nil, nil
		})
		apply := NodeFunc(func(b *NodeBatch) (Fields, error) {
			if _, err := b.Data("h"); err == nil {
				t.Error("the reducer wrote h on a graph without edges")
			}
			x, err := b.Data("x")
			if err != nil {
				return nil, err
			}
			y, err := gorgonia.Neg(x)
			return Fields{"y": y}, err
		})
		if err := f.UpdateAll(udfMessage(fn.CopyU("x", "m")), red, apply); err != nil {
			return nil, err
		}
		if err := f.ApplyEdges(fn.CopyU("x", "e")); err != nil {
			return nil, err
		}
		if f.EdgeData().Has("e") {
			t.Error("ApplyEdges wrote a field on a graph without edges")
		}
		return f.NodeData().Get("y")
	}, 13)
	if called {
		t.Error("the reduce function was called on a graph without edges")
	}
	if len(got.out) != 12 {
		t.Errorf("apply gave %d values", len(got.out))
	}
}
