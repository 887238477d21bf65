package link_test

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/metrics"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/link"
)

// Score positive and negative pairs of node embeddings with a decoder and
// train with binary cross-entropy. In a model, h is the encoder's output;
// here it is a learnable table.
func Example() {
	const n, f = 4, 2
	eg := gorgonia.NewGraph()
	h := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(n, f), gorgonia.WithName("h"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(n, f), tensor.WithBacking([]float64{1, 0, 1, 0.1, 0, 1, -1, 0}))))
	// Pair graphs over the n rows of h: the edges are the pairs to score.
	pos, _ := graph.FromCOO(n, n, []int32{0, 2}, []int32{1, 3})
	neg, _ := graph.FromCOO(n, n, []int32{0, 1}, []int32{3, 2})
	var dec link.Decoder = link.Dot{}
	sp, _ := dec.Score(pos, h) // (2, 1) logits
	sn, _ := dec.Score(neg, h)
	loss, _ := link.BCEWithLogits(sp, sn, nil)
	gorgonia.Grad(loss, h)
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		fmt.Println(err)
		return
	}
	var b metrics.Binary
	b.Add(sp.Value().Data().([]float64), sn.Value().Data().([]float64))
	auc, _ := b.AUC()
	fmt.Printf("scores %v %v, loss %.4f, AUC %.2f\n", sp.Value().Data(), sn.Value().Data(), loss.Value().Data(), auc)
	// Output: scores [1 0] [-1 0.1], loss 0.5160, AUC 0.75
}

// Rank each positive against its own negatives from an embedding table,
// OGB's ogbl-citation2 protocol: no score of a negative is kept.
func ExampleRankDot() {
	h := []float32{ // 4 nodes x 2 features
		1, 0,
		1, 1,
		0, 1,
		-1, 0,
	}
	posSrc, posDst := []int32{0, 2}, []int32{1, 1}
	negDst := []int32{ // 3 negatives per positive
		2, 3, 0,
		0, 3, 2,
	}
	var r metrics.Ranking
	if err := link.RankDot(h, 2, posSrc, posDst, negDst, 3, &r); err != nil {
		fmt.Println(err)
		return
	}
	mrr, _ := r.MRR()
	hits1, _ := r.HitsAt(1)
	fmt.Println(r.Ranks(), mrr, hits1)
	// Output: [1.5 1.5] 0.6666666666666666 0
}

// Classify edges from their endpoints' embeddings and one feature per
// edge, with an edge head and nn.CrossEntropy.
func ExampleEdgeHead() {
	const n, f = 3, 2
	eg := gorgonia.NewGraph()
	h := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(n, f), gorgonia.WithName("h"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(n, f), tensor.WithBacking([]float32{1, 0, 0, 1, 1, 1}))))
	edges, _ := graph.FromCOO(n, n, []int32{0, 1, 2}, []int32{1, 2, 0})
	ef := gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(3, 1), gorgonia.WithName("ef"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 1), tensor.WithBacking([]float32{0.5, -1, 2}))))
	head, _ := link.NewEdgeHead(eg, f, []int{8}, 2, link.WithEdgeFeatures(1), link.WithSeed(1))
	logits, _ := head.Forward(edges, h, ef) // (3 edges, 2 classes)
	loss, _ := nn.CrossEntropy(logits, []int32{1, 0, 1}, []int32{0, 1, 2})
	gorgonia.Grad(loss, head.Learnables()...)
	fmt.Println(logits.Shape(), len(head.Learnables()))
	// Output: (3, 2) 6
}
