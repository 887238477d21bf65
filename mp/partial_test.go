package mp

import (
	"fmt"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
	"github.com/gnngo/gnn/ops/fn"
)

// scale2 is an apply function: h = 2 h.
var scale2 = NodeFunc(func(b *NodeBatch) (Fields, error) {
	h, err := b.Data("h")
	if err != nil {
		return nil, err
	}
	two, err := gorgonia.Add(h, h)
	return Fields{"h": two}, err
})

type pair struct {
	name string
	msg  MessageFunc
	red  ReduceFunc
}

func pairs() []pair {
	m, r := fn.UMulE("x", "w", "m"), fn.Max("m", "h")
	return []pair{
		{"fused", m, r},
		{"two-stage", fn.UAddV("x", "y", "m"), fn.Sum("m", "h")},
		{"udf", udfMessage(m), udfReducer(r)},
	}
}

var partialInputs = []input{{"x", ops.U, []int{2}}, {"y", ops.V, []int{2}}, {"w", ops.E, []int{2}}}

// TestUpdateRoutinesAgree checks that SendAndRecv on every edge, Pull on
// every node and Push from every node equal UpdateAll, whatever the order of
// the IDs given (DGL's test_update_routines and test_issue_2484), with an
// apply function, in value and gradient.
func TestUpdateRoutinesAgree(t *testing.T) {
	t.Parallel()
	for gname, g := range gradcheck.Fixtures(t) {
		eids := make([]int64, g.NumEdges())
		for i := range eids {
			eids[i] = int64(len(eids) - 1 - i)
		}
		dsts, srcs := []int32{2, 0, 3, 1}, []int32{4, 1, 0, 3, 2}
		if gname == "homo" {
			dsts, srcs = []int32{3, 0, 6, 1, 5, 2, 4}, []int32{6, 1, 0, 3, 2, 5, 4}
		}
		for _, p := range pairs() {
			want := evaluate(t, g, tensor.Float64, partialInputs, func(f *Frame) (*gorgonia.Node, error) {
				if err := f.UpdateAll(p.msg, p.red, scale2); err != nil {
					return nil, err
				}
				return f.DstData().Get("h")
			}, 7)
			for name, run := range map[string]func(*Frame) error{
				"SendAndRecv": func(f *Frame) error { return f.SendAndRecv(eids, p.msg, p.red, scale2) },
				"Pull":        func(f *Frame) error { return f.Pull(dsts, p.msg, p.red, scale2) },
				"Push":        func(f *Frame) error { return f.Push(srcs, p.msg, p.red, scale2) },
			} {
				got := evaluate(t, g, tensor.Float64, partialInputs, func(f *Frame) (*gorgonia.Node, error) {
					if err := run(f); err != nil {
						return nil, err
					}
					return f.DstData().Get("h")
				}, 7)
				// Push and SendAndRecv do not update nodes without
				// in-edges; they get the initial value 0 since h is new,
				// while UpdateAll's apply doubles its initial 0: equal.
				if err := compare(got, want, 1e-10); err != nil {
					t.Errorf("%s %s %s: %v", gname, p.name, name, err)
				}
			}
		}
	}
}

// subgraphUpdate is the reference for a partial update: UpdateAll on the
// graph of the edges eids alone (keeping every node), merged into old on
// the nodes updated.
func subgraphUpdate(t *testing.T, g *graph.Graph, eids []int64, updated []int32, p pair, initial float64) program {
	src, dst := g.COO()
	var s, d []int32
	for _, e := range eids {
		s, d = append(s, src[e]), append(d, dst[e])
	}
	sub := gradcheck.Graph(t, g.NumSrc(), g.NumDst(), s, d)
	return func(f *Frame) (*gorgonia.Node, error) {
		sf, err := NewBipartiteFrame(sub)
		if err != nil {
			return nil, err
		}
		sf.SetInitial(initial)
		for _, n := range []string{"x"} {
			x, _ := f.SrcData().Get(n)
			sf.SrcData().Set(n, x)
		}
		y, _ := f.DstData().Get("y")
		sf.DstData().Set("y", y)
		w, _ := f.EdgeData().Get("w")
		wsub, err := gather(w, newIndex(eids, true), []int{len(eids)}, 0)
		if err != nil {
			return nil, err
		}
		sf.EdgeData().Set("w", wsub)
		if err := sf.UpdateAll(p.msg, p.red, nil); err != nil {
			return nil, err
		}
		h, err := sf.DstData().Get("h")
		if err != nil {
			return nil, err
		}
		old, err := f.DstData().Get("old")
		if err != nil {
			return nil, err
		}
		kept := newIndex(widen32(updated), true)
		part, err := gather(h, kept, []int{len(updated)}, 0)
		if err != nil {
			return nil, err
		}
		return assemble(g.NumDst(), old, []*gorgonia.Node{part}, []*index{kept}, 0)
	}
}

