package ops_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
)

var reducers = []ops.Reducer{ops.Sum, ops.Mean, ops.Max, ops.Min}

// spmmCase is one message shape combination.
type spmmCase struct {
	name   string
	op     ops.Binary
	us, es []int
}

func spmmCases() []spmmCase {
	var cs []spmmCase
	for _, s := range [][]int{{3}, {2, 3}, {}} {
		cs = append(cs, spmmCase{fmt.Sprintf("copy_u/%v", s), ops.CopyLHS, s, nil})
		cs = append(cs, spmmCase{fmt.Sprintf("copy_e/%v", s), ops.CopyRHS, nil, s})
	}
	shapes := []struct {
		name   string
		us, es []int
	}{
		{"same", []int{3}, []int{3}},
		{"edge-scalar", []int{3}, []int{1}},
		{"heads", []int{2, 3}, []int{2, 1}},
		{"outer", []int{2, 1}, []int{1, 3}},
		{"node-vector", []int{}, []int{3}},
	}
	for _, op := range []ops.Binary{ops.Add, ops.Sub, ops.Mul, ops.Div} {
		for _, s := range shapes {
			cs = append(cs, spmmCase{fmt.Sprintf("u_%v_e/%s", op, s.name), op, s.us, s.es})
		}
	}
	return cs
}

func (c spmmCase) spec() []operand {
	switch c.op {
	case ops.CopyLHS:
		return []operand{{ops.U, c.us}}
	case ops.CopyRHS:
		return []operand{{ops.E, c.es}}
	}
	return []operand{{ops.U, c.us}, {ops.E, c.es}}
}

func (c spmmCase) build(red ops.Reducer) builder {
	return func(g *graph.Graph, in []*gorgonia.Node) (*gorgonia.Node, error) {
		switch c.op {
		case ops.CopyLHS:
			return ops.SpMM(g, c.op, red, in[0], nil)
		case ops.CopyRHS:
			return ops.SpMM(g, c.op, red, nil, in[0])
		}
		return ops.SpMM(g, c.op, red, in[0], in[1])
	}
}

func TestSpMMForward(t *testing.T) {
	t.Parallel()
	for gname, g := range gradcheck.Fixtures(t) {
		for _, c := range spmmCases() {
			for _, red := range reducers {
				for _, dt := range gradcheck.Dtypes {
					name := fmt.Sprintf("%s/%s/%v/%v", gname, c.name, red, dt)
					r := rand.New(rand.NewPCG(3, 4))
					spec := c.spec()
					vals := draw(r, g, spec) // at float32 precision, as the test sees them
					got, _ := forward(t, g, dt, spec, vals, c.build(red))
					var u, e []float64
					switch c.op {
					case ops.CopyLHS:
						u = vals[0]
					case ops.CopyRHS:
						e = vals[0]
					default:
						u, e = vals[0], vals[1]
					}
					want := refSpMM(g, c.op, red, u, c.us, e, c.es)
					if i := gradcheck.Mismatch(got, want, tolerance(dt)); i >= 0 {
						t.Errorf("%s: element %d = %v, want %v", name, i, got[min(i, len(got)-1)], want[min(i, len(want)-1)])
					}
				}
			}
		}
	}
}

func TestSpMMGradients(t *testing.T) {
	t.Parallel()
	seed := uint64(1)
	for gname, g := range gradcheck.Fixtures(t) {
		for _, c := range spmmCases() {
			for _, red := range reducers {
				for _, dt := range gradcheck.Dtypes {
					seed++
					t.Run(fmt.Sprintf("%s/%s/%v/%v", gname, c.name, red, dt), func(t *testing.T) {
						if red == ops.Max || red == ops.Min {
							gradCheckNonsmooth(t, g, dt, c.spec(), c.build(red), seed)
						} else {
							gradCheck(t, g, dt, c.spec(), c.build(red), seed)
						}
					})
				}
			}
		}
	}
}
