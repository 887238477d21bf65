package train

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Adam's constants, those of gorgonia.NewAdamSolver.
const (
	adamBeta1 = 0.9
	adamBeta2 = 0.999
	adamEps   = 1e-8
)

// Adam is the Adam optimiser of gorgonia.NewAdamSolver with
// gorgonia.WithLearnRate and, when the weight decay is positive,
// gorgonia.WithL2Reg (betas 0.9 and 0.999, epsilon 1e-8, batch 1, no
// clipping), computed in place: its moments are allocated at the first
// Step and every later Step allocates nothing, where Gorgonia's clones the
// gradient and the moments of every parameter on every step. Its results
// are bit-identical to Gorgonia's: the same operations in the same order
// and precision (float32 parameters in float32, with the constants
// rounded as Gorgonia rounds them).
//
// As Gorgonia's, an Adam keeps one pair of moments per position in the
// model passed to Step, so a Step must be given the same parameters in the
// same order every time, and it zeroes the gradients it consumes.
type Adam struct {
	lr, l2 float64
	iter   int
	state  []adamMoments
}

// adamMoments are the first and second moments of one parameter: slices
// of a dense parameter, or one element for a scalar.
type adamMoments struct {
	m32, v32 []float32
	m64, v64 []float64
}

// NewAdam returns an Adam with the given learning rate and L2 weight decay
// (0 for none), as gorgonia.NewAdamSolver(gorgonia.WithLearnRate(lr),
// gorgonia.WithL2Reg(weightDecay)) would be.
func NewAdam(learningRate, weightDecay float64) (*Adam, error) {
	if !(learningRate > 0) || math.IsInf(learningRate, 0) {
		return nil, fmt.Errorf("train: Adam: learning rate %v, want a positive finite number", learningRate)
	}
	if !(weightDecay >= 0) || math.IsInf(weightDecay, 0) {
		return nil, fmt.Errorf("train: Adam: weight decay %v, want a finite number >= 0", weightDecay)
	}
	return &Adam{lr: learningRate, l2: weightDecay}, nil
}

// newAdamSolver is the solver nn/train trains with: an Adam, whose
// arguments the callers have already checked.
func newAdamSolver(learningRate, weightDecay float64) gorgonia.Solver {
	return &Adam{lr: learningRate, l2: weightDecay}
}

// Step applies one Adam update to every value of model from its gradient,
// and zeroes the gradient. A value is a float32 or float64 dense tensor
// (or a gorgonia.F32 or F64 scalar) and its gradient one of the same type
// and size.
func (a *Adam) Step(model []gorgonia.ValueGrad) error {
	if a.state == nil {
		a.state = make([]adamMoments, len(model))
	} else if len(model) != len(a.state) {
		return fmt.Errorf("train: Adam: a step over %d values, the first was over %d", len(model), len(a.state))
	}
	a.iter++
	c1 := 1 - math.Pow(adamBeta1, float64(a.iter))
	c2 := 1 - math.Pow(adamBeta2, float64(a.iter))
	for i, n := range model {
		g, err := n.Grad()
		if err != nil {
			return fmt.Errorf("train: Adam: value %d%s has no gradient: %w", i, nameOf(n), err)
		}
		if err := a.step(&a.state[i], n.Value(), g, c1, c2); err != nil {
			return fmt.Errorf("train: Adam: value %d%s: %w", i, nameOf(n), err)
		}
	}
	return nil
}

// nameOf returns " (name)" for a named value, else "".
func nameOf(n gorgonia.ValueGrad) string {
	if nm, ok := n.(interface{ Name() string }); ok {
		return " (" + nm.Name() + ")"
	}
	return ""
}

// step updates one value w from its gradient g with the moments st.
func (a *Adam) step(st *adamMoments, w, g gorgonia.Value, c1, c2 float64) error {
	switch wv := w.(type) {
	case *tensor.Dense:
		gv, ok := g.(*tensor.Dense)
		if !ok || gv.Dtype() != wv.Dtype() || gv.Size() != wv.Size() {
			return fmt.Errorf("value is %v of %d elements but its gradient %s", wv.Dtype(), wv.Size(), describeValue(g))
		}
		switch wv.Dtype() {
		case tensor.Float32:
			ws, gs := wv.Float32s(), gv.Float32s()
			if err := initMoments(st, &st.m32, &st.v32, len(ws)); err != nil {
				return err
			}
			adamUpdate(a, ws, gs, st.m32, st.v32, c1, c2)
			return nil
		case tensor.Float64:
			ws, gs := wv.Float64s(), gv.Float64s()
			if err := initMoments(st, &st.m64, &st.v64, len(ws)); err != nil {
				return err
			}
			adamUpdate(a, ws, gs, st.m64, st.v64, c1, c2)
			return nil
		}
		return fmt.Errorf("value is %v, want float32 or float64", wv.Dtype())
	case *gorgonia.F32:
		gv, ok := g.(*gorgonia.F32)
		if !ok {
			return fmt.Errorf("value is a float32 scalar but its gradient %s", describeValue(g))
		}
		if err := initMoments(st, &st.m32, &st.v32, 1); err != nil {
			return err
		}
		adamScalar(a, (*float32)(wv), (*float32)(gv), st.m32, st.v32, c1, c2)
		return nil
	case *gorgonia.F64:
		gv, ok := g.(*gorgonia.F64)
		if !ok {
			return fmt.Errorf("value is a float64 scalar but its gradient %s", describeValue(g))
		}
		if err := initMoments(st, &st.m64, &st.v64, 1); err != nil {
			return err
		}
		adamScalar(a, (*float64)(wv), (*float64)(gv), st.m64, st.v64, c1, c2)
		return nil
	}
	return fmt.Errorf("value %s, want a float32 or float64 dense tensor or scalar", describeValue(w))
}

