package nn

import (
	"math"
	"runtime"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// dropoutRun builds y = dropout(x) and cost = sum(y * r), returning y and
// d cost / dx for the current mode.
func dropoutRun(t *testing.T, n int, p float64, mode *Mode) (y, dx []float64) {
	t.Helper()
	eg := gorgonia.NewGraph()
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i%7) + 1
	}
	x := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(n), gorgonia.WithName("x"), gorgonia.WithValue(tensor.New(tensor.WithBacking(xs))))
	out, err := Dropout(x, p, 42, mode)
	if err != nil {
		t.Fatal(err)
	}
	cost, err := gorgonia.Sum(out)
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
	y = append([]float64{}, out.Value().Data().([]float64)...)
	dx = append([]float64{}, grads[0].Value().Data().([]float64)...)
	return y, dx
}

func TestDropout(t *testing.T) {
	const n, p = 20000, 0.3
	mode := NewMode()
	mode.Next()
	y, dx := dropoutRun(t, n, p, mode)
	kept := 0
	for i := range y {
		x := float64(i%7) + 1
		switch {
		case y[i] == 0:
			if dx[i] != 0 {
				t.Fatalf("dropped element %d has gradient %v", i, dx[i])
			}
		case math.Abs(y[i]-x/(1-p)) < 1e-12:
			kept++
			if math.Abs(dx[i]-1/(1-p)) > 1e-12 {
				t.Fatalf("kept element %d has gradient %v, want %v", i, dx[i], 1/(1-p))
			}
		default:
			t.Fatalf("element %d = %v, want 0 or %v", i, y[i], x/(1-p))
		}
	}
	if frac := float64(kept) / n; math.Abs(frac-(1-p)) > 0.02 {
		t.Errorf("kept fraction %.3f, want about %.2f", frac, 1-p)
	}

	// Same step, any GOMAXPROCS: the same mask. Next step: another mask.
	prev := runtime.GOMAXPROCS(1)
	y1, _ := dropoutRun(t, n, p, mode)
	runtime.GOMAXPROCS(prev)
	for i := range y {
		if y[i] != y1[i] {
			t.Fatalf("mask differs with GOMAXPROCS=1 at %d", i)
		}
	}
	mode.Next()
	y2, _ := dropoutRun(t, n, p, mode)
	same := 0
	for i := range y {
		if (y[i] == 0) == (y2[i] == 0) {
			same++
		}
	}
	if same == n {
		t.Errorf("the mask did not change between steps")
	}

	mode.Eval()
	y3, dx3 := dropoutRun(t, n, p, mode)
	for i := range y3 {
		if y3[i] != float64(i%7)+1 || dx3[i] != 1 {
			t.Fatalf("evaluation mode: element %d = %v (grad %v), want identity", i, y3[i], dx3[i])
		}
	}
}

func TestDropoutErrors(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewVector(eg, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("x"))
	for _, p := range []float64{-0.1, 1, math.NaN()} {
		if _, err := Dropout(x, p, 1, NewMode()); err == nil {
			t.Errorf("p=%v: no error", p)
		}
	}
	if _, err := Dropout(x, 0.5, 1, nil); err == nil {
		t.Errorf("nil mode: no error")
	}
	if y, err := Dropout(x, 0, 1, NewMode()); err != nil || y != x {
		t.Errorf("p=0 should return x unchanged")
	}
}

// TestDropoutSpecialValues checks the masking by bits: in float32 and
// float64, a dropped element is +0 whatever it held (Inf and NaN included),
// a kept one is exactly x times 1/(1-p), and both kinds occur.
func TestDropoutSpecialValues(t *testing.T) {
	t.Run("float32", testDropoutSpecialValues[float32])
	t.Run("float64", testDropoutSpecialValues[float64])
}

func testDropoutSpecialValues[T float32 | float64](t *testing.T) {
	const p = 0.5
	x := make([]T, 4001) // not a multiple of 4: a partial last draw
	for i := range x {
		x[i] = []T{T(math.Inf(1)), T(math.Inf(-1)), T(math.NaN()), -3, 0.25}[i%5]
	}
	y := make([]T, len(x))
	for i := range y {
		y[i] = 7 // every element is written
	}
	applyMask(y, x, p, 3, 1, true, false)
	scale := T(1 / (1 - p))
	dropped, kept := 0, 0
	for i, v := range y {
		want := x[i] * scale
		switch {
		case v == 0 && !math.Signbit(float64(v)):
			dropped++
		case v == want || (v != v && want != want):
			kept++
		default:
			t.Fatalf("element %d of %v is %v, want 0 or %v", i, x[i], v, want)
		}
	}
	if dropped < 1800 || kept < 1800 {
		t.Errorf("%d dropped and %d kept of %d at p = %v", dropped, kept, len(x), p)
	}
}
