package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// TestAUCHand checks ROC-AUC on cases computed by hand, ties included.
func TestAUCHand(t *testing.T) {
	for _, c := range []struct {
		name     string
		pos, neg []float64
		want     float64
	}{
		{"separated", []float64{0.9, 0.8}, []float64{0.1, 0.2}, 1},
		{"reversed", []float64{0.1}, []float64{0.2, 0.3}, 0},
		// scikit-learn's documented example: y = [0 0 1 1], scores
		// [0.1 0.4 0.35 0.8]: 3 of 4 pairs ordered.
		{"sklearn doc", []float64{0.35, 0.8}, []float64{0.1, 0.4}, 0.75},
		{"one tie", []float64{0.5}, []float64{0.5}, 0.5},
		// 0.5 vs 0.5 counts 1/2 (twice), 0.5 vs 0.3 and 0.7 vs both count 1:
		// (2 * 1.5 + 2) / 6.
		{"ties", []float64{0.5, 0.5, 0.7}, []float64{0.5, 0.3}, 5.0 / 6},
		{"all tied", []float64{1, 1, 1}, []float64{1, 1}, 0.5},
		{"signed zeros", []float64{0}, []float64{math.Copysign(0, -1)}, 0.5},
	} {
		got, err := AUC(c.pos, c.neg)
		if err != nil || !near(got, c.want) {
			t.Errorf("%s: AUC %v (%v), want %v", c.name, got, err, c.want)
		}
	}
}

// TestAveragePrecisionHand checks average precision on cases computed by
// hand, ties included.
func TestAveragePrecisionHand(t *testing.T) {
	for _, c := range []struct {
		name   string
		scores []float64
		labels []bool
		want   float64
	}{
		// scikit-learn's documented example gives 0.8333...: thresholds
		// 0.8 (P 1, R 1/2), 0.4 (no recall added), 0.35 (P 2/3, R 1).
		{"sklearn doc", []float64{0.1, 0.4, 0.35, 0.8}, []bool{false, false, true, true}, 0.5 + 0.5*2.0/3},
		// The tie at 0.5 enters as one threshold: P 1/2 at R 1/2, then
		// P 2/3 at R 1.
		{"tie", []float64{0.5, 0.5, 0.2}, []bool{true, false, true}, 0.25 + 0.5*2.0/3},
		{"all tied", []float64{1, 1}, []bool{true, false}, 0.5},
		{"perfect", []float64{3, 2, 1}, []bool{true, true, false}, 1},
		{"positives only", []float64{3, 2}, []bool{true, true}, 1},
		{"last", []float64{3, 2, 1}, []bool{false, false, true}, 1.0 / 3},
	} {
		got, err := AveragePrecision(c.scores, c.labels)
		if err != nil || !near(got, c.want) {
			t.Errorf("%s: AP %v (%v), want %v", c.name, got, err, c.want)
		}
	}
}

// aucPairs is the AUC by counting every (positive, negative) pair.
func aucPairs(pos, neg []float64) float64 {
	var s float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				s++
			case p == n:
				s += 0.5
			}
		}
	}
	return s / float64(len(pos)*len(neg))
}

// apThresholds is the average precision from its definition: for every
// distinct score t in decreasing order, the precision and recall of
// "score >= t".
func apThresholds(pos, neg []float64) float64 {
	ts := slices.Concat(pos, neg)
	slices.Sort(ts)
	ts = slices.Compact(ts)
	slices.Reverse(ts)
	var ap, prevR float64
	for _, t := range ts {
		var tp, fp float64
		for _, p := range pos {
			if p >= t {
				tp++
			}
		}
		for _, n := range neg {
			if n >= t {
				fp++
			}
		}
		r := tp / float64(len(pos))
		ap += (r - prevR) * tp / (tp + fp)
		prevR = r
	}
	return ap
}

// TestBinaryRandom compares AUC and AP with brute-force definitions on
// random scores drawn from a few values (many ties), added in random
// batches: the result does not depend on the batching.
func TestBinaryRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		np, nn := 1+rng.IntN(30), 1+rng.IntN(30)
		levels := 1 + rng.IntN(8)
		draw := func(n int) []float64 {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(rng.IntN(levels)) / 4
			}
			return x
		}
		pos, neg := draw(np), draw(nn)
		var b Binary
		for i, j := 0, 0; i < np || j < nn; {
			di, dj := min(np-i, rng.IntN(5)), min(nn-j, rng.IntN(5))
			b.Add(pos[i:i+di], neg[j:j+dj])
			i, j = i+di, j+dj
		}
		auc, err := b.AUC()
		if want := aucPairs(pos, neg); err != nil || !near(auc, want) {
			t.Fatalf("trial %d: AUC %v (%v), pairs give %v", trial, auc, err, want)
		}
		ap, err := b.AveragePrecision()
		if want := apThresholds(pos, neg); err != nil || !near(ap, want) {
			t.Fatalf("trial %d: AP %v (%v), the definition gives %v", trial, ap, err, want)
		}
	}
}

