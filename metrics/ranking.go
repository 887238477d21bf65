package metrics

import (
	"fmt"
	"math"
)

// Ranking accumulates the rank of each positive among its own negatives,
// for the mean reciprocal rank and Hits@K of OGB's ogbl-citation2 (and
// ogbl-wikikg2, ogbl-biokg) evaluator. The zero value is ready to use.
//
// The rank follows OGB's Evaluator._eval_mrr (ogb/linkproppred/evaluate.py,
// from ogb 1.3.0), which counts, for each positive, the negatives scoring
// strictly above it (optimistic_rank = (y_pred_neg > y_pred_pos).sum) and
// those scoring at least as high (pessimistic_rank = (y_pred_neg >=
// y_pred_pos).sum), and ranks it at their mean plus one:
//
//	rank = 0.5 * (optimistic + pessimistic) + 1 = above + tied/2 + 1,
//
// so a positive tied with t negatives shares their positions. MRR is the
// mean of 1/rank and Hits@K the fraction of positives with rank <= K (OGB
// reports hits@1, hits@3 and hits@10). OGB averages in float32; Ranking
// sums in float64, in the order the positives were added.
type Ranking struct {
	ranks []float64
}

// Add adds a batch of positives, each with its k negatives: neg holds
// len(pos)*k scores, row-major, those of positive i at neg[i*k:(i+1)*k].
func (r *Ranking) Add(pos, neg []float64, k int) error {
	if k <= 0 {
		return fmt.Errorf("metrics: %d negatives per positive, want at least 1", k)
	}
	if len(neg) != len(pos)*k {
		return fmt.Errorf("metrics: %d negative scores for %d positives with %d each (want %d)", len(neg), len(pos), k, len(pos)*k)
	}
	for i, p := range pos {
		if math.IsNaN(p) {
			return fmt.Errorf("metrics: positive score %d of the batch is NaN", i)
		}
		var above, tied int
		for j, n := range neg[i*k : (i+1)*k] {
			switch {
			case n > p:
				above++
			case n == p:
				tied++
			case math.IsNaN(n):
				return fmt.Errorf("metrics: negative score %d of positive %d of the batch is NaN", j, i)
			}
		}
		r.ranks = append(r.ranks, Rank(above, tied))
	}
	return nil
}

// Add32 is Add for float32 scores.
func (r *Ranking) Add32(pos, neg []float32, k int) error {
	return r.Add(widen(pos), widen(neg), k)
}

// AddCounts adds one positive from the counts of its negatives that score
// above it and that tie with it (what link.RankDot computes without
// keeping the scores).
func (r *Ranking) AddCounts(above, tied int) error {
	if above < 0 || tied < 0 {
		return fmt.Errorf("metrics: negative counts %d above and %d tied", above, tied)
	}
	r.ranks = append(r.ranks, Rank(above, tied))
	return nil
}

// Rank returns OGB's rank of a positive with above negatives scoring higher
// and tied negatives scoring the same: above + tied/2 + 1.
func Rank(above, tied int) float64 { return 0.5*float64(2*above+tied) + 1 }

// Len returns the number of positives added.
func (r *Ranking) Len() int { return len(r.ranks) }

// Ranks returns the rank of every positive added, in order (shared: do not
// modify).
func (r *Ranking) Ranks() []float64 { return r.ranks }

// Reset forgets every positive added.
func (r *Ranking) Reset() { r.ranks = r.ranks[:0] }

// MRR returns the mean reciprocal rank of the positives added.
func (r *Ranking) MRR() (float64, error) {
	if len(r.ranks) == 0 {
		return 0, fmt.Errorf("metrics: MRR of no positives")
	}
	var s float64
	for _, x := range r.ranks {
		s += 1 / x
	}
	return s / float64(len(r.ranks)), nil
}

// HitsAt returns the fraction of positives added whose rank is at most k.
func (r *Ranking) HitsAt(k int) (float64, error) {
	if k <= 0 {
		return 0, fmt.Errorf("metrics: Hits@%d, want k >= 1", k)
	}
	if len(r.ranks) == 0 {
		return 0, fmt.Errorf("metrics: Hits@%d of no positives", k)
	}
	n := 0
	for _, x := range r.ranks {
		if x <= float64(k) {
			n++
		}
	}
	return float64(n) / float64(len(r.ranks)), nil
}
