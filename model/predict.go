package model

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/readout"
	"github.com/gnngo/gnn/nn/rgcn"
	"github.com/gnngo/gnn/ops"
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
		h, err := m.stack(e, b.Graph, xn, nil)
		if err != nil {
			return nil, err
		}
		// The readout's and the head's parameters start from the model's
		// values (e.values), so they need no binding.
		pool, _, err := buildReadout(e, m.spec.Readout)
		if err != nil {
			return nil, fmt.Errorf("readout: %w", err)
		}
		if h, err = pool(b, h); err != nil {
			return nil, fmt.Errorf("readout: %w", err)
		}
		head, _, err := buildSeq(e, m.spec.Head, "head ")
		if err != nil {
			return nil, err
		}
		if head == nil {
			return h, nil
		}
		return head(h)
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
		return m.stack(e, rel, xn, nil)
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
	e := env{eg: gorgonia.NewGraph(), dt: m.dt, mode: evalMode(), values: m.value}
	types := make([]string, 0, len(x))
	for t := range x {
		types = append(types, t)
	}
	slices.Sort(types)
	hs := map[string]*gorgonia.Node{}
	for _, t := range types {
		v := x[t]
		w, ok := m.spec.NodeFeatures[t]
		if !ok {
			return nil, fmt.Errorf("model: features for node type %q, which the model does not take", t)
		}
		if err := m.checkFeatures(v, -1, w, "node type "+t+" "); err != nil {
			return nil, err
		}
		hs[t] = gorgonia.NodeFromAny(e.eg, v, gorgonia.WithName("x."+t))
	}
	for l := range m.spec.Layers {
		b, err := m.build(e, l)
		if err != nil {
			return nil, err
		}
		if hs, err = b.hetero(h, hs); err != nil {
			return nil, fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)
		}
	}
	outs := make(gorgonia.Nodes, 0, len(hs))
	for _, n := range hs {
		outs = append(outs, n)
	}
	if len(outs) == 0 {
		return map[string]*tensor.Dense{}, nil
	}
	vm := gorgonia.NewTapeMachine(e.eg.SubgraphRoots(outs...))
	defer nn.CloseVM(vm)
	if err := vm.RunAll(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	res := make(map[string]*tensor.Dense, len(hs))
	for t, n := range hs {
		v, ok := n.Value().(*tensor.Dense)
		if !ok {
			return nil, fmt.Errorf("model: node type %q: output %T", t, n.Value())
		}
		res[t] = v
	}
	return res, nil
}

// predictNodes is Predict and PredictEdges.
func (m *Model) predictNodes(g *graph.Graph, x, ef *tensor.Dense) (*tensor.Dense, error) {
	if m.spec.Readout != nil {
		return nil, fmt.Errorf("model: a graph-level model runs with PredictGraphs")
	}
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
			efn = gorgonia.NodeFromAny(e.eg, ef, gorgonia.WithName("edge_features"))
		}
		return m.stack(e, g, xn, efn)
	}, g.NumSrc(), x)
}

// run checks the features x (rows x InFeatures), builds an expression graph
// in evaluation mode with f and runs it.
func (m *Model) run(f func(e env, x *gorgonia.Node) (*gorgonia.Node, error), rows int, x *tensor.Dense) (*tensor.Dense, error) {
	if len(m.spec.NodeFeatures) > 0 {
		return nil, fmt.Errorf("model: a HeteroGraphConv model runs with PredictHetero")
	}
	if err := m.checkFeatures(x, rows, m.spec.InFeatures, ""); err != nil {
		return nil, err
	}
	e := env{eg: gorgonia.NewGraph(), dt: m.dt, mode: evalMode(), values: m.value}
	out, err := f(e, gorgonia.NodeFromAny(e.eg, x, gorgonia.WithName("x")))
	if err != nil {
		if _, ok := err.(modelError); ok {
			return nil, err
		}
		return nil, fmt.Errorf("model: %w", err)
	}
	vm := gorgonia.NewTapeMachine(e.eg.SubgraphRoots(out))
	defer nn.CloseVM(vm)
	if err := vm.RunAll(); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	v, ok := out.Value().(*tensor.Dense)
	if !ok {
		return nil, fmt.Errorf("model: output %T", out.Value())
	}
	return v, nil
}

// modelError marks errors already prefixed "model: ".
type modelError struct{ error }

// stack applies the layers to x on g in e's graph; layers with edge
// features take ef.
func (m *Model) stack(e env, g nn.Graph, x, ef *gorgonia.Node) (*gorgonia.Node, error) {
	h := x
	for l := range m.spec.Layers {
		b, err := m.build(e, l)
		if err != nil {
			return nil, modelError{err}
		}
		where := func(err error) error {
			return modelError{fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)}
		}
		switch {
		case b.edges != nil:
			gg, ok := g.(*graph.Graph)
			if ef == nil || !ok {
				return nil, where(fmt.Errorf("the layer takes edge features: use PredictEdges"))
			}
			h, err = b.edges(gg, h, ef)
		case b.forward != nil:
			h, err = b.forward(g, h)
		default:
			return nil, where(fmt.Errorf("the layer runs on a heterograph: use PredictHetero"))
		}
		if err != nil {
			return nil, where(err)
		}
	}
	return h, nil
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

// pooling is a readout: node features of a batch to one row per graph.
type pooling func(b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, error)

// buildReadout builds the readout r in e's graph and returns it with its
// parameters.
func buildReadout(e env, r *ReadoutSpec) (pooling, gorgonia.Nodes, error) {
	switch r.Type {
	case "sum":
		return ops.SumNodes, nil, nil
	case "mean":
		return ops.MeanNodes, nil, nil
	case "max":
		return ops.MaxNodes, nil, nil
	case "attention":
		gate, gateParams, err := buildSeq(e, r.Gate, "gate ")
		if err != nil {
			return nil, nil, err
		}
		feat, featParams, err := buildSeq(e, r.Feat, "feat ")
		if err != nil {
			return nil, nil, err
		}
		var opts []readout.Option
		if feat != nil {
			opts = append(opts, readout.WithFeat(feat, featParams...))
		}
		p, err := readout.NewGlobalAttentionPooling(gate, gateParams, opts...)
		if err != nil {
			return nil, nil, err
		}
		return p.Forward, p.Learnables(), nil
	}
	return nil, nil, fmt.Errorf("unknown readout %q", r.Type)
}
