package mp

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

// The tests below check this package's own ops directly: forward values
// against the obvious loops, gradients against finite differences.

func field(f *Frame, at ops.Target, name string) *gorgonia.Node {
	d := f.SrcData()
	switch at {
	case ops.V:
		d = f.DstData()
	case ops.E:
		d = f.EdgeData()
	}
	x, err := d.Get(name)
	if err != nil {
		panic(err)
	}
	return x
}

func TestRowOps(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"] // 7 nodes
	x := []input{{"x", ops.U, []int{2}}}
	y := []input{{"x", ops.U, []int{2}}, {"y", ops.V, []int{2}}}
	for _, c := range []struct {
		name string
		in   []input
		prog program
		want func(in [][]float64) []float64
	}{
		{
			name: "gather with padding",
			in:   x,
			prog: func(f *Frame) (*gorgonia.Node, error) {
				return gather(field(f, ops.U, "x"), newIndex([]int64{3, -1, 0, 6, 3, -1}, false), []int{2, 3}, -2)
			},
			want: func(in [][]float64) []float64 {
				var out []float64
				for _, r := range []int{3, -1, 0, 6, 3, -1} {
					if r < 0 {
						out = append(out, -2, -2)
					} else {
						out = append(out, in[0][2*r], in[0][2*r+1])
					}
				}
				return out
			},
		},
		{
			name: "scatter-add with repeats",
			in:   x,
			prog: func(f *Frame) (*gorgonia.Node, error) {
				return apply(&scatterOp{idx: newIndex([]int64{2, 0, 2, -1, 1, 2, 0}, false), n: 3, lead: []int{7}, feat: []int{2}}, field(f, ops.U, "x"))
			},
			want: func(in [][]float64) []float64 {
				out := make([]float64, 6)
				for i, r := range []int{2, 0, 2, -1, 1, 2, 0} {
					if r >= 0 {
						out[2*r] += in[0][2*i]
						out[2*r+1] += in[0][2*i+1]
					}
				}
				return out
			},
		},
		{
			name: "assemble with fill",
			in:   y,
			prog: func(f *Frame) (*gorgonia.Node, error) {
				a, _ := gather(field(f, ops.U, "x"), newIndex([]int64{0, 1}, true), []int{2}, 0)
				b, _ := gather(field(f, ops.V, "y"), newIndex([]int64{4, 5, 6}, true), []int{3}, 0)
				return assemble(6, nil, []*gorgonia.Node{a, b}, []*index{newIndex([]int64{5, 0}, true), newIndex([]int64{1, 3, 2}, true)}, 7)
			},
			want: func(in [][]float64) []float64 {
				x, y := in[0], in[1]
				return []float64{x[2], x[3], y[8], y[9], y[12], y[13], y[10], y[11], 7, 7, x[0], x[1]}
			},
		},
		{
			name: "assemble over a base",
			in:   y,
			prog: func(f *Frame) (*gorgonia.Node, error) {
				a, _ := gather(field(f, ops.U, "x"), newIndex([]int64{0, 1}, true), []int{2}, 0)
				return assemble(7, field(f, ops.V, "y"), []*gorgonia.Node{a}, []*index{newIndex([]int64{6, 2}, true)}, 0)
			},
			want: func(in [][]float64) []float64 {
				out := append([]float64{}, in[1]...)
				copy(out[12:], in[0][0:2])
				copy(out[4:], in[0][2:4])
				return out
			},
		},
		{
			name: "fill rows",
			in:   x,
			prog: func(f *Frame) (*gorgonia.Node, error) {
				return fillRows(field(f, ops.U, "x"), newIndex([]int64{1, 4}, true), 3)
			},
			want: func(in [][]float64) []float64 {
				out := append([]float64{}, in[0]...)
				out[2], out[3], out[8], out[9] = 3, 3, 3, 3
				return out
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, dt := range gradcheck.Dtypes {
				res := forwardOnly(t, g, dt, c.in, c.prog, 3)
				if i := gradcheck.Mismatch(res.out, c.want(res.in), 1e-6); i >= 0 {
					t.Errorf("%v: output %v, want %v", dt, res.out, c.want(res.in))
				}
			}
			gradCheck(t, g, c.in, c.prog, 3)
		})
	}
}

// naiveProd is the product over each destination's in-edges, in edge-ID
// order, of msg(src, eid), 0 for no in-edges.
func naiveProd(g *graph.Graph, w int, msg func(src, eid, k int) float64) []float64 {
	src, dst := g.COO()
	out := make([]float64, g.NumDst()*w)
	seen := make([]bool, g.NumDst())
	for e := range src {
		v := int(dst[e])
		for k := range w {
			m := msg(int(src[e]), e, k)
			if seen[v] {
				out[v*w+k] *= m
			} else {
				out[v*w+k] = m
			}
		}
		seen[v] = true
	}
	return out
}

