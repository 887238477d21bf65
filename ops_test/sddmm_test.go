package ops_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

var targets = []ops.Target{ops.U, ops.V, ops.E}

type sddmmCase struct {
	name   string
	op     ops.Binary
	at, bt ops.Target
	as, bs []int
}

func sddmmCases() []sddmmCase {
	var cs []sddmmCase
	for _, at := range targets {
		for _, s := range [][]int{{3}, {2, 2}} {
			cs = append(cs, sddmmCase{fmt.Sprintf("copy_%v/%v", at, s), ops.CopyLHS, at, at, s, nil})
		}
	}
	shapes := []struct {
		name   string
		as, bs []int
	}{
		{"same", []int{3}, []int{3}},
		{"scalar", []int{3}, []int{1}},
		{"heads", []int{2, 3}, []int{2, 1}},
		{"row", []int{2, 3}, []int{1, 3}},
	}
	for _, at := range targets {
		for _, bt := range targets {
			for _, op := range []ops.Binary{ops.Add, ops.Sub, ops.Mul, ops.Div, ops.Dot} {
				for _, s := range shapes {
					if op == ops.Dot && s.as[len(s.as)-1] != s.bs[len(s.bs)-1] {
						continue
					}
					cs = append(cs, sddmmCase{fmt.Sprintf("%v_%v_%v/%s", at, op, bt, s.name), op, at, bt, s.as, s.bs})
				}
			}
		}
	}
	return cs
}

func (c sddmmCase) spec() []operand {
	if c.op == ops.CopyLHS {
		return []operand{{c.at, c.as}}
	}
	return []operand{{c.at, c.as}, {c.bt, c.bs}}
}

func (c sddmmCase) build(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
	if c.op == ops.CopyLHS {
		return ops.SDDMM(g, c.op, in[0], c.at, nil, c.at)
	}
	return ops.SDDMM(g, c.op, in[0], c.at, in[1], c.bt)
}

func TestSDDMMForward(t *testing.T) {
	t.Parallel()
	for gname, g := range gradcheck.Fixtures(t) {
		for _, c := range sddmmCases() {
			for _, dt := range gradcheck.Dtypes {
				r := rand.New(rand.NewPCG(5, 6))
				spec := c.spec()
				vals := draw(r, g, spec)
				got, _ := forward(t, g, dt, spec, vals, c.build)
				var b []float64
				if len(vals) > 1 {
					b = vals[1]
				}
				want := refSDDMM(g, c.op, vals[0], c.at, c.as, b, c.bt, c.bs)
				if i := gradcheck.Mismatch(got, want, tolerance(dt)); i >= 0 {
					t.Errorf("%s/%s/%v: element %d = %v, want %v", gname, c.name, dt, i, got[min(i, len(got)-1)], want[min(i, len(want)-1)])
				}
			}
		}
	}
}

func TestSDDMMGradients(t *testing.T) {
	t.Parallel()
	seed := uint64(1000)
	for gname, g := range gradcheck.Fixtures(t) {
		for _, c := range sddmmCases() {
			for _, dt := range gradcheck.Dtypes {
				seed++
				t.Run(fmt.Sprintf("%s/%s/%v", gname, c.name, dt), func(t *testing.T) {
					gradCheck(t, g, dt, c.spec(), c.build, seed)
				})
			}
		}
	}
}

func TestSDDMMSugarNames(t *testing.T) {
	g := gradcheck.Fixtures(t)["homo"]
	eg := gorgonia.NewGraph()
	x := gradcheck.Zeros(eg, gradcheck.Dtypes[0], "x", g.NumSrc(), 4)
	for _, c := range []struct {
		name string
		f    func() (*gorgonia.Node, error)
	}{
		{"u_dot_v", func() (*gorgonia.Node, error) { return ops.UDotV(g, x, x) }},
		{"u_add_v", func() (*gorgonia.Node, error) { return ops.UAddV(g, x, x) }},
		{"copy_u", func() (*gorgonia.Node, error) { return ops.CopyU(g, x) }},
		{"copy_u_sum", func() (*gorgonia.Node, error) { return ops.CopyUSum(g, x) }},
	} {
		n, err := c.f()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := n.Op().String(); got != c.name {
			t.Errorf("op name %q, want %q", got, c.name)
		}
		if c.name == "u_dot_v" && !n.Shape().Eq(tensor.Shape{g.NumEdges(), 1}) {
			t.Errorf("u_dot_v of (N, 4) features has shape %v, want (E, 1) as in DGL", n.Shape())
		}
	}
}
