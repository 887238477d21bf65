package nn_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/heteroconv"
	"github.com/gnngo/gnn/nn/rgcn"
)

// drawParams sets every parameter to random values and returns them by
// name suffix.
func drawParams(params gorgonia.Nodes, r *rand.Rand) map[string][]float64 {
	vals := map[string][]float64{}
	for _, p := range params {
		v := gradcheck.Draw(r, p.Shape().TotalSize())
		gradcheck.Set(p, v)
		vals[p.Name()] = v
	}
	return vals
}

// runWithGrads runs out and its gradients over wrt and fails on a NaN.
func runWithGrads(t *testing.T, out *gorgonia.Node, wrt gorgonia.Nodes, r *rand.Rand) {
	t.Helper()
	_, grads := costOf(t, out, wrt, r)
	vm := gorgonia.NewTapeMachine(out.Graph())
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatalf("run: %v", err)
	}
	for i, d := range grads {
		for _, v := range gradcheck.Floats(d.Value()) {
			if v != v {
				t.Fatalf("gradient %d has NaN", i)
			}
		}
	}
}

// TestRelGraphConvOnEmptyGraphs runs RelGraphConv, in each weight form, on
// relations without nodes, which must be refused with an error, and on
// relations with nodes but no edges, with and without a norm, whose output
// is the self-loop and the bias alone, forward and backward.
func TestRelGraphConvOnEmptyGraphs(t *testing.T) {
	const in, out, rels = 2, 4, 3
	forms := map[string][]rgcn.Option{"none": nil, "basis": {rgcn.WithBasis(2)}, "bdd": {rgcn.WithBlockDiagonal(2)}}
	for _, form := range []string{"none", "basis", "bdd"} {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%s/%v", form, dt), func(t *testing.T) {
				eg := gorgonia.NewGraph()
				l, err := rgcn.New(eg, in, out, rels, append(forms[form], rgcn.WithDtype(dt), rgcn.WithName("rgcn"))...)
				if err != nil {
					t.Fatal(err)
				}
				none, err := rgcn.Group(gradcheck.Graph(t, 0, 0, nil, nil), nil, rels, nil)
				if err != nil {
					t.Fatalf("Group over no nodes: %v", err)
				}
				if _, err := l.Forward(none, gradcheck.Zeros(eg, dt, "x0", 0, in)); err == nil || !strings.Contains(err.Error(), "no destination nodes") {
					t.Errorf("relations without nodes: error %v, want one saying they have no destination nodes", err)
				}
				r := rand.New(rand.NewPCG(1, 2))
				p := drawParams(l.Learnables(), r)
				xv := gradcheck.Draw(r, 3*in)
				x := gradcheck.Input(eg, dt, "x", []int{3, in}, xv)
				want := rowsPlus(xv, p["rgcn.loop_weight"], 3, in, p["rgcn.bias"])
				for _, norm := range [][]float64{nil, {}} {
					rel, err := rgcn.Group(gradcheck.Graph(t, 3, 3, nil, nil), nil, rels, norm)
					if err != nil {
						t.Fatalf("Group without edges: %v", err)
					}
					y, err := l.Forward(rel, x)
					if err != nil {
						t.Fatalf("relations without edges (norm %v): %v", norm, err)
					}
					gradcheck.Expect(t, "output", gradcheck.Run(t, y)[0], want, 1e-5)
					runWithGrads(t, y, append(gorgonia.Nodes{x}, l.Learnables()...), r)
				}
			})
		}
	}
}

// TestHeteroGraphConvOnEmptyTypes runs HeteroGraphConv over a heterograph
// with a node type "c" of no nodes: the relation out of c (no edges, empty
// input) gives its layer's bias, the relation into c is not run and c has
// no output, and a relation within "a" without edges gives its bias.
func TestHeteroGraphConvOnEmptyTypes(t *testing.T) {
	const in, out = 3, 2
	ca := hetero.EdgeType{Src: "c", Rel: "r", Dst: "a"}
	ac := hetero.EdgeType{Src: "a", Rel: "s", Dst: "c"}
	aa := hetero.EdgeType{Src: "a", Rel: "t", Dst: "a"}
	h, err := hetero.New(map[string]int{"a": 3, "c": 0}, map[hetero.EdgeType]*graph.Graph{
		ca: gradcheck.Graph(t, 0, 3, nil, nil),
		ac: gradcheck.Graph(t, 3, 0, nil, nil),
		aa: gradcheck.Graph(t, 3, 3, nil, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, agg := range []mp.CrossReducer{mp.CrossSum, mp.CrossMean, mp.CrossMax} {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%v/%v", agg, dt), func(t *testing.T) {
				eg := gorgonia.NewGraph()
				mods := map[hetero.EdgeType]nn.Layer{}
				var used gorgonia.Nodes
				for _, et := range []hetero.EdgeType{ca, ac, aa} {
					l, err := gcn.New(eg, in, out, gcn.WithDtype(dt), gcn.WithAllowZeroInDegree(true), gcn.WithName("gcn_"+et.Rel))
					if err != nil {
						t.Fatal(err)
					}
					mods[et] = l
					if et != ac {
						used = append(used, l.Learnables()...)
					}
				}
				conv, err := heteroconv.New(mods, agg)
				if err != nil {
					t.Fatal(err)
				}
				r := rand.New(rand.NewPCG(3, 4))
				p := drawParams(conv.Learnables(), r)
				xa := gradcheck.Input(eg, dt, "xa", []int{3, in}, gradcheck.Draw(r, 3*in))
				y, err := conv.Forward(h, map[string]*gorgonia.Node{"a": xa, "c": gradcheck.Zeros(eg, dt, "xc", 0, in)})
				if err != nil {
					t.Fatalf("Forward: %v", err)
				}
				if _, ok := y["c"]; ok || len(y) != 1 {
					t.Fatalf("outputs for %d types (c present: %v), want a only", len(y), ok)
				}
				br, bt := p["gcn_r.bias"], p["gcn_t.bias"]
				row := make([]float64, out)
				for j := range row {
					switch agg {
					case mp.CrossSum:
						row[j] = bt[j] + br[j]
					case mp.CrossMean:
						row[j] = (bt[j] + br[j]) / 2
					case mp.CrossMax:
						row[j] = max(bt[j], br[j])
					}
				}
				gradcheck.Expect(t, "output", gradcheck.Run(t, y["a"])[0], rowsPlus(make([]float64, 3*in), nil, 3, in, row), 1e-5)
				runWithGrads(t, y["a"], append(gorgonia.Nodes{xa}, used...), r)
			})
		}
	}
}
