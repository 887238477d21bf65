package rgcn_test

import (
	"fmt"
	"math"
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

// splitRows returns x's rows as blocks of the given sizes (inputs of eg
// holding the same values).
func splitRows(t testing.TB, eg *gorgonia.ExprGraph, x *gorgonia.Node, sizes []int) gorgonia.Nodes {
	t.Helper()
	v := gradcheck.Floats(x.Value())
	in := x.Shape()[1]
	var xs gorgonia.Nodes
	lo := 0
	for i, n := range sizes {
		xs = append(xs, gradcheck.Input(eg, x.Dtype(), fmt.Sprintf("x%d", i), []int{n, in}, v[lo*in:(lo+n)*in]))
		lo += n
	}
	if lo != x.Shape()[0] {
		t.Fatalf("blocks of %v rows for %d", sizes, x.Shape()[0])
	}
	return xs
}

// rowsRun returns the output of SegmentMatMul on x (stacked) or on x in
// blocks of sizes, and the gradients (of one random projection) of x (the
// blocks' gradients stacked), w, and the self-loop weight and bias where
// present; with constant set, the first block is not differentiated and
// its rows of the x gradient are left out.
func rowsRun(t *testing.T, rel *rgcn.Relations, c segCase, dt tensor.Dtype, in, out int, sizes []int, constant bool) [][]float64 {
	t.Helper()
	eg := gorgonia.NewGraph()
	x, w, loop, bias := segInputs(eg, dt, rand.New(rand.NewPCG(1, 2)), c, in, out)
	var y *gorgonia.Node
	var err error
	var wrt gorgonia.Nodes
	if sizes == nil {
		y, err = rgcn.SegmentMatMul(rel, x, w, loop, bias)
		wrt = gorgonia.Nodes{x}
	} else {
		xs := splitRows(t, eg, x, sizes)
		y, err = rgcn.SegmentMatMulRows(rel, xs, w, loop, bias)
		wrt = xs
		if constant {
			wrt = xs[1:]
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	k := len(wrt)
	wrt = append(wrt, w)
	for _, p := range []*gorgonia.Node{loop, bias} {
		if p != nil {
			wrt = append(wrt, p)
		}
	}
	gs := gradcheck.Gradients(t, y, wrt, rand.New(rand.NewPCG(3, 4)))
	var dx []float64
	for _, g := range gs[:k] {
		dx = append(dx, g...)
	}
	if constant && sizes != nil {
		dx = append(make([]float64, sizes[0]*in), dx...) // compared from row sizes[0] on
	}
	return append([][]float64{gradcheck.Run(t, y)[0], dx}, gs[k:]...)
}

// sameBits fails unless a and b hold the same bits, from element from of
// the x gradient (index 1) on.
func sameBits(t *testing.T, what string, a, b [][]float64, xFrom int) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d values, want %d", what, len(b), len(a))
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			t.Fatalf("%s: value %d has %d elements, want %d", what, i, len(b[i]), len(a[i]))
		}
		for j := range a[i] {
			if i == 1 && j < xFrom {
				continue
			}
			if math.Float64bits(a[i][j]) != math.Float64bits(b[i][j]) {
				t.Fatalf("%s: value %d element %d is %v in blocks, %v stacked", what, i, j, b[i][j], a[i][j])
			}
		}
	}
}

// TestSegmentMatMulRows checks that the features in row blocks give the
// output and gradients of the stacked features bit for bit, for every
// configuration and order, with relations whose sources and destinations
// cross the blocks' bounds, and with the first block a constant.
func TestSegmentMatMulRows(t *testing.T) {
	orders(t, func(t *testing.T) {
		for _, c := range segCases {
			for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
				for _, sizes := range [][]int{{9}, {2, 4, 3}, {1, 1, 7}, {5, 4}} {
					rel, _, _, _, _ := segRelations(t, c)
					want := rowsRun(t, rel, c, dt, 4, 6, nil, false)
					got := rowsRun(t, rel, c, dt, 4, 6, sizes, false)
					sameBits(t, fmt.Sprintf("%s %v %v", c.name, dt, sizes), want, got, 0)
					if len(sizes) > 1 {
						got = rowsRun(t, rel, c, dt, 4, 6, sizes, true)
						sameBits(t, fmt.Sprintf("%s %v %v constant", c.name, dt, sizes), want, got, sizes[0]*4)
					}
				}
			}
		}
	})
}

