package link_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn/link"
)

// softplus is log(1 + exp(x)) in float64, for the references.
func softplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }

// lossCase is one loss under test: how to build it from the positive and
// negative scores, its value by a plain loop, and the numbers of scores.
type lossCase struct {
	name      string
	np, nn    int
	build     func(pos, neg *gorgonia.Node) (*gorgonia.Node, error)
	reference func(pos, neg []float64) float64
	nonSmooth bool
}

func lossCases() []lossCase {
	pw := []float64{1, 0.5, 2, 0}
	nw := []float64{1, 1, 3, 0.25, 1, 2}
	pm := []bool{true, false, true, true}
	nm := []bool{true, true, false, true, true, true}
	return []lossCase{
		{name: "bce", np: 4, nn: 6,
			build: func(p, n *gorgonia.Node) (*gorgonia.Node, error) { return link.BCEWithLogits(p, n, nil) },
			reference: func(p, n []float64) float64 {
				var s float64
				for _, x := range p {
					s += math.Log(1 + math.Exp(-x))
				}
				for _, x := range n {
					s += math.Log(1 + math.Exp(x))
				}
				return s / float64(len(p)+len(n))
			}},
		{name: "bce-weighted-masked", np: 4, nn: 6,
			build: func(p, n *gorgonia.Node) (*gorgonia.Node, error) {
				return link.BCEWithLogits(p, n, &link.BCEOptions{PosWeight: pw, NegWeight: nw, PosMask: pm, NegMask: nm})
			},
			reference: func(p, n []float64) float64 {
				var s, kept float64
				for i, x := range p {
					if pm[i] {
						s += pw[i] * softplus(-x)
						kept++
					}
				}
				for i, x := range n {
					if nm[i] {
						s += nw[i] * softplus(x)
						kept++
					}
				}
				return s / kept
			}},
		{name: "margin", np: 3, nn: 6, nonSmooth: true,
			build: func(p, n *gorgonia.Node) (*gorgonia.Node, error) { return link.MarginRanking(p, n, 2, 0.7) },
			reference: func(p, n []float64) float64 {
				var s float64
				for i := range p {
					for j := range 2 {
						s += math.Max(0, 0.7-p[i]+n[i*2+j])
					}
				}
				return s / 6
			}},
		{name: "softmax", np: 3, nn: 6,
			build: func(p, n *gorgonia.Node) (*gorgonia.Node, error) { return link.SoftmaxNegatives(p, n, 2) },
			reference: func(p, n []float64) float64 {
				var s float64
				for i := range p {
					z := math.Exp(p[i]) + math.Exp(n[2*i]) + math.Exp(n[2*i+1])
					s += math.Log(z) - p[i]
				}
				return s / 3
			}},
	}
}

// TestLosses checks every loss against a plain loop and its gradients by
// finite differences, in float32 and float64, with (n, 1) and (n) scores.
func TestLosses(t *testing.T) {
	seed := uint64(40)
	for _, c := range lossCases() {
		for _, column := range []bool{true, false} {
			for _, dt := range gradcheck.Dtypes {
				seed++
				t.Run(fmt.Sprintf("%s/column=%v/%v", c.name, column, dt), func(t *testing.T) {
					shape := func(n int) []int {
						if column {
							return []int{n, 1}
						}
						return []int{n}
					}
					build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, float64, error) {
						pv, nv := gradcheck.Draw(r, c.np), gradcheck.Draw(r, c.nn)
						p := gradcheck.Input(eg, dt, "pos", shape(c.np), pv)
						n := gradcheck.Input(eg, dt, "neg", shape(c.nn), nv)
						l, err := c.build(p, n)
						return l, gorgonia.Nodes{p, n}, c.reference(pv, nv), err
					}
					l, _, want, err := build(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(seed, 1)))
					if err != nil {
						t.Fatal(err)
					}
					got := gradcheck.Run(t, l)[0][0]
					tol := 1e-12
					if dt == tensor.Float32 {
						tol = 1e-6
					}
					if !gradcheck.Within(got, want, tol) {
						t.Errorf("loss %v, the loop gives %v", got, want)
					}
					f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
						l, wrt, _, err := build(eg, dt, r)
						if err != nil {
							return nil, nil, err
						}
						v, err := vector(l)
						return v, wrt, err
					}
					gradcheck.Check(t, dt, f, gradcheck.Options{Seed: seed, Stream: 3, Float32Tol: 1e-5, NonSmooth: c.nonSmooth})
				})
			}
		}
	}
}

