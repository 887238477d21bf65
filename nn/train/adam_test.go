package train_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn/train"
)

// valueGrad is a gorgonia.ValueGrad over a value and a gradient.
type valueGrad struct{ w, g gorgonia.Value }

func (v valueGrad) Value() gorgonia.Value         { return v.w }
func (v valueGrad) Grad() (gorgonia.Value, error) { return v.g, nil }

// adamCase builds the same parameters twice (one copy per solver) with
// random values of the given dtype, shapes including a scalar-like 1x1,
// a vector and matrices, plus a gorgonia scalar.
func adamCase(dt tensor.Dtype, r *rand.Rand) (a, b []valueGrad) {
	shapes := [][]int{{1, 1}, {7}, {13, 5}, {64, 33}}
	for _, s := range shapes {
		w1 := tensor.New(tensor.WithShape(s...), tensor.Of(dt))
		g1 := tensor.New(tensor.WithShape(s...), tensor.Of(dt))
		fill(w1, r, 1)
		w2 := w1.Clone().(*tensor.Dense)
		g2 := g1.Clone().(*tensor.Dense)
		a = append(a, valueGrad{w1, g1})
		b = append(b, valueGrad{w2, g2})
	}
	if dt == tensor.Float32 {
		w := float32(r.NormFloat64())
		w1, w2 := gorgonia.F32(w), gorgonia.F32(w)
		g1, g2 := gorgonia.F32(0), gorgonia.F32(0)
		a = append(a, valueGrad{&w1, &g1})
		b = append(b, valueGrad{&w2, &g2})
	} else {
		w := r.NormFloat64()
		w1, w2 := gorgonia.F64(w), gorgonia.F64(w)
		g1, g2 := gorgonia.F64(0), gorgonia.F64(0)
		a = append(a, valueGrad{&w1, &g1})
		b = append(b, valueGrad{&w2, &g2})
	}
	return a, b
}

// fill sets d to random normal values times scale, with a few zeros and
// tiny and large ones.
func fill(d *tensor.Dense, r *rand.Rand, scale float64) {
	for i := range d.Size() {
		x := r.NormFloat64() * scale
		switch r.IntN(20) {
		case 0:
			x = 0
		case 1:
			x *= 1e-6
		case 2:
			x *= 1e3
		}
		if d.Dtype() == tensor.Float32 {
			d.Float32s()[i] = float32(x)
		} else {
			d.Float64s()[i] = x
		}
	}
}

// setGrads draws the same random gradients into both copies.
func setGrads(a, b []valueGrad, r *rand.Rand) {
	for i := range a {
		switch g := a[i].g.(type) {
		case *tensor.Dense:
			fill(g, r, 0.1)
			tensor.Copy(b[i].g.(*tensor.Dense), g)
		case *gorgonia.F32:
			*g = gorgonia.F32(r.NormFloat64() * 0.1)
			*b[i].g.(*gorgonia.F32) = *g
		case *gorgonia.F64:
			*g = gorgonia.F64(r.NormFloat64() * 0.1)
			*b[i].g.(*gorgonia.F64) = *g
		}
	}
}

