package model

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/nn/vm"
	"github.com/gnngo/gnn/sampling"
)

// Predict runs a node-level model in evaluation mode (dropout off) on the
// whole graph g, with node features x (NumNodes x InFeatures, the model's
// dtype), and returns the output, one row per node (NumNodes x
// OutFeatures). It adds self-loops to g first when Spec.SelfLoops. Models
// with edge features in their attention take them through PredictEdges,
// graph-level models run with PredictGraphs, RelGraphConv models with
// PredictRelations and HeteroGraphConv models with PredictHetero.
func (m *Model) Predict(g *graph.Graph, x *tensor.Dense) (*tensor.Dense, error) {
	return m.predictNodes(g, x, nil)
}

// PredictLayers is Predict stopped after the first n layers (1 <= n <=
// NumLayers()): node embeddings, with n = NumLayers()-1 those the output
// layer reads. Spec.SelfLoops applies; edge features are PredictEdges's.
func (m *Model) PredictLayers(g *graph.Graph, x *tensor.Dense, n int) (*tensor.Dense, error) {
	if n < 1 || n > len(m.spec.Layers) {
		return nil, fmt.Errorf("model: PredictLayers of %d layers, the model has %d", n, len(m.spec.Layers))
	}
	return m.predictUpTo(g, x, nil, n)
}

// PredictBlocks runs a node-level model in evaluation mode on the blocks
// of a sampled mini-batch (sampling.MiniBatch's Blocks, one per layer,
// drawn for example with the model's Spec.Fanouts), with x the features of
// the first block's sources (train.Rows of the features at the batch's
// InputNodes), and returns one row per destination of the last block (the
// batch's OutputNodes): the inductive or sampled prediction for a few
// nodes. Blocks carry no self-loops of their own: for a model with
// Spec.SelfLoops, sample from the graph with self-loops added. It is safe
// for concurrent use, as Predict.
func (m *Model) PredictBlocks(blocks []*sampling.Block, x *tensor.Dense) (*tensor.Dense, error) {
	if m.spec.Readout != nil {
		return nil, fmt.Errorf("model: a graph-level model runs with PredictGraphs")
	}
	if len(blocks) != len(m.spec.Layers) {
		return nil, fmt.Errorf("model: %d blocks for a model of %d layers", len(blocks), len(m.spec.Layers))
	}
	for l, b := range blocks {
		if b == nil || b.Graph == nil {
			return nil, fmt.Errorf("model: block %d is nil", l)
		}
		if l > 0 && b.NumSrc() != blocks[l-1].NumDst() {
			return nil, fmt.Errorf("model: block %d has %d sources, block %d %d destinations", l, b.NumSrc(), l-1, blocks[l-1].NumDst())
		}
	}
	return m.run(func(e env, xn *gorgonia.Node) (*gorgonia.Node, error) {
		h := xn
		for l, b := range blocks {
			var err error
			if h, _, err = m.step(e, l, b.Graph, h, nil); err != nil {
				return nil, err
			}
		}
		return h, nil
	}, blocks[0].NumSrc(), x)
}

// PredictEdges is Predict for a model whose attention layers take edge
// features (LayerSpec.EdgeFeatures): ef holds one row per edge of g (after
// the self-loops Spec.SelfLoops adds, which come last, as
// graph.AddSelfLoops numbers them). Layers without edge features ignore ef.
func (m *Model) PredictEdges(g *graph.Graph, x, ef *tensor.Dense) (*tensor.Dense, error) {
	if ef == nil {
		return nil, fmt.Errorf("model: PredictEdges needs edge features")
	}
	return m.predictNodes(g, x, ef)
}

// PredictGraphs runs a graph-level model (one with a Readout) in evaluation
// mode on the graphs of b, with node features x (b's NumNodes x
// InFeatures), and returns one row per graph (NumGraphs x OutFeatures).
func (m *Model) PredictGraphs(b *graph.Batched, x *tensor.Dense) (*tensor.Dense, error) {
	if m.spec.Readout == nil {
		return nil, fmt.Errorf("model: PredictGraphs needs a graph-level model (one with a readout); use Predict")
	}
	if b == nil {
		return nil, fmt.Errorf("model: PredictGraphs: nil batch")
	}
	return m.run(func(e env, xn *gorgonia.Node) (*gorgonia.Node, error) {
		out, _, err := m.graphs(e, b, xn)
		return out, err
	}, b.NumSrc(), x)
}