// TestSegmentMatMulRowsLarge is TestSegmentMatMulRows on a graph large
// enough for the products, gathers and scatters to run in parallel and for
// AVX2 products, with block-diagonal weights, in float32.
func TestSegmentMatMulRowsLarge(t *testing.T) {
	const n, m, rels = 3000, 30000, 3
	r := rand.New(rand.NewPCG(7, 8))
	g := testgraphs.Random(t, r, n, n, m)
	et := make([]int32, g.NumEdges())
	norm := make([]float64, g.NumEdges())
	for e := range et {
		et[e], norm[e] = int32(r.IntN(rels)), r.Float64()
	}
	rel, err := rgcn.Group(g, et, rels, norm)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := rel.DstRange(700, 2500)
	if err != nil {
		t.Fatal(err)
	}
	// segInputs draws x with segNodes rows: use a relation-sized case.
	for _, rl := range []*rgcn.Relations{rel, sub} {
		c := segCase{name: "large", blocks: 2, norm: true, loop: true, bias: true}
		want := rowsLarge(t, rl, c, n, nil)
		got := rowsLarge(t, rl, c, n, []int{1000, 1500, 500})
		sameBits(t, fmt.Sprintf("large, %d destinations", rl.NumDst()), want, got, 0)
	}
}

// rowsLarge is rowsRun for n nodes, 16 -> 24 features, float32.
func rowsLarge(t *testing.T, rel *rgcn.Relations, c segCase, n int, sizes []int) [][]float64 {
	t.Helper()
	const in, out = 16, 24
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(1, 2))
	dt := tensor.Float32
	x := gradcheck.Input(eg, dt, "x", []int{n, in}, gradcheck.Draw(r, n*in))
	w := gradcheck.Input(eg, dt, "w", []int{rel.NumRelations(), 2, in / 2, out / 2}, gradcheck.Draw(r, rel.NumRelations()*in*out/2))
	loop := gradcheck.Input(eg, dt, "loop", []int{in, out}, gradcheck.Draw(r, in*out))
	bias := gradcheck.Input(eg, dt, "bias", []int{out}, gradcheck.Draw(r, out))
	xs := gorgonia.Nodes{x}
	if sizes != nil {
		xs = splitRows(t, eg, x, sizes)
	}
	y, err := rgcn.SegmentMatMulRows(rel, xs, w, loop, bias)
	if err != nil {
		t.Fatal(err)
	}
	gs := gradcheck.Gradients(t, y, append(append(gorgonia.Nodes{}, xs...), w, loop, bias), rand.New(rand.NewPCG(3, 4)))
	var dx []float64
	for _, g := range gs[:len(xs)] {
		dx = append(dx, g...)
	}
	return append([][]float64{gradcheck.Run(t, y)[0], dx}, gs[len(xs):]...)
}

// TestSegmentMatMulRowsGradients checks the gradients of the blocks by
// finite differences, float64 and float32.
func TestSegmentMatMulRowsGradients(t *testing.T) {
	for _, c := range []segCase{segCases[0], segCases[4]} {
		t.Run(c.name, func(t *testing.T) {
			f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				rel, _, _, _, _ := segRelations(t, c)
				x, w, loop, bias := segInputs(eg, dt, r, c, 4, 6)
				xs := splitRows(t, eg, x, []int{3, 2, 4})
				y, err := rgcn.SegmentMatMulRows(rel, xs, w, loop, bias)
				return y, append(xs, w), err
			}
			for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
				gradcheck.Check(t, dt, f, gradcheck.Options{Seed: 3, Stream: 4, Float32Tol: 1e-4})
			}
		})
	}
}

