package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// reluDropoutRun returns the output of ReLUDropout(x) (fused) or
// Dropout(ReLU(x)) and the gradient of sum(out ⊙ r) with respect to x.
func reluDropoutRun(t *testing.T, dt tensor.Dtype, xs, r []float64, p float64, mode *Mode, fused bool) (y, dx []float64) {
	t.Helper()
	eg := gorgonia.NewGraph()
	n := len(xs)
	x := gradcheck.Input(eg, dt, "x", []int{n / 2, 2}, xs)
	rn := gradcheck.Input(eg, dt, "r", []int{n / 2, 2}, r)
	var out *gorgonia.Node
	var err error
	if fused {
		out, err = ReLUDropout(x, p, 9, mode)
	} else if out, err = ReLU(x); err == nil {
		out, err = Dropout(out, p, 9, mode)
	}
	if err != nil {
		t.Fatal(err)
	}
	prod, err := gorgonia.HadamardProd(out, rn)
	if err != nil {
		t.Fatal(err)
	}
	cost, err := gorgonia.Sum(prod)
	if err != nil {
		t.Fatal(err)
	}
	grads, err := gorgonia.Grad(cost, x)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return gradcheck.Floats(out.Value()), gradcheck.Floats(grads[0].Value())
}

// TestReLUDropout checks the fused op against ReLU then Dropout, bit for
// bit, forward and backward, in float32 and float64, training and
// evaluation, with exact zeros, negative zeros and values of both signs
// in x; and that it drops about p of the positive outputs.
func TestReLUDropout(t *testing.T) {
	const n, p = 4002, 0.4
	r := rand.New(rand.NewPCG(5, 6))
	xs, rs := gradcheck.Draw(r, n), gradcheck.Draw(r, n)
	xs[0], xs[1] = 0, math.Copysign(0, -1)
	for _, dt := range gradcheck.Dtypes {
		for _, training := range []bool{true, false} {
			t.Run(fmt.Sprintf("%v/training=%v", dt, training), func(t *testing.T) {
				mode := NewMode()
				mode.Next()
				mode.Next()
				if !training {
					mode.Eval()
				}
				y, dx := reluDropoutRun(t, dt, xs, rs, p, mode, true)
				wy, wdx := reluDropoutRun(t, dt, xs, rs, p, mode, false)
				for i := range y {
					if math.Float64bits(y[i]) != math.Float64bits(wy[i]) || math.Float64bits(dx[i]) != math.Float64bits(wdx[i]) {
						t.Fatalf("element %d (x %v): fused %v (grad %v), ReLU then Dropout %v (grad %v)", i, xs[i], y[i], dx[i], wy[i], wdx[i])
					}
				}
				pos, kept := 0, 0
				for i, v := range xs {
					if v > 0 {
						pos++
						if y[i] != 0 {
							kept++
						}
					}
				}
				want := 1 - p
				if !training {
					want = 1
				}
				if f := float64(kept) / float64(pos); math.Abs(f-want) > 0.04 {
					t.Errorf("kept %.3f of the positive outputs, want about %.2f", f, want)
				}
			})
		}
	}
}

// TestReLUDropoutGradient checks the gradient by finite differences (the
// mask is fixed within a step), float64 and float32.
func TestReLUDropoutGradient(t *testing.T) {
	mode := NewMode()
	mode.Next()
	for _, dt := range gradcheck.Dtypes {
		t.Run(dt.String(), func(t *testing.T) {
			build := func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
				x := gradcheck.Input(eg, dt, "x", []int{40, 3}, gradcheck.Draw(r, 120))
				y, err := ReLUDropout(x, 0.3, 4, mode)
				return y, gorgonia.Nodes{x}, err
			}
			gradcheck.Check(t, dt, build, gradcheck.Options{Seed: 7, Stream: 1, Float32Tol: 1e-4, NonSmooth: true})
		})
	}
}

func TestReLUDropoutErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(2, 3), gorgonia.WithName("x"))
	for _, p := range []float64{-0.1, 1, math.NaN()} {
		if _, err := ReLUDropout(x, p, 1, NewMode()); err == nil {
			t.Errorf("p=%v: no error", p)
		}
	}
	if _, err := ReLUDropout(x, 0.5, 1, nil); err == nil {
		t.Errorf("nil mode: no error")
	}
	if _, err := ReLUDropout(nil, 0.5, 1, NewMode()); err == nil {
		t.Errorf("nil x: no error")
	}
	xi := gorgonia.NewMatrix(eg, tensor.Int, gorgonia.WithShape(2, 3), gorgonia.WithName("xi"))
	if _, err := ReLUDropout(xi, 0.5, 1, NewMode()); err == nil {
		t.Errorf("int x: no error")
	}
	if y, err := ReLUDropout(x, 0, 1, NewMode()); err != nil || y.Op().String() != "relu" {
		t.Errorf("p=0: want ReLU, got %v, %v", y, err)
	}
}
