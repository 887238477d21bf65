package main

import (
	"fmt"
	"io"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/linkpred"
	"github.com/gnngo/gnn/metrics"
	"github.com/gnngo/gnn/nn/link"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
)

// rankChunk is the number of test edges a learned decoder scores per
// expression graph in -minibatch's evaluation.
const rankChunk = 256

func runMinibatch(w io.Writer, o *options, ds *dataset.Dataset, fanouts []int) error {
	split, err := linkpred.SplitEdges(ds.Graph, linkpred.SplitConfig{Val: o.Val, Test: o.Test, Undirected: true, Seed: o.Seed})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "split: %d training, %d validation, %d test edges (undirected pairs)\n", len(split.Train.Src), len(split.Val.Src), len(split.Test.Src))
	g := split.Train.Graph
	// The seed edges are the training pairs, as edge IDs of the training
	// graph; their reverses are excluded from the blocks with them.
	seeds, err := childIDs(split.Train.EIDs, split.Train.GraphEIDs, ds.Graph.NumEdges())
	if err != nil {
		return err
	}
	rev, err := sampling.ReverseEdgeIDs(g)
	if err != nil {
		return err
	}
	sampler, err := sampling.NewMultiLayer(g, fanouts, sampling.Options{})
	if err != nil {
		return err
	}
	negs, err := linkpred.NewUniform(g, o.Neg, linkpred.Exclude(g), linkpred.ExcludeSelfLoops())
	if err != nil {
		return err
	}
	loader, err := sampling.NewEdgeLoader(sampler, seeds, sampling.EdgeLoaderOptions{
		BatchSize: o.Batch, Shuffle: true, Seed: o.Seed, Negatives: negs,
		Exclude: sampling.ExcludeReverse, ReverseEdgeIDs: rev,
	})
	if err != nil {
		return err
	}
	enc, s, err := o.newEncoder(ds.Features.Cols, len(fanouts), fanouts)
	if err != nil {
		return err
	}
	mode := enc.Mode()
	feats := features(ds)
	step := func(eb *sampling.EdgeBatch, learn bool) (float64, error) {
		b, err := train.BuildBatch(enc, s, eb.MiniBatch, feats)
		if err != nil {
			return 0, err
		}
		dec, err := o.boundDecoder(b.Logits.Graph(), s)
		if err != nil {
			return 0, err
		}
		if !learn {
			return 0, nil
		}
		pos, err := dec.Score(eb.Pos, b.Logits)
		if err != nil {
			return 0, err
		}
		neg, err := dec.Score(eb.Neg, b.Logits)
		if err != nil {
			return 0, err
		}
		loss, err := link.BCEWithLogits(pos, neg, nil)
		if err != nil {
			return 0, err
		}
		return s.Step(loss, append(b.Params, dec.Learnables()...))
	}
	if o.Load != "" {
		// Bind every parameter on one batch, then read them from the file.
		eb, err := loader.Sample(seeds[:1], 0)
		if err != nil {
			return err
		}
		if _, err := step(eb, false); err != nil {
			return err
		}
		if err := o.loadParams(enc, s); err != nil {
			return err
		}
	}
	for epoch := 1; epoch <= o.Epochs; epoch++ {
		t0 := time.Now()
		var total float64
		var batches, edges int
		for eb, err := range loader.Epoch(epoch - 1) {
			if err != nil {
				return err
			}
			l, err := step(eb, true)
			if err != nil {
				return fmt.Errorf("epoch %d, batch %d: %w", epoch, batches+1, err)
			}
			mode.Next()
			total += l
			batches++
			edges += eb.NumEdges()
			if o.Steps > 0 && batches == o.Steps {
				break
			}
		}
		sec := time.Since(t0).Seconds()
		fmt.Fprintf(w, "epoch %3d  loss %.4f  %d batches  %.2f batches/s  %.2fM sampled edges/s\n",
			epoch, total/float64(batches), batches, float64(batches)/sec, float64(edges)/sec/1e6)
	}
	if err := save(w, o, enc, s); err != nil {
		return err
	}

	// Evaluation: embed every node on the training and validation edges
	// (layer-wise inference), then rank each test edge against -eval-neg
	// random destinations that are not edges of the graph.
	t0 := time.Now()
	h, err := train.Inference(enc, s, split.Test.Graph, feats, o.Chunk, mode)
	if err != nil {
		return err
	}
	src, dst := sample(split.Test.Src, split.Test.Dst, o.EvalEdges, o.Seed+11)
	ranker, err := linkpred.NewUniform(ds.Graph, o.EvalNeg, linkpred.Exclude(ds.Graph))
	if err != nil {
		return err
	}
	_, negDst, err := ranker.Negatives(src, dst, o.Seed+12)
	if err != nil {
		return err
	}
	var r metrics.Ranking
	if o.Decoder == "dot" {
		err = rankDot(h, src, dst, negDst, o.EvalNeg, &r)
	} else {
		err = rankDecoder(o, s, h, src, dst, negDst, &r)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "evaluated %d test edges against %d negatives each in %.1f s\n", len(src), o.EvalNeg, time.Since(t0).Seconds())
	for _, k := range []int{1, 3, 10} {
		hits, err := r.HitsAt(k)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "test hits@%d: %.4f\n", k, hits)
	}
	mrr, err := r.MRR()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "test mrr: %.4f\n", mrr)
	return nil
}

