package model

import (
	"encoding/json"
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// Model is a model built from a Spec: its parameter values, and the layers,
// which it adds to an expression graph when asked (Layer, Predict). The
// values are read, never written, by Predict, so a Model serves concurrent
// Predict calls; SetParams must not run concurrently with them.
type Model struct {
	spec   Spec
	dt     tensor.Dtype
	names  []string // parameter names, in the order of the layers
	values map[string]*tensor.Dense
	owner  map[string]string // parameter name -> "layer 1 (gcn2, GraphConv)"
	mode   *nn.Mode
}

// New builds a model of spec with fresh parameters of dtype dt (float32 or
// float64), drawn as the layer packages draw them from seeds derived from
// seed (a layer's Seed, when given, is used as is). It returns an error
// naming the layer and the field for a spec that cannot be built.
func New(spec Spec, dt tensor.Dtype, seed uint64) (*Model, error) {
	if dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("model: dtype %v, want float32 or float64", dt)
	}
	spec, err := cloneSpec(spec)
	if err != nil {
		return nil, err
	}
	if err := normalize(&spec, seed); err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	m := &Model{spec: spec, dt: dt, values: map[string]*tensor.Dense{}, owner: map[string]string{}, mode: nn.NewMode()}
	e := env{eg: gorgonia.NewGraph(), dt: dt, mode: nn.NewMode()}
	add := func(where string, ps gorgonia.Nodes) error {
		for _, p := range ps {
			if prev, dup := m.owner[p.Name()]; dup {
				return fmt.Errorf("model: %s: parameter %q is also %s's: layer names must be unique", where, p.Name(), prev)
			}
			v, ok := p.Value().(*tensor.Dense)
			if !ok {
				return fmt.Errorf("model: %s: parameter %q holds %T", where, p.Name(), p.Value())
			}
			m.names = append(m.names, p.Name())
			m.values[p.Name()] = v
			m.owner[p.Name()] = where
		}
		return nil
	}
	for l := range spec.Layers {
		where := fmt.Sprintf("layer %d (%s)", l, describe(&spec.Layers[l]))
		b, err := buildLayer(e, &spec.Layers[l])
		if err != nil {
			return nil, fmt.Errorf("model: %s: %w", where, err)
		}
		if err := add(where, b.params); err != nil {
			return nil, err
		}
	}
	if spec.Readout != nil {
		_, ps, err := buildReadout(e, spec.Readout)
		if err != nil {
			return nil, fmt.Errorf("model: readout: %w", err)
		}
		if err := add("the readout", ps); err != nil {
			return nil, err
		}
		_, ps, err = buildSeq(e, spec.Head, "head ")
		if err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		if err := add("the head", ps); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// cloneSpec returns a deep copy of s (through its JSON form, which is what
// a file stores).
func cloneSpec(s Spec) (Spec, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return Spec{}, fmt.Errorf("model: spec: %w", err)
	}
	var c Spec
	if err := json.Unmarshal(data, &c); err != nil {
		return Spec{}, fmt.Errorf("model: spec: %w", err)
	}
	return c, nil
}

// Spec returns the model's normalised spec (a copy).
func (m *Model) Spec() Spec {
	s, _ := cloneSpec(m.spec)
	return s
}

// Dtype returns the dtype of the model's parameters and features.
func (m *Model) Dtype() tensor.Dtype { return m.dt }

// Mode returns the training/evaluation switch the dropout of the layers
// Layer builds follows (Predict uses one of its own, in evaluation).
func (m *Model) Mode() *nn.Mode { return m.mode }

// NumLayers returns the number of layers of the stack (Spec.Layers), the
// readout and head left out. With Layer, a Model is a train.Stack.
func (m *Model) NumLayers() int { return len(m.spec.Layers) }

// Layer adds layer l of the stack to eg and applies it to x on g (a graph,
// a sampled block, or a rgcn.Relations for a RelGraphConv), as train.Stack
// asks: it returns the output and the layer's parameter nodes, which hold
// the model's values (bind them to a train.Shared to train). Dropout
// follows Mode. A HeteroGraphConv layer cannot run here (see
// PredictHetero). Self-loops are not added (Spec.SelfLoops is Predict's).
func (m *Model) Layer(eg *gorgonia.ExprGraph, l int, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	b, err := m.build(env{eg: eg, dt: m.dt, mode: m.mode, values: m.value}, l)
	if err != nil {
		return nil, nil, err
	}
	if b.forward == nil {
		return nil, nil, fmt.Errorf("model: layer %d (%s) runs on a heterograph: use PredictHetero", l, describe(&m.spec.Layers[l]))
	}
	out, err := b.forward(g, x)
	if err != nil {
		return nil, nil, fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)
	}
	return out, b.params, nil
}

