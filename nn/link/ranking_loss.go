package link

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/parallel"
)

// The negatives of positive i are rows i*k ... i*k+k-1 of the negative
// scores: the layout of a negative sampler that draws k per positive.

// negatives checks that there are k negatives per positive.
func negatives(loss string, pos, neg *gorgonia.Node, k int) error {
	if k <= 0 {
		return fmt.Errorf("link: %s: k = %d negatives per positive, want at least 1", loss, k)
	}
	np, err := column(loss, "positive", pos)
	if err != nil {
		return err
	}
	nn, err := column(loss, "negative", neg)
	if err != nil {
		return err
	}
	if nn != np*k {
		return fmt.Errorf("link: %s: %d negative scores for %d positives with k = %d (want %d)", loss, nn, np, k, np*k)
	}
	return nil
}

// MarginRanking builds the max-margin ranking loss of each positive
// against each of its k negatives, averaged over the pairs:
//
//	loss = 1/(P k) sum_i sum_j max(0, margin - pos_i + neg_ij),
//
// with neg_ij = neg[i*k+j]; pos is (P, 1) or (P) and neg (P*k, 1) or
// (P*k). At the hinge (margin - pos + neg = 0 exactly) the gradient is 0,
// PyTorch's choice for ReLU.
func MarginRanking(pos, neg *gorgonia.Node, k int, margin float64) (*gorgonia.Node, error) {
	if math.IsNaN(margin) || math.IsInf(margin, 0) {
		return nil, fmt.Errorf("link: MarginRanking: margin %v is not finite", margin)
	}
	if err := negatives("MarginRanking", pos, neg, k); err != nil {
		return nil, err
	}
	return applyLoss(&marginLoss{k: k, margin: margin}, pos, neg)
}

// marginLoss is MarginRanking's loss.
type marginLoss struct {
	k      int
	margin float64
}

func (l *marginLoss) name() string {
	return fmt.Sprintf("margin_ranking(k=%d,margin=%g)", l.k, l.margin)
}

func (l *marginLoss) loss(pos, neg []float64) float64 {
	return chunkSum(len(pos), func(lo, hi int) float64 {
		var s float64
		for i := lo; i < hi; i++ {
			for _, n := range neg[i*l.k : (i+1)*l.k] {
				if h := l.margin - pos[i] + n; h > 0 {
					s += h
				}
			}
		}
		return s
	}) / float64(len(neg))
}

func (l *marginLoss) grad(pos, neg []float64, wrt int, d []float64) {
	inv := 1 / float64(len(neg))
	parallel.For(len(pos), lossChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			var c float64
			for j := i * l.k; j < (i+1)*l.k; j++ {
				if l.margin-pos[i]+neg[j] > 0 {
					c++
					if wrt == 1 {
						d[j] = inv
					}
				}
			}
			if wrt == 0 {
				d[i] = -c * inv
			}
		}
	})
}

// SoftmaxNegatives builds the cross-entropy of each positive against its
// k negatives, as a (k+1)-way classification whose right answer is the
// positive, averaged over the positives:
//
//	loss = 1/P sum_i (logsumexp(pos_i, neg_i1, ..., neg_ik) - pos_i),
//
// with neg_ij = neg[i*k+j-1], a stable log-sum-exp (the row maximum
// subtracted first). pos is (P, 1) or (P) and neg (P*k, 1) or (P*k).
func SoftmaxNegatives(pos, neg *gorgonia.Node, k int) (*gorgonia.Node, error) {
	if err := negatives("SoftmaxNegatives", pos, neg, k); err != nil {
		return nil, err
	}
	return applyLoss(&softmaxLoss{k: k}, pos, neg)
}

// softmaxLoss is SoftmaxNegatives' loss.
type softmaxLoss struct{ k int }

func (l *softmaxLoss) name() string { return fmt.Sprintf("softmax_negatives(k=%d)", l.k) }

// lse returns the maximum m of positive i's row (its score and its
// negatives') and the sum of exp(x - m) over the row.
func (l *softmaxLoss) lse(pos, neg []float64, i int) (m, z float64) {
	row := neg[i*l.k : (i+1)*l.k]
	m = pos[i]
	for _, x := range row {
		m = max(m, x)
	}
	z = math.Exp(pos[i] - m)
	for _, x := range row {
		z += math.Exp(x - m)
	}
	return m, z
}

func (l *softmaxLoss) loss(pos, neg []float64) float64 {
	return chunkSum(len(pos), func(lo, hi int) float64 {
		var s float64
		for i := lo; i < hi; i++ {
			m, z := l.lse(pos, neg, i)
			s += m + math.Log(z) - pos[i]
		}
		return s
	}) / float64(len(pos))
}

func (l *softmaxLoss) grad(pos, neg []float64, wrt int, d []float64) {
	inv := 1 / float64(len(pos))
	parallel.For(len(pos), lossChunk, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			m, z := l.lse(pos, neg, i)
			if wrt == 0 {
				d[i] = (math.Exp(pos[i]-m)/z - 1) * inv
				continue
			}
			for j, x := range neg[i*l.k : (i+1)*l.k] {
				d[i*l.k+j] = math.Exp(x-m) / z * inv
			}
		}
	})
}