// PredictRelations runs a RelGraphConv model in evaluation mode on rel (the
// graph split by relation, rgcn.Group, with the norms the model was trained
// with; rgcn.RightNorm gives DGL's usual ones), with node features x
// (NumSrc x InFeatures), and returns one row per destination of rel.
func (m *Model) PredictRelations(rel *rgcn.Relations, x *tensor.Dense) (*tensor.Dense, error) {
	if rel == nil {
		return nil, fmt.Errorf("model: PredictRelations: nil relations")
	}
	return m.run(func(e env, xn *gorgonia.Node) (*gorgonia.Node, error) {
		hs, _, err := m.stack(e, rel, xn, nil)
		if err != nil {
			return nil, err
		}
		return hs[len(hs)-1], nil
	}, rel.NumSrc(), x)
}

// PredictHetero runs a HeteroGraphConv model in evaluation mode on the
// heterograph h, with the features x of each node type (count x
// NodeFeatures[type]), and returns the last layer's output for each node
// type it reaches.
func (m *Model) PredictHetero(h *hetero.Graph, x map[string]*tensor.Dense) (map[string]*tensor.Dense, error) {
	if h == nil {
		return nil, fmt.Errorf("model: PredictHetero: nil heterograph")
	}
	if len(m.spec.NodeFeatures) == 0 {
		return nil, fmt.Errorf("model: PredictHetero needs a HeteroGraphConv model; use Predict")
	}
	e := env{eg: gorgonia.NewGraph(), dt: m.dt, mode: evalMode(), values: m.views()}
	hs := map[string]*gorgonia.Node{}
	for _, t := range sortedKeys(x) {
		v := x[t]
		w, ok := m.spec.NodeFeatures[t]
		if !ok {
			return nil, fmt.Errorf("model: features for node type %q, which the model does not take", t)
		}
		if err := m.checkFeatures(v, -1, w, "node type "+t+" "); err != nil {
			return nil, err
		}
		hs[t] = gorgonia.NodeFromAny(e.eg, header(v), gorgonia.WithName("x."+t))
	}
	hs, _, err := m.heteroStack(e, h, hs)
	if err != nil {
		return nil, err
	}
	outs := make(gorgonia.Nodes, 0, len(hs))
	for _, t := range sortedKeys(hs) {
		outs = append(outs, hs[t])
	}
	if len(outs) == 0 {
		return map[string]*tensor.Dense{}, nil
	}
	vals, err := evaluate(e.eg, outs...)
	if err != nil {
		return nil, err
	}
	res := make(map[string]*tensor.Dense, len(hs))
	for i, t := range sortedKeys(hs) {
		res[t] = vals[i]
	}
	return res, nil
}

// ForwardHetero adds a HeteroGraphConv model to eg and applies it to the
// features x of h's node types, with dropout following Mode: it returns
// the last layer's output per node type and every parameter node, holding
// the model's tensors, for training.
func (m *Model) ForwardHetero(eg *gorgonia.ExprGraph, h *hetero.Graph, x map[string]*gorgonia.Node) (map[string]*gorgonia.Node, gorgonia.Nodes, error) {
	if h == nil {
		return nil, nil, fmt.Errorf("model: ForwardHetero: nil heterograph")
	}
	if len(m.spec.NodeFeatures) == 0 {
		return nil, nil, fmt.Errorf("model: ForwardHetero needs a HeteroGraphConv model; use Forward")
	}
	return m.heteroStack(env{eg: eg, dt: m.dt, mode: m.mode, values: m.value}, h, x)
}

// heteroStack applies the HeteroGraphConv layers to the node types'
// features hs on h in e's graph.
func (m *Model) heteroStack(e env, h *hetero.Graph, hs map[string]*gorgonia.Node) (map[string]*gorgonia.Node, gorgonia.Nodes, error) {
	var params gorgonia.Nodes
	for l := range m.spec.Layers {
		b, err := m.build(e, l)
		if err != nil {
			return nil, nil, err
		}
		if hs, err = b.hetero(h, hs); err != nil {
			return nil, nil, fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)
		}
		params = append(params, b.params...)
	}
	return hs, params, nil
}