// LayerSparse is Layer for sparse input features (nn.Sparse), for a first
// layer that takes them (GraphConv, GATConv): the features are never
// densified.
func (m *Model) LayerSparse(eg *gorgonia.ExprGraph, l int, g nn.Graph, x *nn.Sparse) (*gorgonia.Node, gorgonia.Nodes, error) {
	b, err := m.build(env{eg: eg, dt: m.dt, mode: m.mode, values: m.value}, l)
	if err != nil {
		return nil, nil, err
	}
	if b.sparse == nil {
		return nil, nil, fmt.Errorf("model: layer %d (%s) does not take sparse features", l, describe(&m.spec.Layers[l]))
	}
	out, err := b.sparse(g, x)
	if err != nil {
		return nil, nil, fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)
	}
	return out, b.params, nil
}

// build adds layer l to e's graph and binds its parameters to the model's
// values.
func (m *Model) build(e env, l int) (*built, error) {
	if l < 0 || l >= len(m.spec.Layers) {
		return nil, fmt.Errorf("model: layer %d of a model of %d layers", l, len(m.spec.Layers))
	}
	b, err := buildLayer(e, &m.spec.Layers[l])
	if err != nil {
		return nil, fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)
	}
	if err := m.bind(b.params); err != nil {
		return nil, fmt.Errorf("model: layer %d (%s): %w", l, describe(&m.spec.Layers[l]), err)
	}
	return b, nil
}

// value is the model's nn.Values.
func (m *Model) value(name string) *tensor.Dense { return m.values[name] }

// bind makes every node of params hold the model's value of its name.
func (m *Model) bind(params gorgonia.Nodes) error {
	for _, p := range params {
		v, ok := m.values[p.Name()]
		if !ok {
			return fmt.Errorf("parameter %q is not the model's", p.Name())
		}
		if p.Value() == gorgonia.Value(v) {
			continue
		}
		if err := gorgonia.Let(p, v); err != nil {
			return fmt.Errorf("parameter %q: %w", p.Name(), err)
		}
	}
	return nil
}

// ParamNames returns the names of the model's parameters, in the order of
// the layers (each layer's in the order of its Learnables).
func (m *Model) ParamNames() []string { return slices.Clone(m.names) }

// Params returns the model's parameter tensors by name. They are the
// model's own: writing them changes the model (SetParams copies instead).
func (m *Model) Params() map[string]*tensor.Dense {
	out := make(map[string]*tensor.Dense, len(m.values))
	for k, v := range m.values {
		out[k] = v
	}
	return out
}

// SetParams copies values into the model's parameters. Every parameter must
// be given, with the model's dtype and its shape, and nothing else: the
// error names the parameter, its layer and the shapes. On error the model
// is unchanged.
func (m *Model) SetParams(values map[string]*tensor.Dense) error {
	for _, name := range m.names {
		v, ok := values[name]
		w := m.values[name]
		switch {
		case !ok || v == nil:
			return fmt.Errorf("model: parameter %q (%s) is not given", name, m.owner[name])
		case v.Dtype() != m.dt:
			return fmt.Errorf("model: parameter %q (%s): %v given, the model is %v", name, m.owner[name], v.Dtype(), m.dt)
		case !v.Shape().Eq(w.Shape()):
			return fmt.Errorf("model: parameter %q (%s): shape %v given, the model's is %v", name, m.owner[name], v.Shape(), w.Shape())
		}
	}
	if len(values) != len(m.names) {
		var extra []string
		for name := range values {
			if _, ok := m.values[name]; !ok {
				extra = append(extra, name)
			}
		}
		slices.Sort(extra)
		return fmt.Errorf("model: the model has no parameter %q (%d unknown)", extra[0], len(extra))
	}
	for _, name := range m.names {
		if err := copyInto(m.values[name], values[name]); err != nil {
			return fmt.Errorf("model: parameter %q: %w", name, err)
		}
	}
	return nil
}

// copyInto copies src's elements into dst, of the same dtype and size.
func copyInto(dst, src *tensor.Dense) error {
	switch d := dst.Data().(type) {
	case []float32:
		s, ok := src.Data().([]float32)
		if !ok || len(s) < len(d) {
			return fmt.Errorf("cannot copy %T into %d float32", src.Data(), len(d))
		}
		copy(d, s)
	case []float64:
		s, ok := src.Data().([]float64)
		if !ok || len(s) < len(d) {
			return fmt.Errorf("cannot copy %T into %d float64", src.Data(), len(d))
		}
		copy(d, s)
	default:
		return fmt.Errorf("a parameter holds %T", dst.Data())
	}
	return nil
}

// Shared returns a train.Shared holding the model's parameter tensors (not
// copies), bound by name: what train.Inference and train.BuildBatch take.
// Its optimiser (Adam, learning rate 0.001, no weight decay) is there for
// Shared's sake; to train, bind the model's parameters to a Shared of your
// own settings.
func (m *Model) Shared() *train.Shared {
	s, err := train.NewShared(1e-3, 0)
	if err != nil {
		panic(err) // constant, valid settings
	}
	eg := gorgonia.NewGraph()
	ns := make(gorgonia.Nodes, len(m.names))
	for i, name := range m.names {
		ns[i] = gorgonia.NodeFromAny(eg, m.values[name], gorgonia.WithName(name))
	}
	if err := s.Bind(ns); err != nil {
		panic(err) // fresh names on a fresh Shared
	}
	return s
}
