package link

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
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

func (l *marginLoss) eval(pos, neg, dpos, dneg []float64) float64 {
	n := float64(len(neg))
	var s float64
	for i, p := range pos {
		for j := i * l.k; j < (i+1)*l.k; j++ {
			h := l.margin - p + neg[j]
			if h > 0 {
				s += h
				if dpos != nil {
					dpos[i] -= 1 / n
					dneg[j] = 1 / n
				}
			}
		}
	}
	return s / n
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

func (l *softmaxLoss) eval(pos, neg, dpos, dneg []float64) float64 {
	n := float64(len(pos))
	var s float64
	for i, p := range pos {
		row := neg[i*l.k : (i+1)*l.k]
		m := p
		for _, x := range row {
			m = max(m, x)
		}
		z := math.Exp(p - m)
		for _, x := range row {
			z += math.Exp(x - m)
		}
		s += m + math.Log(z) - p
		if dpos != nil {
			dpos[i] = (math.Exp(p-m)/z - 1) / n
			for j, x := range row {
				dneg[i*l.k+j] = math.Exp(x-m) / z / n
			}
		}
	}
	return s / n
}