// describeValue says what a value is, for errors.
func describeValue(v gorgonia.Value) string {
	if d, ok := v.(*tensor.Dense); ok {
		return fmt.Sprintf("is %v of %d elements", d.Dtype(), d.Size())
	}
	return fmt.Sprintf("holds %T", v)
}

// float is the element type of the parameters Adam updates.
type float interface{ ~float32 | ~float64 }

// initMoments allocates the moments *m and *v (st's of one type) of n
// elements at the first step and checks the type and size at the later
// ones.
func initMoments[T float](st *adamMoments, m, v *[]T, n int) error {
	switch {
	case st.m32 == nil && st.m64 == nil:
		*m, *v = make([]T, n), make([]T, n)
	case *m == nil || len(*m) != n:
		return fmt.Errorf("value is %T of %d elements, at the first step it was %s", T(0), n, st.describe())
	}
	return nil
}

func (st *adamMoments) describe() string {
	if st.m32 != nil {
		return fmt.Sprintf("float32 of %d elements", len(st.m32))
	}
	return fmt.Sprintf("float64 of %d elements", len(st.m64))
}

// adamUpdate is AdamSolver.Step on a float32 or float64 dense value,
// element by element. Gorgonia computes, with whole-tensor operations in
// this order: g += w*l2; t1 = g*(1-β1); g = g*g; g *= 1-β2; t1 += m*β1
// (the new m); g += v*β2 (the new v); mHat = t1*(1/c1); vHat = g*(1/c2);
// vHat = sqrt(vHat); vHat += eps; mHat *= -η; mHat /= vHat; w += mHat;
// g = 0, in the value's type with the constants rounded to it. Each
// operation rounds, so the loop below rounds after every one of them too
// (the conversion of w*l2 forbids fusing it into the addition, which
// Gorgonia computes in a separate pass).
func adamUpdate[T float](a *Adam, w, g, m, v []T, c1, c2 float64) {
	var (
		l2     = T(a.l2)
		useL2  = a.l2 > 0
		b1     = T(adamBeta1)
		b2     = T(adamBeta2)
		omb1   = T(1) - T(adamBeta1)
		omb2   = T(1) - T(adamBeta2)
		eps    = T(adamEps)
		negEta = -T(a.lr)
		cv1    = T(1) / T(c1)
		cv2    = T(1) / T(c2)
	)
	w, g, m, v = w[:len(w)], g[:len(w)], m[:len(w)], v[:len(w)]
	for i := range w {
		gi := g[i]
		if useL2 {
			gi = gi + T(w[i]*l2)
		}
		t1 := gi * omb1
		sq := gi * gi
		sq = sq * omb2
		t1 += m[i] * b1
		sq += v[i] * b2
		m[i], v[i] = t1, sq
		mHat := t1 * cv1
		vHat := sq * cv2
		vHat = T(math.Sqrt(float64(vHat)))
		vHat = vHat + eps
		mHat = mHat * negEta
		mHat = mHat / vHat
		w[i] = w[i] + mHat
		g[i] = 0
	}
}

// adamScalar is AdamSolver.Step on a gorgonia.F32 or F64 with its moments
// m and v (one element each), which Gorgonia computes by a formula of its
// own (not the dense one).
func adamScalar[T float](a *Adam, w, g *T, m, v []T, c1, c2 float64) {
	gi := *g
	beta1, beta2 := T(adamBeta1), T(adamBeta2)
	eps, eta := T(adamEps), T(a.lr)
	if a.l2 > 0 {
		l2 := T(a.l2)
		l2 *= *w
		gi += l2
	}
	newM := (beta1 * m[0]) + (1-beta1)*gi
	newV := (beta2 * v[0]) + (1-beta2)*gi*gi
	m[0], v[0] = newM, newV
	mHat := (1 / T(c1)) * newM
	vHat := (1 / T(c2)) * newV
	upd := -eta * mHat / (T(math.Sqrt(float64(vHat))) + eps)
	*w += upd
	*g = 0
}
