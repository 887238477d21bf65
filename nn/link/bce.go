package link

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/parallel"
)

// BCEOptions weights and masks the terms of BCEWithLogits. Every slice is
// optional (nil); a non-nil one has one element per score of its side.
type BCEOptions struct {
	// PosWeight and NegWeight multiply each positive's and negative's term
	// (PyTorch's weight): finite and non-negative.
	PosWeight, NegWeight []float64
	// PosMask and NegMask leave out the terms whose element is false (and
	// the mean counts only the terms left in).
	PosMask, NegMask []bool
}

// BCEWithLogits builds the binary cross-entropy of logits: the positive
// pairs' scores pos (label 1) and the negative pairs' scores neg (label 0),
// each (n, 1) or (n), averaged over the terms kept by the masks:
//
//	loss = sum_i m_i w_i l(x_i, y_i) / sum_i m_i,
//	l(x, y) = max(x, 0) - x y + log1p(exp(-|x|)),
//
// the form of PyTorch's binary_cross_entropy_with_logits that neither
// overflows nor loses precision for large |x| (a logit of 1e4 gives a
// finite loss and the gradient sigmoid(x) - y). o may be nil.
func BCEWithLogits(pos, neg *gorgonia.Node, o *BCEOptions) (*gorgonia.Node, error) {
	l := &bce{}
	if o != nil {
		l.o = BCEOptions{
			PosWeight: append([]float64(nil), o.PosWeight...), NegWeight: append([]float64(nil), o.NegWeight...),
			PosMask: append([]bool(nil), o.PosMask...), NegMask: append([]bool(nil), o.NegMask...),
		}
	}
	np, err := column("BCEWithLogits", "positive", pos)
	if err != nil {
		return nil, err
	}
	nn, err := column("BCEWithLogits", "negative", neg)
	if err != nil {
		return nil, err
	}
	if err := checkWeights("PosWeight", l.o.PosWeight, np); err != nil {
		return nil, err
	}
	if err := checkWeights("NegWeight", l.o.NegWeight, nn); err != nil {
		return nil, err
	}
	kept := 0
	for _, m := range []struct {
		name string
		mask []bool
		n    int
	}{{"PosMask", l.o.PosMask, np}, {"NegMask", l.o.NegMask, nn}} {
		if m.mask == nil {
			kept += m.n
			continue
		}
		if len(m.mask) != m.n {
			return nil, fmt.Errorf("link: BCEWithLogits: %s has %d elements for %d scores", m.name, len(m.mask), m.n)
		}
		for _, k := range m.mask {
			if k {
				kept++
			}
		}
	}
	if kept == 0 {
		return nil, fmt.Errorf("link: BCEWithLogits: the masks leave no term")
	}
	l.kept = float64(kept)
	return applyLoss(l, pos, neg)
}

// checkWeights checks optional weights w for n scores.
func checkWeights(name string, w []float64, n int) error {
	if w == nil {
		return nil
	}
	if len(w) != n {
		return fmt.Errorf("link: BCEWithLogits: %s has %d elements for %d scores", name, len(w), n)
	}
	for i, x := range w {
		if !(x >= 0) || math.IsInf(x, 1) {
			return fmt.Errorf("link: BCEWithLogits: %s[%d] = %v, want finite and non-negative", name, i, x)
		}
	}
	return nil
}

// bce is BCEWithLogits' loss.
type bce struct {
	o    BCEOptions
	kept float64
}

func (*bce) name() string { return "bce_with_logits" }

func (l *bce) loss(pos, neg []float64) float64 {
	return (l.side(pos, 1, l.o.PosWeight, l.o.PosMask) + l.side(neg, 0, l.o.NegWeight, l.o.NegMask)) / l.kept
}

// side returns the sum of the weighted, kept terms of scores x with label
// y.
func (l *bce) side(x []float64, y float64, w []float64, mask []bool) float64 {
	return chunkSum(len(x), func(lo, hi int) float64 {
		var s float64
		for i := lo; i < hi; i++ {
			if mask != nil && !mask[i] {
				continue
			}
			v, wi := x[i], 1.0
			if w != nil {
				wi = w[i]
			}
			s += wi * (max(v, 0) - v*y + math.Log1p(math.Exp(-math.Abs(v))))
		}
		return s
	})
}

func (l *bce) grad(pos, neg []float64, wrt int, d []float64) {
	x, y, w, mask := pos, 1.0, l.o.PosWeight, l.o.PosMask
	if wrt == 1 {
		x, y, w, mask = neg, 0, l.o.NegWeight, l.o.NegMask
	}
	parallel.For(len(x), lossChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			if mask != nil && !mask[i] {
				continue
			}
			wi := 1.0
			if w != nil {
				wi = w[i]
			}
			d[i] = wi * (sigmoid(x[i]) - y) / l.kept
		}
	})
}

// sigmoid returns 1/(1+exp(-x)) without overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}