// TestLossesLarge checks that logits of magnitude 1e4 give finite losses
// and gradients, and the values the asymptotes give.
func TestLossesLarge(t *testing.T) {
	for _, dt := range gradcheck.Dtypes {
		eg := gorgonia.NewGraph()
		p := gradcheck.Input(eg, dt, "pos", []int{2, 1}, []float64{1e4, -1e4})
		n := gradcheck.Input(eg, dt, "neg", []int{4, 1}, []float64{-1e4, 1e4, 1e4, -1e4})
		bce, err := link.BCEWithLogits(p, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		sm, err := link.SoftmaxNegatives(p, n, 2)
		if err != nil {
			t.Fatal(err)
		}
		mr, err := link.MarginRanking(p, n, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := gorgonia.Add(bce, sm)
		if err != nil {
			t.Fatal(err)
		}
		if sum, err = gorgonia.Add(sum, mr); err != nil {
			t.Fatal(err)
		}
		grads, err := gorgonia.Grad(sum, p, n)
		if err != nil {
			t.Fatal(err)
		}
		v := gradcheck.Run(t, append(gorgonia.Nodes{bce, sm, mr}, grads...)...)
		// BCE: pos -1e4 and neg 1e4 (twice) each cost 1e4: 3e4 / 6.
		// Softmax: positive 0 loses to 1e4 by 1e4 once... row 0: pos 1e4
		// vs (-1e4, 1e4): log(1 + 1 + tiny) = log 2; row 1: pos -1e4 vs
		// (1e4, -1e4): 2e4 + log(1 + tiny). Margin: row 0: max(0, 1-1e4-1e4)
		// + max(0, 1-1e4+1e4) = 1; row 1: (1+1e4+1e4) + 1 = 20002.
		want := []float64{3e4 / 6, (math.Log(2) + 2e4) / 2, (1 + 20002) / 4.0}
		for i, w := range want {
			got := v[i][0]
			if math.IsNaN(got) || math.IsInf(got, 0) || !gradcheck.Within(got, w, 1e-6) {
				t.Errorf("%v: loss %d is %v, want %v", dt, i, got, w)
			}
		}
		for _, g := range v[3:] {
			for j, x := range g {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					t.Errorf("%v: gradient element %d is %v", dt, j, x)
				}
			}
		}
	}
}

// TestLossErrors checks that bad input is reported.
func TestLossErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	p := gradcheck.Zeros(eg, tensor.Float64, "p", 2, 1)
	n := gradcheck.Zeros(eg, tensor.Float64, "n", 4, 1)
	n32 := gradcheck.Zeros(eg, tensor.Float32, "n32", 4, 1)
	wide := gradcheck.Zeros(eg, tensor.Float64, "wide", 4, 2)
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil", second(link.BCEWithLogits(nil, n, nil)), "positive scores are nil"},
		{"wide", second(link.BCEWithLogits(p, wide, nil)), "want (n, 1) or (n)"},
		{"dtypes", second(link.BCEWithLogits(p, n32, nil)), "float32"},
		{"weights", second(link.BCEWithLogits(p, n, &link.BCEOptions{PosWeight: []float64{1}})), "PosWeight has 1 elements for 2 scores"},
		{"negative weight", second(link.BCEWithLogits(p, n, &link.BCEOptions{NegWeight: []float64{1, -1, 1, 1}})), "NegWeight[1] = -1"},
		{"empty mask", second(link.BCEWithLogits(p, n, &link.BCEOptions{PosMask: []bool{false, false}, NegMask: make([]bool, 4)})), "no term"},
		{"k", second(link.MarginRanking(p, n, 0, 1)), "k = 0"},
		{"count", second(link.MarginRanking(p, n, 3, 1)), "4 negative scores for 2 positives with k = 3"},
		{"margin", second(link.MarginRanking(p, n, 2, math.Inf(1))), "margin"},
		{"softmax k", second(link.SoftmaxNegatives(p, n, -1)), "k = -1"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
}

func second[T any](_ T, err error) error { return err }

// vector returns the scalar x as a one-element vector (gradcheck projects
// its output on a random tensor of the output's shape).
func vector(x *gorgonia.Node) (*gorgonia.Node, error) {
	one := gradcheck.Input(x.Graph(), x.Dtype(), fmt.Sprintf("one%d", x.ID()), []int{1}, []float64{1})
	return gorgonia.Mul(x, one)
}

// TestLossesDeterministic checks that the losses and their gradients have
// the same bits at GOMAXPROCS 1 and 2 over enough scores to be split into
// chunks.
func TestLossesDeterministic(t *testing.T) {
	const p, k = 20_000, 3
	r := rand.New(rand.NewPCG(6, 6))
	pv, nv := gradcheck.Draw(r, p), gradcheck.Draw(r, p*k)
	run := func(procs int) [][]float64 {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		eg := gorgonia.NewGraph()
		pos := gradcheck.Input(eg, tensor.Float32, "pos", []int{p, 1}, pv)
		neg := gradcheck.Input(eg, tensor.Float32, "neg", []int{p * k, 1}, nv)
		var out gorgonia.Nodes
		for _, build := range []func() (*gorgonia.Node, error){
			func() (*gorgonia.Node, error) { return link.BCEWithLogits(pos, neg, nil) },
			func() (*gorgonia.Node, error) { return link.MarginRanking(pos, neg, k, 0.5) },
			func() (*gorgonia.Node, error) { return link.SoftmaxNegatives(pos, neg, k) },
		} {
			l, err := build()
			if err != nil {
				t.Fatal(err)
			}
			g, err := gorgonia.Grad(l, pos, neg)
			if err != nil {
				t.Fatal(err)
			}
			out = append(append(out, l), g...)
		}
		return gradcheck.Run(t, out...)
	}
	one, two := run(1), run(2)
	for i := range one {
		if !slices.Equal(one[i], two[i]) {
			t.Errorf("output %d differs between GOMAXPROCS 1 and 2", i)
		}
	}
}