// childIDs maps parent edge IDs to the IDs of the same edges in a subgraph
// whose edge i is parent edge sub[i].
func childIDs(parent, sub []int64, parentEdges int) ([]int64, error) {
	index := make([]int64, parentEdges)
	for i := range index {
		index[i] = -1
	}
	for i, e := range sub {
		index[e] = int64(i)
	}
	out := make([]int64, len(parent))
	for i, e := range parent {
		if out[i] = index[e]; out[i] < 0 {
			return nil, fmt.Errorf("supervision edge %d is not a message-passing edge", e)
		}
	}
	return out, nil
}

// sample returns up to n of the pairs, a seeded uniform choice in their
// order (all of them when n is 0 or at least their number).
func sample(src, dst []int32, n int, seed uint64) ([]int32, []int32) {
	if n == 0 || n >= len(src) {
		return src, dst
	}
	// Selection sampling (Knuth's algorithm S) keeps the order.
	rng := seed | 1
	var s, d []int32
	for i := range src {
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		if float64(rng>>11)/(1<<53)*float64(len(src)-i) < float64(n-len(s)) {
			s, d = append(s, src[i]), append(d, dst[i])
		}
	}
	return s, d
}

// rankDot ranks with the dot decoder straight from the embeddings, never
// forming a row per pair (link.RankDot).
func rankDot(h *tensor.Dense, src, dst, negDst []int32, k int, r *metrics.Ranking) error {
	dim := h.Shape()[1]
	switch d := h.Data().(type) {
	case []float32:
		return link.RankDot(d, dim, src, dst, negDst, k, r)
	case []float64:
		return link.RankDot(d, dim, src, dst, negDst, k, r)
	}
	return fmt.Errorf("embeddings of %v", h.Dtype())
}

// rankDecoder ranks with a learned decoder, rankChunk test edges (and their
// negatives) per expression graph.
func rankDecoder(o *options, s *train.Shared, h *tensor.Dense, src, dst, negDst []int32, r *metrics.Ranking) error {
	n, k := h.Shape()[0], o.EvalNeg
	for lo := 0; lo < len(src); lo += rankChunk {
		hi := min(lo+rankChunk, len(src))
		negSrc := make([]int32, 0, (hi-lo)*k)
		for _, u := range src[lo:hi] {
			for range k {
				negSrc = append(negSrc, u)
			}
		}
		pos, err := pairGraph(n, src[lo:hi], dst[lo:hi])
		if err != nil {
			return err
		}
		neg, err := pairGraph(n, negSrc, negDst[lo*k:hi*k])
		if err != nil {
			return err
		}
		eg := gorgonia.NewGraph()
		x := gorgonia.NodeFromAny(eg, h, gorgonia.WithName("h"))
		dec, err := o.decoder(eg, s.Value)
		if err != nil {
			return err
		}
		ps, err := dec.Score(pos, x)
		if err != nil {
			return err
		}
		ns, err := dec.Score(neg, x)
		if err != nil {
			return err
		}
		sc, err := scores(eg, ps, ns)
		if err != nil {
			return err
		}
		if err := r.Add(sc[0], sc[1], k); err != nil {
			return err
		}
	}
	return nil
}
