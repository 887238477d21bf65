package main

import (
	"fmt"
	"io"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/linkpred"
	"github.com/gnngo/gnn/metrics"
	"github.com/gnngo/gnn/nn/link"
)

// stage is one evaluation stage of full-graph mode: the graph the encoder
// runs on and the positive and negative pairs it scores.
type stage struct {
	name     string
	mp       *graph.Graph
	pos, neg *graph.Graph
}

// messageGraph returns the graph the encoder runs on: the split's
// message-passing edges, with a self-loop per node for GCN and GAT (as
// PyG's GCNConv and GATConv add them).
func (o *options) messageGraph(g *graph.Graph) (*graph.Graph, error) {
	if o.Model == "sage" {
		return g, nil
	}
	return g.AddSelfLoops()
}

func runFull(w io.Writer, o *options, ds *dataset.Dataset) error {
	n := ds.Graph.NumNodes()
	split, err := linkpred.SplitEdges(ds.Graph, linkpred.SplitConfig{Val: o.Val, Test: o.Test, Undirected: true, Seed: o.Seed})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "split: %d training, %d validation, %d test edges (undirected pairs)\n", len(split.Train.Src), len(split.Val.Src), len(split.Test.Src))
	// Validation and test negatives: as many non-edges of the whole graph as
	// positives, drawn once (RandomLinkSplit's neg_sampling_ratio 1).
	nv, nt := len(split.Val.Src), len(split.Test.Src)
	negSrc, negDst, err := linkpred.NegativeEdges(ds.Graph, nv+nt, o.Seed+7, linkpred.ExcludeSelfLoops())
	if err != nil {
		return err
	}
	var stages []stage
	for _, p := range []struct {
		name       string
		part       linkpred.Part
		negS, negD []int32
	}{{"val", split.Val, negSrc[:nv], negDst[:nv]}, {"test", split.Test, negSrc[nv:], negDst[nv:]}} {
		st := stage{name: p.name}
		if st.mp, err = o.messageGraph(p.part.Graph); err != nil {
			return err
		}
		if st.pos, err = pairGraph(n, p.part.Src, p.part.Dst); err != nil {
			return err
		}
		if st.neg, err = pairGraph(n, p.negS, p.negD); err != nil {
			return err
		}
		stages = append(stages, st)
	}
	mpTrain, err := o.messageGraph(split.Train.Graph)
	if err != nil {
		return err
	}
	trainPos, err := pairGraph(n, split.Train.Src, split.Train.Dst)
	if err != nil {
		return err
	}
	enc, s, err := o.newEncoder(ds.Features.Cols, o.Layers, nil)
	if err != nil {
		return err
	}
	mode := enc.Mode()
	feats := features(ds)

	// step builds the model on a new expression graph over mp and returns
	// the scores of the pair graphs, and every parameter.
	build := func(mp *graph.Graph, pairs ...*graph.Graph) ([]*gorgonia.Node, gorgonia.Nodes, *gorgonia.ExprGraph, error) {
		eg := gorgonia.NewGraph()
		x := gorgonia.NodeFromAny(eg, feats, gorgonia.WithName("x"))
		h, params, err := encode(enc, s, eg, mp, x)
		if err != nil {
			return nil, nil, nil, err
		}
		dec, err := o.boundDecoder(eg, s)
		if err != nil {
			return nil, nil, nil, err
		}
		out := make([]*gorgonia.Node, len(pairs))
		for i, p := range pairs {
			if out[i], err = dec.Score(p, h); err != nil {
				return nil, nil, nil, err
			}
		}
		return out, append(params, dec.Learnables()...), eg, nil
	}
	evaluate := func(st stage) (auc, ap float64, err error) {
		mode.Eval()
		defer mode.Train()
		out, _, eg, err := build(st.mp, st.pos, st.neg)
		if err != nil {
			return 0, 0, err
		}
		sc, err := scores(eg, out...)
		if err != nil {
			return 0, 0, err
		}
		var b metrics.Binary
		b.Add(sc[0], sc[1])
		if auc, err = b.AUC(); err != nil {
			return 0, 0, err
		}
		ap, err = b.AveragePrecision()
		return auc, ap, err
	}
	if o.Load != "" {
		// Bind every parameter once, then read them from the file.
		if _, _, _, err := build(mpTrain); err != nil {
			return err
		}
		if err := o.loadParams(enc, s); err != nil {
			return err
		}
	}

	bestVal, bestEpoch := -1.0, 0
	var best map[string]*tensor.Dense
	var bestTest [2]float64
	for epoch := 1; epoch <= o.Epochs; epoch++ {
		t0 := time.Now()
		// Fresh negatives every epoch: as many as training edges, uniform
		// over the pairs that are not training edges (PyG's
		// negative_sampling on the training graph).
		ns, nd, err := linkpred.NegativeEdges(split.Train.Graph, len(split.Train.Src), o.Seed+1000+uint64(epoch), linkpred.ExcludeSelfLoops())
		if err != nil {
			return err
		}
		neg, err := pairGraph(n, ns, nd)
		if err != nil {
			return err
		}
		out, params, _, err := build(mpTrain, trainPos, neg)
		if err != nil {
			return err
		}
		loss, err := link.BCEWithLogits(out[0], out[1], nil)
		if err != nil {
			return err
		}
		l, err := s.Step(loss, params)
		if err != nil {
			return fmt.Errorf("epoch %d: %w", epoch, err)
		}
		mode.Next()
		ms := time.Since(t0).Seconds() * 1e3
		valAUC, valAP, err := evaluate(stages[0])
		if err != nil {
			return err
		}
		testAUC, testAP, err := evaluate(stages[1])
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "epoch %3d  loss %.4f  val auc %.4f  val ap %.4f  test auc %.4f  %.1f ms\n", epoch, l, valAUC, valAP, testAUC, ms)
		if valAUC > bestVal {
			bestVal, bestEpoch, bestTest = valAUC, epoch, [2]float64{testAUC, testAP}
			best = snapshot(s)
		}
	}
	if o.Epochs == 0 {
		valAUC, _, err := evaluate(stages[0])
		if err != nil {
			return err
		}
		testAUC, testAP, err := evaluate(stages[1])
		if err != nil {
			return err
		}
		bestVal, bestTest = valAUC, [2]float64{testAUC, testAP}
	} else if err := restore(s, best); err != nil {
		return err
	}
	if err := save(w, o, enc, s); err != nil {
		return err
	}
	if o.Epochs > 0 {
		fmt.Fprintf(w, "best epoch: %d\n", bestEpoch)
	}
	fmt.Fprintf(w, "val auc: %.4f\ntest ap: %.4f\ntest auc: %.4f\n", bestVal, bestTest[1], bestTest[0])
	return nil
}