// TestPartialUpdates checks SendAndRecv, Pull and Push on subsets: the
// nodes updated reduce over the selected edges only, the others keep their
// old value, and a node pulled without in-edges gets the initial value.
func TestPartialUpdates(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"]
	in := append(slices.Clone(partialInputs), input{"old", ops.V, []int{2}})
	for _, p := range pairs() {
		for _, c := range []struct {
			name    string
			run     func(f *Frame) error
			eids    []int64
			updated []int32
		}{
			{"SendAndRecv", func(f *Frame) error { return f.SendAndRecv([]int64{12, 1, 7, 3}, p.msg, p.red, nil) },
				[]int64{1, 3, 7, 12}, []int32{1, 2, 4}},
			{"Pull", func(f *Frame) error { return f.Pull([]int32{6, 2, 0}, p.msg, p.red, nil) },
				[]int64{5, 6, 7, 13}, []int32{0, 2, 6}},
			{"Push", func(f *Frame) error { return f.Push([]int32{3, 6}, p.msg, p.red, nil) },
				[]int64{3, 9, 10}, []int32{1, 3, 4}},
		} {
			t.Run(p.name+"/"+c.name, func(t *testing.T) {
				prog := func(f *Frame) (*gorgonia.Node, error) {
					f.SetInitial(-1)
					old, _ := f.DstData().Get("old")
					f.DstData().Set("h", old)
					if err := c.run(f); err != nil {
						return nil, err
					}
					return f.DstData().Get("h")
				}
				want := evaluate(t, g, tensor.Float64, in, subgraphUpdate(t, g, c.eids, c.updated, p, -1), 8)
				got := evaluate(t, g, tensor.Float64, in, prog, 8)
				if err := compare(got, want, 1e-10); err != nil {
					t.Error(err)
				}
				if p.name == "fused" {
					gradCheck(t, g, in, prog, 8)
				}
			})
		}
	}
}

// TestPartialNewField checks that a field created by a partial routine gets
// the initial value on the nodes it does not update, and 0 on the edges an
// edge routine skips.
func TestPartialNewField(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"]
	got := forwardOnly(t, g, tensor.Float64, partialInputs, func(f *Frame) (*gorgonia.Node, error) {
		f.SetInitial(5)
		if err := f.Pull([]int32{2, 6}, fn.CopyU("x", "m"), fn.Sum("m", "h"), nil); err != nil {
			return nil, err
		}
		return f.DstData().Get("h")
	}, 9)
	for v := range g.NumDst() {
		for k := range 2 {
			x := got.out[2*v+k]
			if (v == 2) == (x == 5) {
				t.Errorf("node %d: h = %v", v, x)
			}
		}
	}
	// Node 6 has no in-edges: a pull of it alone sends nothing and gives it
	// the initial value; the other nodes keep h.
	got = forwardOnly(t, g, tensor.Float64, append(slices.Clone(partialInputs), input{"h", ops.V, []int{2}}), func(f *Frame) (*gorgonia.Node, error) {
		f.SetInitial(5)
		if err := f.Pull([]int32{6}, fn.CopyU("x", "m"), fn.Sum("m", "h"), nil); err != nil {
			return nil, err
		}
		return f.DstData().Get("h")
	}, 9)
	for v := range g.NumDst() {
		if x := got.out[2*v]; (v == 6) != (x == 5) {
			t.Errorf("pull of node 6: node %d has h = %v", v, x)
		}
	}
	got = forwardOnly(t, g, tensor.Float64, partialInputs, func(f *Frame) (*gorgonia.Node, error) {
		if err := f.ApplyEdgesOn([]int64{4, 0}, fn.UMulV("x", "y", "s")); err != nil {
			return nil, err
		}
		return f.EdgeData().Get("s")
	}, 9)
	for e := range g.NumEdges() {
		if zero := got.out[2*e] == 0 && got.out[2*e+1] == 0; zero != (e != 0 && e != 4) {
			t.Errorf("edge %d: s = %v", e, got.out[2*e:2*e+2])
		}
	}
}