// predictNodes is Predict and PredictEdges.
func (m *Model) predictNodes(g *graph.Graph, x, ef *tensor.Dense) (*tensor.Dense, error) {
	if m.spec.Readout != nil {
		return nil, fmt.Errorf("model: a graph-level model runs with PredictGraphs")
	}
	return m.predictUpTo(g, x, ef, len(m.spec.Layers))
}

// predictUpTo runs the first n layers on the whole graph g.
func (m *Model) predictUpTo(g *graph.Graph, x, ef *tensor.Dense, n int) (*tensor.Dense, error) {
	if g == nil {
		return nil, fmt.Errorf("model: Predict: nil graph")
	}
	if m.spec.SelfLoops {
		var err error
		if g, err = g.AddSelfLoops(); err != nil {
			return nil, fmt.Errorf("model: adding self-loops: %w", err)
		}
	}
	return m.run(func(e env, xn *gorgonia.Node) (*gorgonia.Node, error) {
		var efn *gorgonia.Node
		if ef != nil {
			if err := m.checkFeatures(ef, g.NumEdges(), -1, "edge "); err != nil {
				return nil, err
			}
			efn = gorgonia.NodeFromAny(e.eg, header(ef), gorgonia.WithName("edge_features"))
		}
		h := xn
		for l := range n {
			var err error
			if h, _, err = m.step(e, l, g, h, efn); err != nil {
				return nil, err
			}
		}
		return h, nil
	}, g.NumSrc(), x)
}

// run checks the features x (rows x InFeatures), builds an expression graph
// in evaluation mode with f and runs it.
func (m *Model) run(f func(e env, x *gorgonia.Node) (*gorgonia.Node, error), rows int, x *tensor.Dense) (*tensor.Dense, error) {
	if len(m.spec.NodeFeatures) > 0 {
		return nil, fmt.Errorf("model: a HeteroGraphConv model runs with PredictHetero")
	}
	if len(m.spec.Inputs) > 0 {
		return nil, fmt.Errorf("model: a model with node-type inputs runs with PredictRelational")
	}
	if err := m.checkFeatures(x, rows, m.spec.InFeatures, ""); err != nil {
		return nil, err
	}
	e := env{eg: gorgonia.NewGraph(), dt: m.dt, mode: evalMode(), values: m.views()}
	out, err := f(e, gorgonia.NodeFromAny(e.eg, header(x), gorgonia.WithName("x")))
	if err != nil {
		if _, ok := err.(modelError); ok {
			return nil, err
		}
		return nil, fmt.Errorf("model: %w", err)
	}
	vals, err := evaluate(e.eg, out)
	if err != nil {
		return nil, err
	}
	return vals[0], nil
}

// evaluate runs what outs need of eg and returns their values.
func evaluate(eg *gorgonia.ExprGraph, outs ...*gorgonia.Node) ([]*tensor.Dense, error) {
	if err := vm.Run(outs...); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	vals := make([]*tensor.Dense, len(outs))
	for i, n := range outs {
		v, ok := n.Value().(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("model: output %s is a %T", n.Name(), n.Value())
		}
		vals[i] = v
	}
	return vals, nil
}

// checkFeatures checks that x is a (rows x cols) matrix of the model's
// dtype; rows or cols -1 is any.
func (m *Model) checkFeatures(x *tensor.Dense, rows, cols int, what string) error {
	if x == nil {
		return fmt.Errorf("model: nil %sfeatures", what)
	}
	s := x.Shape()
	if x.Dims() != 2 || (rows >= 0 && s[0] != rows) || (cols >= 0 && s[1] != cols) {
		want := fmt.Sprintf("(%d, %d)", rows, cols)
		if rows < 0 {
			want = fmt.Sprintf("(N, %d)", cols)
		} else if cols < 0 {
			want = fmt.Sprintf("(%d, F)", rows)
		}
		return fmt.Errorf("model: %sfeatures have shape %v, want %s", what, s, want)
	}
	if x.Dtype() != m.dt {
		return fmt.Errorf("model: %sfeatures are %v, the model is %v", what, x.Dtype(), m.dt)
	}
	return nil
}

// evalMode returns a Mode in evaluation.
func evalMode() *nn.Mode {
	mode := nn.NewMode()
	mode.Eval()
	return mode
}
