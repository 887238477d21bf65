package bench

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gatv2"
	"github.com/gnngo/gnn/nn/train"
)

// BuildGATv2 builds a two-layer GATv2 (Brody et al., ICLR 2022) on d with
// the sizes, dropout, slope and optimiser of cfg, as BuildGAT builds GAT:
// input -> Heads x Hidden (concatenated, ELU) -> classes (OutHeads
// averaged), with nn/gatv2 layers (separate source and destination
// projections with biases, DGL's defaults). Only the fused path exists:
// the scores are ops.GATv2Scores. GATv2Conv has no sparse first layer, so
// sparse features are made dense first.
func BuildGATv2(path string, d *Data, cfg GATConfig) (*Task, error) {
	if path != Fused {
		return nil, fmt.Errorf("bench: gatv2 has only the %s path, not %q", Fused, path)
	}
	if err := cfg.check("gatv2"); err != nil {
		return nil, err
	}
	eg := gorgonia.NewGraph()
	mode := nn.NewMode()
	g := d.Graph
	p := cfg.Dropout
	var ls [2]*gatv2.GATv2Conv
	for i, s := range cfg.layers(d) {
		var err error
		if ls[i], err = gatv2.New(eg, s.in, s.out, gatv2.WithName(fmt.Sprintf("gatv2_%d", i+1)), gatv2.WithHeads(s.heads), gatv2.WithMode(mode),
			gatv2.WithFeatDropout(p), gatv2.WithAttnDropout(p), gatv2.WithNegativeSlope(cfg.Slope), gatv2.WithActivation(s.act), gatv2.WithMeanHeads(s.mean), gatv2.WithSeed(s.seed)); err != nil {
			return nil, err
		}
	}
	l1, l2 := ls[0], ls[1]
	x, err := denseInput(eg, d)
	if err != nil {
		return nil, err
	}
	h, err := l1.Forward(g, x)
	if err != nil {
		return nil, err
	}
	logits, err := l2.Forward(g, h)
	if err != nil {
		return nil, err
	}
	return classify(d, logits, mode, cfg.LR, train.Group{Params: append(l1.Learnables(), l2.Learnables()...), WeightDecay: cfg.WeightDecay})
}

// denseInput adds d's features to eg as an N x F matrix, expanding sparse
// ones.
func denseInput(eg *gorgonia.ExprGraph, d *Data) (*gorgonia.Node, error) {
	f := d.Sparse
	if f == nil {
		in, err := newInput(eg, d)
		return in.dense, err
	}
	if f.Rows != d.Graph.NumSrc() || f.Cols != d.Feat || len(f.Indptr) != f.Rows+1 {
		return nil, fmt.Errorf("bench: sparse features are %d x %d with %d row pointers, want %d x %d", f.Rows, f.Cols, len(f.Indptr), d.Graph.NumSrc(), d.Feat)
	}
	x := make([]float32, f.Rows*f.Cols)
	for r := range f.Rows {
		for p := f.Indptr[r]; p < f.Indptr[r+1]; p++ {
			x[r*f.Cols+int(f.Indices[p])] = f.Values[p]
		}
	}
	v := tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(x))
	return gorgonia.NewMatrix(eg, tensor.Float32, gorgonia.WithShape(f.Rows, f.Cols), gorgonia.WithName("features"), gorgonia.WithValue(v)), nil
}
