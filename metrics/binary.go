package metrics

import (
	"fmt"
	"math"
	"slices"
)

// Binary accumulates the scores of positive and negative examples (the
// scores of true edges and of sampled non-edges, say) for ROC-AUC and
// average precision. The zero value is ready to use. It keeps every score:
// both metrics are exact, ties included, which needs the whole ranking.
type Binary struct {
	pos, neg []float64
	nan      int // scores added that were NaN (the first is reported)
	nanAt    string
}

// Add adds a batch of positive and of negative scores.
func (b *Binary) Add(pos, neg []float64) {
	b.check(pos, "positive", len(b.pos))
	b.check(neg, "negative", len(b.neg))
	b.pos = append(b.pos, pos...)
	b.neg = append(b.neg, neg...)
}

// Add32 is Add for float32 scores (a Gorgonia output's data, say).
func (b *Binary) Add32(pos, neg []float32) {
	b.Add(widen(pos), widen(neg))
}

// AddLabeled adds scores with a label each: true for a positive.
func (b *Binary) AddLabeled(scores []float64, labels []bool) error {
	if len(scores) != len(labels) {
		return fmt.Errorf("metrics: %d scores but %d labels", len(scores), len(labels))
	}
	for i, s := range scores {
		if labels[i] {
			b.check(scores[i:i+1], "positive", len(b.pos))
			b.pos = append(b.pos, s)
		} else {
			b.check(scores[i:i+1], "negative", len(b.neg))
			b.neg = append(b.neg, s)
		}
	}
	return nil
}

// check records the first NaN among xs, the scores of the given kind
// numbered from off.
func (b *Binary) check(xs []float64, kind string, off int) {
	for i, x := range xs {
		if math.IsNaN(x) {
			if b.nan == 0 {
				b.nanAt = fmt.Sprintf("%s score %d", kind, off+i)
			}
			b.nan++
		}
	}
}

// Len returns the numbers of positive and negative scores added.
func (b *Binary) Len() (pos, neg int) { return len(b.pos), len(b.neg) }

// Reset forgets every score added.
func (b *Binary) Reset() { *b = Binary{pos: b.pos[:0], neg: b.neg[:0]} }

// valid reports an error when the scores cannot be ranked.
func (b *Binary) valid() error {
	switch {
	case b.nan > 0:
		return fmt.Errorf("metrics: %d scores are NaN (the first is %s)", b.nan, b.nanAt)
	case len(b.pos) == 0:
		return fmt.Errorf("metrics: no positive scores (%d negatives)", len(b.neg))
	}
	return nil
}

// AUC returns the area under the ROC curve of the scores added, as
// scikit-learn's roc_auc_score: the trapezoidal area under the curve whose
// points are the distinct score thresholds. It equals the probability that
// a random positive scores above a random negative, a tie counting one
// half (the Mann-Whitney statistic over P*N). It needs at least one score
// of each class.
func (b *Binary) AUC() (float64, error) {
	if err := b.valid(); err != nil {
		return 0, err
	}
	if len(b.neg) == 0 {
		return 0, fmt.Errorf("metrics: no negative scores (%d positives)", len(b.pos))
	}
	pos, neg := sorted(b.pos), sorted(b.neg)
	// Walk the positives in increasing order; below counts the negatives
	// strictly below the current positive score and tied those equal to it.
	var sum float64 // twice the number of (pos > neg) pairs plus the ties
	j := 0
	for i := 0; i < len(pos); {
		s := pos[i]
		k := i
		for k < len(pos) && pos[k] == s {
			k++
		}
		for j < len(neg) && neg[j] < s {
			j++
		}
		t := j
		for t < len(neg) && neg[t] == s {
			t++
		}
		sum += float64(k-i) * (2*float64(j) + float64(t-j))
		i = k
	}
	return sum / (2 * float64(len(pos)) * float64(len(neg))), nil
}

// AveragePrecision returns the average precision of the scores added, as
// scikit-learn's average_precision_score: with the distinct scores as
// thresholds in decreasing order, the sum over thresholds of the precision
// at the threshold times the recall it adds,
//
//	AP = sum_n (R_n - R_{n-1}) P_n,
//
// so examples with tied scores enter together (no interpolation). It needs
// at least one positive.
func (b *Binary) AveragePrecision() (float64, error) {
	if err := b.valid(); err != nil {
		return 0, err
	}
	pos, neg := sorted(b.pos), sorted(b.neg)
	i, j := len(pos), len(neg) // walk both from the top
	var ap float64
	np := float64(len(pos))
	for i > 0 || j > 0 {
		// The next threshold is the largest score left.
		var s float64
		switch {
		case i == 0:
			s = neg[j-1]
		case j == 0:
			s = pos[i-1]
		default:
			s = max(pos[i-1], neg[j-1])
		}
		i0 := i
		for i > 0 && pos[i-1] == s {
			i--
		}
		for j > 0 && neg[j-1] == s {
			j--
		}
		tp, fp := float64(len(pos)-i), float64(len(neg)-j)
		if d := float64(i0 - i); d > 0 {
			ap += d / np * (tp / (tp + fp))
		}
	}
	return ap, nil
}

// AUC returns the ROC-AUC of positive scores pos against negative scores
// neg (see Binary.AUC).
func AUC(pos, neg []float64) (float64, error) {
	var b Binary
	b.Add(pos, neg)
	return b.AUC()
}

// AveragePrecision returns the average precision of scores with labels
// (true: positive), as scikit-learn's average_precision_score (see
// Binary.AveragePrecision).
func AveragePrecision(scores []float64, labels []bool) (float64, error) {
	var b Binary
	if err := b.AddLabeled(scores, labels); err != nil {
		return 0, err
	}
	return b.AveragePrecision()
}

// sorted returns a sorted copy of xs.
func sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}

// widen returns xs as float64s.
func widen(xs []float32) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}
