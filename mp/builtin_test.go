package mp

import (
	"fmt"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
	"github.com/gnngo/gnn/ops/fn"
)

// TestBuiltinsMatchUDF checks every builtin message with every builtin
// reducer against the same computation written as user-defined functions
// (edge gather, degree-bucketed mailbox): output and gradients, on a graph
// with skewed degrees, a self-loop, parallel edges and a node without
// in-edges and on a bipartite graph, in float64 and float32. In float64 the
// mixed paths (builtin message with a UDF reducer and the reverse) are
// checked too.
func TestBuiltinsMatchUDF(t *testing.T) {
	t.Parallel()
	feat := []int{3}
	for gname, g := range gradcheck.Fixtures(t) {
		for _, dt := range gradcheck.Dtypes {
			for _, m := range allMessages() {
				for _, newRed := range reducers {
					r := newRed("m", "h")
					name := fmt.Sprintf("%s/%v/%s/%v", gname, dt, m.MessageName(), r.Op)
					t.Run(name, func(t *testing.T) {
						t.Parallel()
						in := inputsOf(m, feat)
						want := evaluate(t, g, dt, in, updateAll(udfMessage(m), udfReducer(r), "h"), 1)
						paths := map[string]program{"fused": updateAll(m, r, "h")}
						if dt == tensor.Float64 {
							paths["udf-message"] = updateAll(udfMessage(m), r, "h")
							paths["udf-reducer"] = updateAll(m, udfReducer(r), "h")
						}
						for p, prog := range paths {
							got := evaluate(t, g, dt, in, prog, 1)
							if err := compare(got, want, tol(dt)); err != nil {
								t.Errorf("%s: %v", p, err)
							}
						}
					})
				}
			}
		}
	}
}

// TestSchedulerKernels checks which kernels the scheduler picks: u_OP_e,
// e_add_u, e_mul_u, copy_u and copy_e with any reducer run as one fused op
// and build no tensor with a row per edge (other than the negated or
// inverted edge operand of u_sub_e and u_div_e, as in DGL); every other
// message is computed onto the edges first.
func TestSchedulerKernels(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"]
	for _, m := range allMessages() {
		for _, newRed := range reducers {
			r := newRed("m", "h")
			fused := (m.IsCopy() && m.LHS != ops.V) ||
				(m.LHS == ops.U && m.RHS == ops.E && m.Op != ops.Dot) ||
				(m.LHS == ops.E && m.RHS == ops.U && (m.Op == ops.Add || m.Op == ops.Mul))
			eg := gorgonia.NewGraph()
			f, err := NewFrame(g)
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range inputsOf(m, []int{3}) {
				shape := append([]int{gradcheck.Rows(g, in.at)}, in.shape...)
				x := gorgonia.NewTensor(eg, tensor.Float64, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(in.name))
				d := f.NodeData()
				if in.at == ops.E {
					d = f.EdgeData()
				}
				if err := d.Set(in.name, x); err != nil {
					t.Fatal(err)
				}
			}
			if err := f.UpdateAll(m, r, nil); err != nil {
				t.Fatalf("%v, %v: %v", m, r, err)
			}
			var perEdge []string
			for _, n := range eg.AllNodes() {
				rewrite := strings.HasPrefix(n.Name(), "neg(") || strings.HasPrefix(n.Name(), "inv(")
				if n.Op() != nil && !rewrite && len(n.Shape()) > 0 && n.Shape()[0] == g.NumEdges() {
					perEdge = append(perEdge, n.Name())
				}
			}
			if fused && len(perEdge) > 0 {
				t.Errorf("%v, %v: fused path built per-edge tensors %v", m, r, perEdge)
			}
			if !fused && len(perEdge) == 0 {
				t.Errorf("%v, %v: expected messages on the edges", m, r)
			}
		}
	}
}

// TestBroadcastMessages checks builtins whose operands broadcast: (N, 2, 3)
// node features with (E, 2, 1) and (E, 1) edge weights, and a dot product
// over heads, against UDFs that broadcast explicitly.
func TestBroadcastMessages(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"]
	for _, c := range []struct {
		name string
		m    fn.Message
		in   []input
		udf  EdgeFunc
	}{
		{
			name: "u_mul_e heads",
			m:    fn.UMulE("x", "w", "m"),
			in:   []input{{"x", ops.U, []int{2, 3}}, {"w", ops.E, []int{2, 1}}},
			udf: func(b *EdgeBatch) (Fields, error) {
				x, _ := b.Src("x")
				w, err := b.Data("w")
				if err != nil {
					return nil, err
				}
				m, err := gorgonia.BroadcastHadamardProd(x, w, nil, []byte{2})
				return Fields{"m": m}, err
			},
		},
		{
			name: "e_add_u scalar weight",
			m:    fn.EAddU("w", "x", "m"),
			in:   []input{{"x", ops.U, []int{3}}, {"w", ops.E, []int{1}}},
			udf: func(b *EdgeBatch) (Fields, error) {
				x, _ := b.Src("x")
				w, err := b.Data("w")
				if err != nil {
					return nil, err
				}
				m, err := gorgonia.BroadcastAdd(w, x, []byte{1}, nil)
				return Fields{"m": m}, err
			},
		},
		{
			name: "u_dot_v heads",
			m:    fn.UDotV("x", "y", "m"),
			in:   []input{{"x", ops.U, []int{2, 3}}, {"y", ops.V, []int{2, 3}}},
			udf:  udfMessage(fn.UDotV("x", "y", "m")),
		},
	} {
		for _, newRed := range reducers {
			r := newRed("m", "h")
			t.Run(c.name+"/"+r.Op.String(), func(t *testing.T) {
				want := evaluate(t, g, tensor.Float64, c.in, updateAll(c.udf, udfReducer(r), "h"), 2)
				got := evaluate(t, g, tensor.Float64, c.in, updateAll(c.m, r, "h"), 2)
				if err := compare(got, want, 1e-10); err != nil {
					t.Error(err)
				}
			})
		}
	}
}
