package serve

import (
	"fmt"
	"strings"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/nn/vm"
)

// Model is what the server runs: a stack of layers, its parameters and the
// shape of its input. Any train.Stack serves (sage.Stack, a model read from
// a file, a stack written for the purpose).
type Model struct {
	// Stack builds the layers on every forward pass's expression graph.
	Stack train.Stack
	// Params holds every parameter of Stack, bound by name: the stack must
	// have been built once with it (train.BuildBatch or Shared.Bind), so
	// that serving adds no parameter.
	Params *train.Shared
	// InFeatures is the width of the input features.
	InFeatures int
	// Dtype is the parameters' dtype (float32 when zero); the features are
	// converted to it.
	Dtype tensor.Dtype
	// Fanouts, when not empty, holds the sampling fan-out of every layer,
	// the input layer's first (-1: every neighbour); empty reads every
	// neighbour.
	Fanouts []int
	// Mode, when not nil, is switched to evaluation (dropout off) for good
	// when the server starts.
	Mode *nn.Mode
	// Whole, when not nil, runs the model on a whole graph (the model's
	// full-graph Predict) and returns its last layer's outputs: the cache
	// uses it instead of train.Inference. It is given the graph as loaded,
	// without the self-loops SelfLoops adds (model.Model's Predict adds
	// them itself).
	Whole func(g *graph.Graph, x *tensor.Dense) (*tensor.Dense, error)
	// SelfLoops serves the model on the graph with a self-loop added on
	// every node, new nodes included, after the node's other in-edges (as
	// graph.AddSelfLoops numbers them): for models trained so (GCN and GAT
	// on Planetoid).
	SelfLoops bool
	// LayerNames, when not empty, names the layers (one name each), so
	// that an embedding request may name its layer.
	LayerNames []string
	// WholeGraph marks a model whose layers cannot run on a node's
	// neighbourhood alone: layers that propagate several hops (APPNP, SGC,
	// TAG, Cheb), read the sources' out-degrees (GraphConv's both and left
	// norms) or normalise over the rows they are given (BatchNorm). Such a
	// model always runs on the whole graph: every layer's outputs are
	// cached at start (Config.Cache is implied, Fanouts ignored), and a
	// request with new nodes runs it on a copy of the graph with them
	// added, one request at a time.
	WholeGraph bool
}

// check reports what makes m unusable.
func (m *Model) check() error {
	switch {
	case m == nil || m.Stack == nil:
		return fmt.Errorf("serve: the model has no stack")
	case m.Params == nil:
		return fmt.Errorf("serve: the model has no parameters (Params is nil)")
	case len(m.Params.Names()) == 0:
		return fmt.Errorf("serve: the model's parameters are empty: build the stack once with them (train.BuildBatch) before serving")
	case m.Stack.NumLayers() < 1:
		return fmt.Errorf("serve: the model has %d layers", m.Stack.NumLayers())
	case m.InFeatures < 1:
		return fmt.Errorf("serve: the model takes %d input features", m.InFeatures)
	case !m.WholeGraph && len(m.Fanouts) != 0 && len(m.Fanouts) != m.Stack.NumLayers():
		return fmt.Errorf("serve: %d fan-outs for a model of %d layers", len(m.Fanouts), m.Stack.NumLayers())
	}
	if len(m.LayerNames) != 0 && len(m.LayerNames) != m.Stack.NumLayers() {
		return fmt.Errorf("serve: %d layer names for a model of %d layers", len(m.LayerNames), m.Stack.NumLayers())
	}
	for l, f := range m.Fanouts {
		if f < -1 {
			return fmt.Errorf("serve: fan-out %d of layer %d, want -1 (all) or at least 0", f, l)
		}
	}
	if dt := m.dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return fmt.Errorf("serve: model dtype %v, want float32 or float64", dt)
	}
	return nil
}

// dtype returns the model's dtype, float32 when not set.
func (m *Model) dtype() tensor.Dtype {
	if m.Dtype == (tensor.Dtype{}) {
		return tensor.Float32
	}
	return m.Dtype
}

// fanouts returns the fan-outs of the first depth layers: the model's, or
// -1 (every neighbour) for each when it has none.
func (m *Model) fanouts(depth int) []int {
	f := make([]int, depth)
	for l := range f {
		f[l] = -1
		if len(m.Fanouts) > 0 {
			f[l] = m.Fanouts[l]
		}
	}
	return f
}

