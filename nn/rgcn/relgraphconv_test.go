package rgcn_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/rgcn"
)

const (
	numNodes, numEdges = 7, 20
	numRels            = 3
)

// in and out are the layer sizes of the tests; forEachShape also runs a
// test with them swapped, since Forward aggregates first when in < out
// and multiplies first otherwise.
var in, out = 4, 6

func forEachShape(t *testing.T, test func(t *testing.T)) {
	for _, d := range [][2]int{{4, 6}, {6, 4}} {
		in, out = d[0], d[1]
		t.Run(fmt.Sprintf("in%d_out%d", in, out), test)
	}
	in, out = 4, 6
}

// fixture draws a graph whose relation 2 has no edges.
func fixture(t testing.TB) (*rgcn.Relations, []int32, []float64) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := testgraphs.Random(t, rng, numNodes, numNodes, numEdges)
	etypes := make([]int32, g.NumEdges())
	for e := range etypes {
		etypes[e] = int32(rng.IntN(numRels - 1))
	}
	norm, err := rgcn.RightNorm(g, etypes, numRels)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := rgcn.Group(g, etypes, numRels, norm)
	if err != nil {
		t.Fatal(err)
	}
	return rel, etypes, norm
}

var configs = []struct {
	name string
	opts []rgcn.Option
}{
	{"none", nil},
	{"basis", []rgcn.Option{rgcn.WithBasis(2)}},
	{"bdd", []rgcn.Option{rgcn.WithBlockDiagonal(2)}},
	{"bdd-noloop-nobias", []rgcn.Option{rgcn.WithBlockDiagonal(2), rgcn.WithSelfLoop(false), rgcn.WithBias(false)}},
}

// relationWeight returns W_r as an (in x out) row-major matrix from the
// layer's parameter values.
func relationWeight(t *testing.T, reg string, ps [][]float64, r int) []float64 {
	w := make([]float64, in*out)
	switch reg {
	case "none":
		copy(w, ps[0][r*in*out:(r+1)*in*out])
	case "basis":
		bases, coeff := ps[0], ps[1]
		for b := range 2 {
			for k := range w {
				w[k] += coeff[r*2+b] * bases[b*in*out+k]
			}
		}
	default:
		bi, bo := in/2, out/2
		blocks := ps[0]
		for b := range 2 {
			for i := range bi {
				for j := range bo {
					w[(b*bi+i)*out+b*bo+j] = blocks[((r*2+b)*bi+i)*bo+j]
				}
			}
		}
	}
	return w
}

// TestForwardDense compares the layer with the dense per-relation formula.
func TestForwardDense(t *testing.T) { forEachShape(t, testForwardDense) }

func testForwardDense(t *testing.T) {
	rel, etypes, norm := fixture(t)
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, c := range configs {
			eg := gorgonia.NewGraph()
			l, err := rgcn.New(eg, in, out, numRels, append(c.opts, rgcn.WithDtype(dt), rgcn.WithSeed(3))...)
			if err != nil {
				t.Fatal(err)
			}
			r := rand.New(rand.NewPCG(5, 6))
			xv := gradcheck.Draw(r, numNodes*in)
			x := gradcheck.Input(eg, dt, "x", []int{numNodes, in}, xv)
			y, err := l.Forward(rel, x)
			if err != nil {
				t.Fatal(err)
			}
			// Round the parameters to dt's precision as the layer sees them.
			got := gradcheck.Run(t, append(gorgonia.Nodes{y}, l.Learnables()...)...)
			ps := got[1:]
			want := make([]float64, numNodes*out)
			// Sum over all edges of the whole graph, relation by relation.
			for e, rr := range etypes {
				w := relationWeight(t, strings.SplitN(c.name, "-", 2)[0], ps, int(rr))
				src, dst := edgeEnds(rel, etypes, e)
				for j := range out {
					s := 0.0
					for k := range in {
						s += xv[src*in+k] * w[k*out+j]
					}
					want[dst*out+j] += norm[e] * s
				}
			}
			next := 1
			if c.name == "basis" {
				next = 2
			}
			if !strings.Contains(c.name, "noloop") {
				loop := ps[next]
				next++
				for v := range numNodes {
					for j := range out {
						for k := range in {
							want[v*out+j] += xv[v*in+k] * loop[k*out+j]
						}
					}
				}
			}
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			gradcheck.Expect(t, dt.String()+" "+c.name, got[0], want, tol)
		}
	}
}

// edgeEnds returns the endpoints of edge e of the grouped graph.
func edgeEnds(rel *rgcn.Relations, etypes []int32, e int) (int, int) {
	r := etypes[e]
	k := 0
	for f := range e {
		if etypes[f] == r {
			k++
		}
	}
	s, d := rel.Graph(int(r)).COO()
	return int(s[k]), int(d[k])
}

func TestGradients(t *testing.T) { forEachShape(t, testGradients) }

