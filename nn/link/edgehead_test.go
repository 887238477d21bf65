package link_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/link"
)

// TestMSE checks MSE against a loop and its gradient by finite
// differences, over all rows and over listed rows.
func TestMSE(t *testing.T) {
	seed := uint64(700)
	for _, rows := range [][]int32{nil, {3, 0, 3}} {
		for _, dt := range gradcheck.Dtypes {
			seed++
			t.Run(fmt.Sprintf("rows=%v/%v", rows, dt), func(t *testing.T) {
				target := gradcheck.Draw(rand.New(rand.NewPCG(seed, 9)), 4*2)
				build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, []float64, error) {
					pv := gradcheck.Draw(r, 4*2)
					p := gradcheck.Input(eg, dt, "pred", []int{4, 2}, pv)
					l, err := link.MSE(p, target, rows)
					return l, gorgonia.Nodes{p}, pv, err
				}
				l, _, pv, err := build(gorgonia.NewGraph(), dt, rand.New(rand.NewPCG(seed, 1)))
				if err != nil {
					t.Fatal(err)
				}
				list := rows
				if list == nil {
					list = []int32{0, 1, 2, 3}
				}
				var want float64
				for _, r := range list {
					for j := range 2 {
						d := pv[int(r)*2+j] - target[int(r)*2+j]
						want += d * d
					}
				}
				want /= float64(2 * len(list))
				if got := gradcheck.Run(t, l)[0][0]; !gradcheck.Within(got, want, 1e-6) {
					t.Errorf("MSE %v, want %v", got, want)
				}
				f := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
					l, wrt, _, err := build(eg, dt, r)
					if err != nil {
						return nil, nil, err
					}
					v, err := vector(l)
					return v, wrt, err
				}
				gradcheck.Check(t, dt, f, gradcheck.Options{Seed: seed, Stream: 2, Float32Tol: 1e-5})
			})
		}
	}
}

// TestEdgeHeadTrains trains an edge head to classify pairs of fixed random
// embeddings by the sign of their dot product (with nn.CrossEntropy) and to
// regress that dot product (with MSE): both fit well within 300 Adam
// steps.
func TestEdgeHeadTrains(t *testing.T) {
	const n, f, e = 40, 4, 300
	rng := rand.New(rand.NewPCG(5, 5))
	hv := make([]float64, n*f)
	for i := range hv {
		hv[i] = rng.NormFloat64()
	}
	src, dst := make([]int32, e), make([]int32, e)
	labels := make([]int32, e)
	target := make([]float64, e)
	for i := range src {
		src[i], dst[i] = int32(rng.IntN(n)), int32(rng.IntN(n))
		target[i] = dotRef(rowsOf(hv, int(src[i]), f), rowsOf(hv, int(dst[i]), f))
		if target[i] > 0 {
			labels[i] = 1
		}
	}
	g := pairGraph(t, n, src, dst)
	all := make([]int32, e)
	for i := range all {
		all[i] = int32(i)
	}
	for _, task := range []string{"classify", "regress"} {
		eg := gorgonia.NewGraph()
		h := gradcheck.Input(eg, tensor.Float64, "h", []int{n, f}, hv)
		out := 2
		if task == "regress" {
			out = 1
		}
		head, err := link.NewEdgeHead(eg, f, []int{32}, out, link.WithDtype(tensor.Float64), link.WithSeed(1), link.WithCombine(link.Hadamard))
		if err != nil {
			t.Fatal(err)
		}
		y, err := head.Forward(g, h, nil)
		if err != nil {
			t.Fatal(err)
		}
		var loss *gorgonia.Node
		if task == "classify" {
			loss, err = nn.CrossEntropy(y, labels, all)
		} else {
			loss, err = link.MSE(y, target, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gorgonia.Grad(loss, head.Learnables()...); err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(eg, gorgonia.BindDualValues(head.Learnables()...))
		solver := gorgonia.NewAdamSolver(gorgonia.WithLearnRate(0.02))
		var first, last float64
		for step := range 300 {
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			last = gradcheck.Floats(loss.Value())[0]
			if step == 0 {
				first = last
			}
			if err := solver.Step(gorgonia.NodesToValueGrads(head.Learnables())); err != nil {
				t.Fatal(err)
			}
			vm.Reset()
		}
		vm.Close()
		t.Logf("%s: loss %.4f -> %.4f", task, first, last)
		if task == "classify" {
			acc, err := nn.Accuracy(y.Value(), labels, all)
			if err != nil {
				t.Fatal(err)
			}
			if acc < 0.95 {
				t.Errorf("classification accuracy %.3f after training, want >= 0.95", acc)
			}
		} else if last > 0.05*first {
			t.Errorf("regression loss %.4f after training from %.4f, want under 5%%", last, first)
		}
	}
}