// TestRankingHand checks OGB's ranks, MRR and Hits@K by hand: a positive
// ranks at 1 + (negatives above) + (tied negatives)/2.
func TestRankingHand(t *testing.T) {
	var r Ranking
	// Positive 0.5 against [0.6 0.5 0.5 0.1]: 1 above, 2 tied: rank 3.
	// Positive 1 against [0.1 0.2 0.3 0.4]: rank 1.
	if err := r.Add([]float64{0.5, 1}, []float64{0.6, 0.5, 0.5, 0.1, 0.1, 0.2, 0.3, 0.4}, 4); err != nil {
		t.Fatal(err)
	}
	// One tied negative: rank 1.5, not a hit at 1.
	if err := r.Add([]float64{2}, []float64{2, 1, 0, -1}, 4); err != nil {
		t.Fatal(err)
	}
	// Counts: 9 above, 1 tied: rank 10.5.
	if err := r.AddCounts(9, 1); err != nil {
		t.Fatal(err)
	}
	if got, want := r.Ranks(), []float64{3, 1, 1.5, 10.5}; !slices.Equal(got, want) {
		t.Fatalf("ranks %v, want %v", got, want)
	}
	mrr, err := r.MRR()
	if want := (1.0/3 + 1 + 1/1.5 + 1/10.5) / 4; err != nil || !near(mrr, want) {
		t.Errorf("MRR %v (%v), want %v", mrr, err, want)
	}
	for k, want := range map[int]float64{1: 0.25, 2: 0.5, 3: 0.75, 10: 0.75, 11: 1} {
		if got, err := r.HitsAt(k); err != nil || got != want {
			t.Errorf("Hits@%d %v (%v), want %v", k, got, err, want)
		}
	}
}

// TestHitsAtKHand checks global-negative Hits@K by hand: a positive must
// beat the K-th highest negative strictly.
func TestHitsAtKHand(t *testing.T) {
	h, err := NewHitsAtK(2)
	if err != nil {
		t.Fatal(err)
	}
	// Negatives 0.1 0.9 0.5 0.7 in two batches: the 2nd highest is 0.7.
	if err := h.Add([]float64{0.8}, []float64{0.1, 0.9}); err != nil {
		t.Fatal(err)
	}
	if err := h.Add([]float64{0.7, 0.95}, []float64{0.5, 0.7}); err != nil {
		t.Fatal(err)
	}
	if th, ok := h.Threshold(); !ok || th != 0.7 {
		t.Errorf("threshold %v %v, want 0.7", th, ok)
	}
	if got, err := h.Result(); err != nil || !near(got, 2.0/3) {
		t.Errorf("Hits@2 %v (%v), want 2/3 (0.7 ties the threshold and misses)", got, err)
	}
	few, _ := NewHitsAtK(5)
	few.Add([]float64{-1}, []float64{0, 1})
	if got, err := few.Result(); err != nil || got != 1 {
		t.Errorf("Hits@5 with 2 negatives %v (%v), want 1 as OGB", got, err)
	}
}

// TestHitsAtKRandom compares the streaming threshold with a sort of all
// negatives.
func TestHitsAtKRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 100 {
		k := 1 + rng.IntN(20)
		h, _ := NewHitsAtK(k)
		var all []float64
		for range rng.IntN(6) + 1 {
			neg := make([]float64, rng.IntN(15))
			for i := range neg {
				neg[i] = float64(rng.IntN(10))
			}
			all = append(all, neg...)
			h.Add([]float64{float64(rng.IntN(10))}, neg)
		}
		th, ok := h.Threshold()
		slices.Sort(all)
		if ok != (len(all) >= k) || ok && th != all[len(all)-k] {
			t.Fatalf("trial %d: threshold %v %v; sorted negatives give %v", trial, th, ok, all)
		}
	}
}

// TestErrors checks that bad input is reported.
func TestErrors(t *testing.T) {
	nan := math.NaN()
	check := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", what, err, want)
		}
	}
	_, err := AUC(nil, []float64{1})
	check("AUC without positives", err, "no positive")
	_, err = AUC([]float64{1}, nil)
	check("AUC without negatives", err, "no negative")
	_, err = AUC([]float64{1, nan}, []float64{0})
	check("AUC NaN", err, "positive score 1")
	_, err = AveragePrecision([]float64{1}, []bool{true, false})
	check("AP lengths", err, "1 scores but 2 labels")
	_, err = AveragePrecision([]float64{1}, []bool{false})
	check("AP without positives", err, "no positive")
	var r Ranking
	check("k", r.Add([]float64{1}, []float64{1}, 0), "at least 1")
	check("negative count", r.Add([]float64{1}, []float64{1}, 2), "1 negative scores for 1 positives with 2 each")
	check("NaN negative", r.Add([]float64{1}, []float64{0, nan}, 2), "negative score 1 of positive 0")
	_, err = r.MRR()
	check("MRR empty", err, "no positives")
	_, err = r.HitsAt(0)
	check("Hits@0", err, "k >= 1")
	_, err = NewHitsAtK(0)
	check("NewHitsAtK(0)", err, "k >= 1")
	h, _ := NewHitsAtK(3)
	_, err = h.Result()
	check("Hits@K empty", err, "no positives")
}

// TestFloat32 checks that the float32 entry points give what the float64
// ones do.
func TestFloat32(t *testing.T) {
	var b Binary
	b.Add32([]float32{0.5, 0.25}, []float32{0.25})
	if auc, err := b.AUC(); err != nil || auc != 0.75 {
		t.Errorf("AUC %v (%v), want 0.75", auc, err)
	}
	var r Ranking
	if err := r.Add32([]float32{1}, []float32{1, 2, 0}, 3); err != nil || !slices.Equal(r.Ranks(), []float64{2.5}) {
		t.Errorf("ranks %v (%v), want [2.5]", r.Ranks(), err)
	}
	h, _ := NewHitsAtK(1)
	if err := h.Add32([]float32{1, 3}, []float32{2}); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.Result(); got != 0.5 {
		t.Errorf("Hits@1 %v, want 0.5", got)
	}
}