func asModel(vs []valueGrad) []gorgonia.ValueGrad {
	out := make([]gorgonia.ValueGrad, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// bits returns the bit patterns of a value, for exact comparison.
func bits(v gorgonia.Value) []uint64 {
	switch d := v.(type) {
	case *tensor.Dense:
		var out []uint64
		if d.Dtype() == tensor.Float32 {
			for _, x := range d.Float32s() {
				out = append(out, uint64(math.Float32bits(x)))
			}
		} else {
			for _, x := range d.Float64s() {
				out = append(out, math.Float64bits(x))
			}
		}
		return out
	case *gorgonia.F32:
		return []uint64{uint64(math.Float32bits(float32(*d)))}
	case *gorgonia.F64:
		return []uint64{math.Float64bits(float64(*d))}
	}
	return nil
}

// TestAdamMatchesGorgonia runs 50 steps of Adam and of Gorgonia's
// AdamSolver on the same random parameters and gradients and requires
// the parameters and the zeroed gradients to be bit-identical after every
// step.
func TestAdamMatchesGorgonia(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, wd := range []float64{0, 5e-4} {
			for _, lr := range []float64{0.01, 0.005} {
				r := rand.New(rand.NewPCG(uint64(len(dt.String())), math.Float64bits(wd+lr)))
				mine, ref := adamCase(dt, r)
				opts := []gorgonia.SolverOpt{gorgonia.WithLearnRate(lr)}
				if wd > 0 {
					opts = append(opts, gorgonia.WithL2Reg(wd))
				}
				gs := gorgonia.NewAdamSolver(opts...)
				a, err := train.NewAdam(lr, wd)
				if err != nil {
					t.Fatal(err)
				}
				mm, rm := asModel(mine), asModel(ref)
				for step := range 50 {
					setGrads(mine, ref, r)
					if err := a.Step(mm); err != nil {
						t.Fatal(err)
					}
					if err := gs.Step(rm); err != nil {
						t.Fatal(err)
					}
					for i := range mine {
						got, want := bits(mine[i].w), bits(ref[i].w)
						for j := range want {
							if got[j] != want[j] {
								t.Fatalf("%v wd %g lr %g: step %d, value %d[%d]: %x, Gorgonia's %x", dt, wd, lr, step, i, j, got[j], want[j])
							}
						}
						refG := bits(ref[i].g)
						for j, x := range bits(mine[i].g) {
							if x != refG[j] {
								t.Fatalf("%v wd %g: step %d, gradient %d[%d] is %x after the step, Gorgonia's %x", dt, wd, step, i, j, x, refG[j])
							}
						}
					}
				}
			}
		}
	}
}

// TestAdamAllocatesNothing: after the first step, which allocates the
// moments, a step allocates nothing.
func TestAdamAllocatesNothing(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		r := rand.New(rand.NewPCG(1, 2))
		mine, _ := adamCase(dt, r)
		a, err := train.NewAdam(0.01, 5e-4)
		if err != nil {
			t.Fatal(err)
		}
		m := asModel(mine)
		if err := a.Step(m); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(20, func() {
			if err := a.Step(m); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%v: %v allocations per step, want 0", dt, n)
		}
	}
}

// TestAdamErrors: bad arguments and a model that changes between steps
// are errors naming what was wrong.
func TestAdamErrors(t *testing.T) {
	for _, c := range []struct{ lr, wd float64 }{{0, 0}, {-1, 0}, {math.Inf(1), 0}, {0.1, -1}, {0.1, math.NaN()}} {
		if _, err := train.NewAdam(c.lr, c.wd); err == nil {
			t.Errorf("NewAdam(%v, %v): no error", c.lr, c.wd)
		}
	}
	a, _ := train.NewAdam(0.1, 0)
	w := tensor.New(tensor.WithShape(3), tensor.Of(tensor.Float32))
	g := tensor.New(tensor.WithShape(3), tensor.Of(tensor.Float32))
	if err := a.Step([]gorgonia.ValueGrad{valueGrad{w, g}}); err != nil {
		t.Fatal(err)
	}
	w4 := tensor.New(tensor.WithShape(4), tensor.Of(tensor.Float32))
	g4 := tensor.New(tensor.WithShape(4), tensor.Of(tensor.Float32))
	for _, c := range []struct {
		model []gorgonia.ValueGrad
		want  string
	}{
		{[]gorgonia.ValueGrad{valueGrad{w, g}, valueGrad{w, g}}, "over 2 values, the first was over 1"},
		{[]gorgonia.ValueGrad{valueGrad{w4, g4}}, "float32 of 4 elements, at the first step it was float32 of 3"},
		{[]gorgonia.ValueGrad{valueGrad{w, g4}}, "gradient is float32 of 4 elements"},
		{[]gorgonia.ValueGrad{valueGrad{tensor.New(tensor.WithShape(3), tensor.Of(tensor.Int)), tensor.New(tensor.WithShape(3), tensor.Of(tensor.Int))}}, "want float32 or float64"},
	} {
		err := a.Step(c.model)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// BenchmarkAdamStep compares one step over a 1433 x 64 and a 64 x 7
// parameter (a Cora GCN-sized model) with Gorgonia's AdamSolver.
func BenchmarkAdamStep(b *testing.B) {
	mk := func() []gorgonia.ValueGrad {
		r := rand.New(rand.NewPCG(3, 4))
		var out []gorgonia.ValueGrad
		for _, s := range [][]int{{1433, 64}, {64, 7}} {
			w := tensor.New(tensor.WithShape(s...), tensor.Of(tensor.Float32))
			g := tensor.New(tensor.WithShape(s...), tensor.Of(tensor.Float32))
			fill(w, r, 1)
			out = append(out, valueGrad{w, g})
		}
		return out
	}
	params := float64(1433*64 + 64*7)
	b.Run("solver=gnn", func(b *testing.B) {
		a, _ := train.NewAdam(0.01, 5e-4)
		m := mk()
		b.ReportAllocs()
		for b.Loop() {
			a.Step(m)
		}
		b.ReportMetric(params*float64(b.N)/b.Elapsed().Seconds(), "params/s")
	})
	b.Run("solver=gorgonia", func(b *testing.B) {
		s := gorgonia.NewAdamSolver(gorgonia.WithLearnRate(0.01), gorgonia.WithL2Reg(5e-4))
		m := mk()
		b.ReportAllocs()
		for b.Loop() {
			s.Step(m)
		}
		b.ReportMetric(params*float64(b.N)/b.Elapsed().Seconds(), "params/s")
	})
}