// TestProd checks the fused product against a naive loop, with zeros among
// the messages (one zero in a node's messages, two zeros, and a zero on a
// node with a single in-edge), and its gradients against finite
// differences, for every message it fuses and a broadcast edge weight.
func TestProd(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"]
	// Edges 1 and 3 enter node 1 (one zero there with u below); edges 6 and
	// 7 are the parallel edges into node 2.
	zeroU := []int{2 * 3, 2*4 + 1}         // x[3][0], x[4][1]: node 1 gets a zero in each column
	zeroE := []int{2 * 6, 2*7 + 0, 2 * 11} // w[6][0], w[7][0] (two zeros into node 2), w[11][0] (node 5's only edge)
	for _, c := range []struct {
		name string
		kind prodKind
		ws   []int
		msg  func(x, w []float64, src, eid, k int) float64
	}{
		{"copy_u", prodCopyU, []int{2}, func(x, w []float64, s, e, k int) float64 { return x[2*s+k] }},
		{"copy_e", prodCopyE, []int{2}, func(x, w []float64, s, e, k int) float64 { return w[2*e+k] }},
		{"u_add_e", prodAdd, []int{2}, func(x, w []float64, s, e, k int) float64 { return x[2*s+k] + w[2*e+k] }},
		{"u_mul_e", prodMul, []int{2}, func(x, w []float64, s, e, k int) float64 { return x[2*s+k] * w[2*e+k] }},
		{"u_mul_e broadcast", prodMul, []int{1}, func(x, w []float64, s, e, k int) float64 { return x[2*s+k] * w[e] }},
	} {
		t.Run(c.name, func(t *testing.T) {
			xin, win := input{"x", ops.U, []int{2}}, input{"w", ops.E, c.ws}
			in := []input{xin, win}
			switch c.kind {
			case prodCopyU:
				in = []input{xin}
			case prodCopyE:
				in = []input{win}
			}
			prog := func(f *Frame) (*gorgonia.Node, error) {
				var x, w *gorgonia.Node
				if f.SrcData().Has("x") {
					x = field(f, ops.U, "x")
					for _, i := range zeroU {
						gradcheck.SetElem(x, i, 0)
					}
				}
				if f.EdgeData().Has("w") {
					w = field(f, ops.E, "w")
					for _, i := range zeroE {
						if i < w.Shape().TotalSize() {
							gradcheck.SetElem(w, i, 0)
						}
					}
				}
				return reduceProd(g, c.kind, x, w)
			}
			for _, dt := range gradcheck.Dtypes {
				res := forwardOnly(t, g, dt, in, prog, 5)
				var x, w []float64
				for i, v := range res.in {
					if in[i].name == "x" {
						x = v
					} else {
						w = v
					}
				}
				want := naiveProd(g, 2, func(src, eid, k int) float64 { return c.msg(x, w, src, eid, k) })
				if i := gradcheck.Mismatch(res.out, want, 1e-6); i >= 0 {
					t.Errorf("%v: output[%d] = %v, want %v", dt, i, res.out[i], want[i])
				}
			}
			gradCheck(t, g, in, prog, 5)
		})
	}
}

// TestProdZeroGradient checks the gradient of a product with zeros by hand:
// d(abc)/da = bc exactly, including when b is 0 (no division by a).
func TestProdZeroGradient(t *testing.T) {
	t.Parallel()
	g := gradcheck.Graph(t, 3, 1, []int32{0, 1, 2}, []int32{0, 0, 0})
	for _, vals := range [][]float64{{2, 0, 3}, {0, 0, 5}, {0, 4, 3}} {
		eg := gorgonia.NewGraph()
		x := gradcheck.Input(eg, tensor.Float64, "x", []int{3, 1}, vals)
		p, err := reduceProd(g, prodCopyU, x, nil)
		if err != nil {
			t.Fatal(err)
		}
		cost, _ := gorgonia.Sum(p)
		grads, err := gorgonia.Grad(cost, x)
		if err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(eg)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := gradcheck.Floats(grads[0].Value())
		want := []float64{vals[1] * vals[2], vals[0] * vals[2], vals[0] * vals[1]}
		if gradcheck.Mismatch(got, want, 0) >= 0 {
			t.Errorf("gradient of the product of %v = %v, want %v", vals, got, want)
		}
		vm.Close()
	}
}

// TestOpHashes checks that ops over different index sets or graphs never
// merge, while one op used twice on one input does.
func TestOpHashes(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(4, 2), gorgonia.WithName("x"))
	i1, i2 := newIndex([]int64{0, 1}, true), newIndex([]int64{0, 1}, true)
	a, _ := gather(x, i1, []int{2}, 0)
	b, _ := gather(x, i2, []int{2}, 0)
	c, _ := gather(x, i1, []int{2}, 0)
	if a == b {
		t.Error("gathers through two indices merged")
	}
	if a != c {
		t.Error("the same gather twice gave two nodes")
	}
	g1 := gradcheck.Graph(t, 4, 4, []int32{0, 1}, []int32{1, 2})
	g2 := gradcheck.Graph(t, 4, 4, []int32{0, 1}, []int32{1, 2})
	p1, _ := reduceProd(g1, prodCopyU, x, nil)
	p2, _ := reduceProd(g2, prodCopyU, x, nil)
	if p1 == p2 {
		t.Error("products over two graphs merged")
	}
}