// sampled reports whether the model samples its neighbourhoods.
func (m *Model) sampled() bool {
	for _, f := range m.Fanouts {
		if f != -1 {
			return true
		}
	}
	return false
}

// layerIndex returns the position of the layer r refers to, or a 400
// naming the layers there are.
func (m *Model) layerIndex(r LayerRef) (int, error) {
	L := m.Stack.NumLayers()
	if r.Name == "" {
		if r.Index < 0 || r.Index >= L {
			return 0, badRequest("layer %d: the model has %d layers, numbered 0 to %d", r.Index, L, L-1)
		}
		return r.Index, nil
	}
	for l, name := range m.LayerNames {
		if name == r.Name {
			return l, nil
		}
	}
	if len(m.LayerNames) == 0 {
		return 0, badRequest("layer %q: the model's layers have no names; give a number from 0 to %d", r.Name, L-1)
	}
	return 0, badRequest("layer %q: the model's layers are %s", r.Name, strings.Join(m.LayerNames, ", "))
}

// prefix is the first n layers of a stack: layer n-1's output is an
// embedding.
type prefix struct {
	train.Stack
	n int
}

// NumLayers returns n.
func (p prefix) NumLayers() int { return p.n }

// forward runs the first len(blocks) layers of m, layer l on blocks[l],
// from the input rows x (one per source of blocks[0]), and returns the last
// layer's output, one row per destination of the last block. The
// parameters are m.Params' tensors; Params is only read, but Gorgonia's
// machine sets the engine of every value it runs, so passes must not run
// concurrently (Server.modelMu).
func (m *Model) forward(blocks []*graph.Graph, x *tensor.Dense) (*tensor.Dense, error) {
	eg := gorgonia.NewGraph()
	h := gorgonia.NodeFromAny(eg, x, gorgonia.WithName("x"))
	for l, b := range blocks {
		out, err := m.layer(eg, l, b, h)
		if err != nil {
			return nil, err
		}
		h = out
	}
	if err := vm.Run(h); err != nil {
		return nil, err
	}
	v, ok := h.Value().(*tensor.Dense)
	if !ok || v.Dims() != 2 || v.Shape()[0] != blocks[len(blocks)-1].NumDst() {
		return nil, fmt.Errorf("the model's output is %v, want %d rows", h.Shape(), blocks[len(blocks)-1].NumDst())
	}
	return v, nil
}

// layer adds layer l of m to eg over g, reading h, with the model's
// parameters bound. Bind adopts a name it has never seen, writing Shared's
// map: layer refuses such a parameter instead, so that concurrent passes
// only read.
func (m *Model) layer(eg *gorgonia.ExprGraph, l int, g *graph.Graph, h *gorgonia.Node) (*gorgonia.Node, error) {
	out, ps, err := m.Stack.Layer(eg, l, g, h)
	if err != nil {
		return nil, fmt.Errorf("layer %d: %w", l, err)
	}
	for _, p := range ps {
		if m.Params.Value(p.Name()) == nil {
			return nil, fmt.Errorf("layer %d: parameter %q is not in the model's parameters", l, p.Name())
		}
	}
	if err := m.Params.Bind(ps); err != nil {
		return nil, fmt.Errorf("layer %d: %w", l, err)
	}
	return out, nil
}

// wholeLayers runs the first depth layers of m on the whole graph g with
// features x in one expression graph and returns every layer's outputs.
func (m *Model) wholeLayers(g *graph.Graph, x *tensor.Dense, depth int) ([]*tensor.Dense, error) {
	eg := gorgonia.NewGraph()
	h := gorgonia.NodeFromAny(eg, x, gorgonia.WithName("x"))
	outs := make(gorgonia.Nodes, depth)
	for l := range depth {
		out, err := m.layer(eg, l, g, h)
		if err != nil {
			return nil, err
		}
		outs[l], h = out, out
	}
	if err := vm.Run(outs...); err != nil {
		return nil, err
	}
	res := make([]*tensor.Dense, depth)
	for l, o := range outs {
		v, ok := o.Value().(*tensor.Dense)
		if !ok || v.Dims() != 2 || v.Shape()[0] != g.NumDst() {
			return nil, fmt.Errorf("layer %d's output is %v, want %d rows", l, o.Shape(), g.NumDst())
		}
		res[l] = v
	}
	return res, nil
}