func testGradients(t *testing.T) {
	rel, _, _ := fixture(t)
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				l, err := rgcn.New(eg, in, out, numRels, append(c.opts, rgcn.WithDtype(dt), rgcn.WithSeed(3))...)
				if err != nil {
					return nil, nil, err
				}
				x := gradcheck.Input(eg, dt, "x", []int{numNodes, in}, gradcheck.Draw(r, numNodes*in))
				y, err := l.Forward(rel, x)
				return y, append(gorgonia.Nodes{x}, l.Learnables()...), err
			}
			gradcheck.Check(t, tensor.Float64, f, gradcheck.Options{Seed: 9, Stream: 10})
		})
	}
}

func TestErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	g := testgraphs.Must(t, 4, 4, []int32{0, 1, 2, 3, 0}, []int32{1, 2, 3, 0, 2})
	cases := []struct {
		name   string
		etypes []int32
		rels   int
		norm   []float64
		want   string
	}{
		{"length", []int32{0, 1}, 2, nil, "2 relation IDs for 5 edges"},
		{"range", []int32{0, 1, 2, 0, 1}, 2, nil, "edge 2 has relation 2"},
		{"norm length", []int32{0, 1, 1, 0, 1}, 2, []float64{1}, "1 norms for 5 edges"},
		{"rels", []int32{0, 0, 0, 0, 0}, 0, nil, "0 relations"},
	}
	for _, c := range cases {
		if _, err := rgcn.Group(g, c.etypes, c.rels, c.norm); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := rgcn.Group(testgraphs.Random(t, rng, 3, 4, 2), []int32{0, 0}, 1, nil); err == nil {
		t.Error("bipartite graph: no error")
	}
	eg := gorgonia.NewGraph()
	if _, err := rgcn.New(eg, 5, 6, 2, rgcn.WithBlockDiagonal(2)); err == nil || !strings.Contains(err.Error(), "multiples") {
		t.Errorf("bdd sizes: %v", err)
	}
	if _, err := rgcn.New(eg, 4, 6, 2, rgcn.WithBasis(0)); err == nil {
		t.Error("0 bases: no error")
	}
	if _, err := rgcn.New(eg, 4, 6, 2, rgcn.WithDropout(0.5, nil)); err == nil || !strings.Contains(err.Error(), "rgcn: dropout needs WithMode") {
		t.Errorf("dropout without mode: %v", err)
	}
	if _, err := rgcn.New(eg, 4, 6, 2, rgcn.WithDropout(1, nn.NewMode())); err == nil || !strings.Contains(err.Error(), "rgcn: dropout 1 is not in [0, 1)") {
		t.Errorf("dropout 1: %v", err)
	}
	if _, err := rgcn.New(eg, 4, 6, 2, rgcn.WithMode(nn.NewMode()), rgcn.WithDropout(0.5, nil)); err != nil {
		t.Errorf("dropout with WithMode: %v", err)
	}
	l, _ := rgcn.New(eg, 4, 6, 3)
	rel, _ := rgcn.Group(g, []int32{0, 1, 1, 0, 1}, 2, nil)
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(4, 4), gorgonia.WithName("x"))
	if _, err := l.Forward(rel, x); err == nil || !strings.Contains(err.Error(), "built for 3") {
		t.Errorf("relation count: %v", err)
	}
	rel3, _ := rgcn.Group(g, []int32{0, 1, 1, 0, 1}, 3, nil)
	bad := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(4, 5), gorgonia.WithName("bad"))
	if _, err := l.Forward(rel3, bad); err == nil || !strings.Contains(err.Error(), "want (4, 4)") {
		t.Errorf("shape: %v", err)
	}
}

// TestActivationDropout: the activation is applied to the sum, and dropout
// in evaluation mode is the identity.
func TestActivationDropout(t *testing.T) {
	rel, _, _ := fixture(t)
	run := func(opts ...rgcn.Option) []float64 {
		eg := gorgonia.NewGraph()
		l, err := rgcn.New(eg, in, out, numRels, append(opts, rgcn.WithDtype(tensor.Float64), rgcn.WithSeed(3), rgcn.WithName("l"))...)
		if err != nil {
			t.Fatal(err)
		}
		x := gradcheck.Input(eg, tensor.Float64, "x", []int{numNodes, in}, gradcheck.Draw(rand.New(rand.NewPCG(5, 6)), numNodes*in))
		y, err := l.Forward(rel, x)
		if err != nil {
			t.Fatal(err)
		}
		return gradcheck.Run(t, y)[0]
	}
	plain := run()
	mode := nn.NewMode()
	mode.Eval()
	relu := run(rgcn.WithActivation(nn.ReLU), rgcn.WithDropout(0.5, mode))
	for i, v := range plain {
		if want := max(v, 0); relu[i] != want {
			t.Fatalf("relu output [%d] = %v, want %v", i, relu[i], want)
		}
	}
}