// TestApplyOnSubsets checks ApplyEdgesOn and ApplyNodesOn against the whole
// routines merged by hand, in value and gradient.
func TestApplyOnSubsets(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["bipartite"]
	edges := []int64{6, 1, 3}
	nodes := []int32{3, 0}
	in := append(slices.Clone(partialInputs), input{"old", ops.E, []int{2}}, input{"h", ops.V, []int{2}})
	for _, msg := range []MessageFunc{fn.UDivV("x", "y", "w"), udfMessage(fn.UDivV("x", "y", "w"))} {
		name := fmt.Sprintf("ApplyEdgesOn/%s", msg.MessageName())
		t.Run(name, func(t *testing.T) {
			prog := func(f *Frame) (*gorgonia.Node, error) {
				if err := f.ApplyEdgesOn(edges, msg); err != nil {
					return nil, err
				}
				return f.EdgeData().Get("w")
			}
			want := func(f *Frame) (*gorgonia.Node, error) {
				w, _ := f.EdgeData().Get("w")
				if err := f.ApplyEdges(msg); err != nil {
					return nil, err
				}
				all, _ := f.EdgeData().Get("w")
				at := newIndex([]int64{1, 3, 6}, true)
				part, _ := gather(all, at, []int{3}, 0)
				return assemble(g.NumEdges(), w, []*gorgonia.Node{part}, []*index{at}, 0)
			}
			if err := compare(evaluate(t, g, tensor.Float64, in, prog, 10), evaluate(t, g, tensor.Float64, in, want, 10), 1e-10); err != nil {
				t.Error(err)
			}
			gradCheck(t, g, in, prog, 10)
		})
	}
	t.Run("ApplyNodesOn", func(t *testing.T) {
		var seen []int32
		double := NodeFunc(func(b *NodeBatch) (Fields, error) {
			seen = b.Nodes()
			return scale2(b)
		})
		prog := func(f *Frame) (*gorgonia.Node, error) {
			if err := f.ApplyNodesOn(nodes, double); err != nil {
				return nil, err
			}
			return f.DstData().Get("h")
		}
		want := func(f *Frame) (*gorgonia.Node, error) {
			h, _ := f.DstData().Get("h")
			if err := f.ApplyNodes(scale2); err != nil {
				return nil, err
			}
			all, _ := f.DstData().Get("h")
			at := newIndex([]int64{0, 3}, true)
			part, _ := gather(all, at, []int{2}, 0)
			return assemble(g.NumDst(), h, []*gorgonia.Node{part}, []*index{at}, 0)
		}
		if err := compare(evaluate(t, g, tensor.Float64, in, prog, 11), evaluate(t, g, tensor.Float64, in, want, 11), 1e-10); err != nil {
			t.Error(err)
		}
		if !slices.Equal(seen, []int32{0, 3}) {
			t.Errorf("ApplyNodesOn batch nodes %v, want [0 3]", seen)
		}
		gradCheck(t, g, in, prog, 11)
	})
}

// TestPartialNoOps checks that empty selections do nothing.
func TestPartialNoOps(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, 3, 3, []int32{0}, []int32{1})
	f, err := NewFrame(g)
	if err != nil {
		t.Fatal(err)
	}
	bad := fn.CopyU("missing", "m")
	for name, err := range map[string]error{
		"SendAndRecv":  f.SendAndRecv(nil, bad, fn.Sum("m", "h"), nil),
		"Pull":         f.Pull([]int32{}, bad, fn.Sum("m", "h"), nil),
		"Push":         f.Push([]int32{2}, bad, fn.Sum("m", "h"), nil), // node 2 has no out-edges
		"ApplyEdgesOn": f.ApplyEdgesOn(nil, bad),
		"ApplyNodesOn": f.ApplyNodesOn(nil, nil),
	} {
		if err != nil {
			t.Errorf("%s on nothing: %v", name, err)
		}
	}
	if names := f.NodeData().Names(); len(names) != 0 {
		t.Errorf("fields %v appeared", names)
	}
}