func TestSegmentMatMulRowsErrors(t *testing.T) {
	rel, _, _, _, _ := segRelations(t, segCase{norm: true})
	eg := gorgonia.NewGraph()
	r := rand.New(rand.NewPCG(1, 2))
	x, w, _, _ := segInputs(eg, tensor.Float64, r, segCase{blocks: 1}, 4, 6)
	a := gradcheck.Input(eg, tensor.Float64, "a", []int{4, 4}, gradcheck.Draw(r, 16))
	b := gradcheck.Input(eg, tensor.Float64, "b", []int{5, 4}, gradcheck.Draw(r, 20))
	wide := gradcheck.Input(eg, tensor.Float64, "wide", []int{5, 3}, gradcheck.Draw(r, 15))
	b32 := gradcheck.Input(eg, tensor.Float32, "b32", []int{5, 4}, gradcheck.Draw(r, 20))
	cases := []struct {
		name string
		xs   gorgonia.Nodes
		want string
	}{
		{"none", nil, "no features"},
		{"nil block", gorgonia.Nodes{a, nil}, "block 1 is nil"},
		{"width", gorgonia.Nodes{a, wide}, "block 1"},
		{"rows", gorgonia.Nodes{a, x}, "13 rows in 2 blocks"},
		{"dtype", gorgonia.Nodes{a, b32}, "float32"},
	}
	for _, c := range cases {
		if _, err := rgcn.SegmentMatMulRows(rel, c.xs, w, nil, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, err := rgcn.SegmentMatMulRows(rel, gorgonia.Nodes{a, b}, w, nil, nil); err != nil {
		t.Errorf("blocks of 4 and 5 rows: %v", err)
	}
}

// TestForwardRows checks RelGraphConv.ForwardRows against Forward on the
// stacked features (output and gradients, bit for bit), with ReLU and
// dropout, which run as the one op nn.ReLUDropout.
func TestForwardRows(t *testing.T) {
	c := segCase{norm: true}
	rel, _, _, _, _ := segRelations(t, c)
	run := func(sizes []int) [][]float64 {
		eg := gorgonia.NewGraph()
		mode := nn.NewMode()
		mode.Next()
		l, err := rgcn.New(eg, 4, 6, segRels, rgcn.WithDtype(tensor.Float64), rgcn.WithSeed(5),
			rgcn.WithActivation(nn.ReLU), rgcn.WithDropout(0.3, mode))
		if err != nil {
			t.Fatal(err)
		}
		x := gradcheck.Input(eg, tensor.Float64, "x", []int{segNodes, 4}, gradcheck.Draw(rand.New(rand.NewPCG(1, 2)), segNodes*4))
		var y *gorgonia.Node
		xs := gorgonia.Nodes{x}
		if sizes == nil {
			y, err = l.Forward(rel, x)
		} else {
			xs = splitRows(t, eg, x, sizes)
			y, err = l.ForwardRows(rel, xs)
		}
		if err != nil {
			t.Fatal(err)
		}
		if name := y.Op().String(); !strings.HasPrefix(name, "relu_dropout") {
			t.Errorf("the layer's last op is %s, want relu_dropout", name)
		}
		gs := gradcheck.Gradients(t, y, append(append(gorgonia.Nodes{}, xs...), l.Learnables()...), rand.New(rand.NewPCG(3, 4)))
		var dx []float64
		for _, g := range gs[:len(xs)] {
			dx = append(dx, g...)
		}
		return append([][]float64{gradcheck.Run(t, y)[0], dx}, gs[len(xs):]...)
	}
	sameBits(t, "ForwardRows", run(nil), run([]int{4, 5}), 0)
}
