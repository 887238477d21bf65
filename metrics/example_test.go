package metrics_test

import (
	"fmt"

	"github.com/gnngo/gnn/metrics"
)

// A link predictor's scores for true edges and sampled non-edges, added
// batch by batch.
func ExampleBinary() {
	var b metrics.Binary
	b.Add([]float64{0.9, 0.4}, []float64{0.1, 0.4})
	b.Add([]float64{0.8}, []float64{0.3})
	auc, _ := b.AUC()
	ap, _ := b.AveragePrecision()
	fmt.Printf("AUC %.4f AP %.4f\n", auc, ap)
	// Output: AUC 0.9444 AP 0.9167
}

// ogbl-citation2's protocol: each positive against its own negatives.
func ExampleRanking() {
	var r metrics.Ranking
	// Two positives with three negatives each; the second ties one.
	r.Add([]float64{2, 1}, []float64{0, 1, 3, 1, 0, -1}, 3)
	mrr, _ := r.MRR()
	h1, _ := r.HitsAt(1)
	fmt.Println(r.Ranks(), mrr, h1)
	// Output: [2 1.5] 0.5833333333333333 0
}

// ogbl-collab's protocol (with K = 2 here, 50 there): a positive is a
// hit when it beats the K-th highest of all the negatives (0.5).
func ExampleHitsAtK() {
	h, _ := metrics.NewHitsAtK(2)
	h.Add([]float64{0.9, 0.4}, []float64{0.7, 0.2, 0.5})
	hits, _ := h.Result()
	fmt.Println(hits)
	// Output: 0.5
}
