package metrics

import (
	"container/heap"
	"fmt"
	"math"
)

// HitsAtK accumulates Hits@K against one global set of negatives, as OGB's
// ogbl-collab (K = 50), ogbl-ppa (100) and ogbl-ddi (20) evaluators: a
// positive is a hit when its score is strictly greater than the K-th
// highest score among all the negatives, and Hits@K is the fraction of
// positives that are. With fewer than K negatives every positive is a hit
// (OGB returns 1). This follows Evaluator._eval_hits in
// ogb/linkproppred/evaluate.py:
//
//	kth_score_in_negative_edges = torch.topk(y_pred_neg, K)[0][-1]
//	hitsK = (y_pred_pos > kth_score_in_negative_edges).sum() / len(y_pred_pos)
//
// It keeps every positive score and only the K highest negatives (a heap),
// so negatives can stream through in any number. Build it with NewHitsAtK.
type HitsAtK struct {
	k    int
	pos  []float64
	top  minHeap // the k highest negatives so far
	nneg int
}

// NewHitsAtK returns an empty accumulator of Hits@k.
func NewHitsAtK(k int) (*HitsAtK, error) {
	if k <= 0 {
		return nil, fmt.Errorf("metrics: Hits@%d, want k >= 1", k)
	}
	return &HitsAtK{k: k}, nil
}

// K returns the K of Hits@K.
func (h *HitsAtK) K() int { return h.k }

// Add adds a batch of positive and of negative scores.
func (h *HitsAtK) Add(pos, neg []float64) error {
	for i, p := range pos {
		if math.IsNaN(p) {
			return fmt.Errorf("metrics: positive score %d of the batch is NaN", i)
		}
	}
	for i, n := range neg {
		if math.IsNaN(n) {
			return fmt.Errorf("metrics: negative score %d of the batch is NaN", i)
		}
	}
	h.pos = append(h.pos, pos...)
	for _, n := range neg {
		switch {
		case len(h.top) < h.k:
			heap.Push(&h.top, n)
		case n > h.top[0]:
			h.top[0] = n
			heap.Fix(&h.top, 0)
		}
	}
	h.nneg += len(neg)
	return nil
}

// Add32 is Add for float32 scores.
func (h *HitsAtK) Add32(pos, neg []float32) error { return h.Add(widen(pos), widen(neg)) }

// Len returns the numbers of positive and negative scores added.
func (h *HitsAtK) Len() (pos, neg int) { return len(h.pos), h.nneg }

// Threshold returns the K-th highest negative score, which a positive must
// exceed to be a hit, and false when fewer than K negatives were added.
func (h *HitsAtK) Threshold() (float64, bool) {
	if len(h.top) < h.k {
		return 0, false
	}
	return h.top[0], true
}

// Result returns Hits@K of the scores added.
func (h *HitsAtK) Result() (float64, error) {
	if len(h.pos) == 0 {
		return 0, fmt.Errorf("metrics: Hits@%d of no positives", h.k)
	}
	t, ok := h.Threshold()
	if !ok {
		return 1, nil
	}
	n := 0
	for _, p := range h.pos {
		if p > t {
			n++
		}
	}
	return float64(n) / float64(len(h.pos)), nil
}

// minHeap is a min-heap of scores (container/heap).
type minHeap []float64

func (m minHeap) Len() int           { return len(m) }
func (m minHeap) Less(i, j int) bool { return m[i] < m[j] }
func (m minHeap) Swap(i, j int)      { m[i], m[j] = m[j], m[i] }
func (m *minHeap) Push(x any)        { *m = append(*m, x.(float64)) }
func (m *minHeap) Pop() any {
	old := *m
	x := old[len(old)-1]
	*m = old[:len(old)-1]
	return x
}
