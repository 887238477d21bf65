package main

import (
	"fmt"
	"io"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/examples/internal/setup"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/link"
	"github.com/gnngo/gnn/nn/train"
)

// decoder adds -decoder's pair scorer to eg, its parameters (if any) taken
// from values and named "mlp..." or "distmult...".
func (o *options) decoder(eg *gorgonia.ExprGraph, values nn.Values) (link.Decoder, error) {
	switch o.Decoder {
	case "dot":
		return link.Dot{}, nil
	case "mlp":
		return link.NewMLP(eg, o.Out, []int{o.Out}, link.WithName("mlp"), link.WithSeed(o.Seed+50), link.WithValues(values))
	case "distmult":
		return link.NewDistMult(eg, 1, o.Out, link.WithName("distmult"), link.WithSeed(o.Seed+50), link.WithValues(values))
	}
	return nil, fmt.Errorf("-decoder %q: want dot, mlp or distmult", o.Decoder)
}

// boundDecoder is decoder with its parameters bound to s, to train with the
// encoder's.
func (o *options) boundDecoder(eg *gorgonia.ExprGraph, s *train.Shared) (link.Decoder, error) {
	dec, err := o.decoder(eg, s.Value)
	if err != nil {
		return nil, err
	}
	return dec, s.Bind(dec.Learnables())
}

// newEncoder returns -model's encoder for inputs of width in (see
// encoderSpec), seeded with -seed, and the shared Adam state (-lr,
// -weight-decay) its layers and the decoder train with.
func (o *options) newEncoder(in, layers int, fanouts []int) (*model.Model, *train.Shared, error) {
	s, err := train.NewShared(o.LR, o.WeightDecay)
	if err != nil {
		return nil, nil, err
	}
	spec, err := o.encoderSpec(in, layers, fanouts)
	if err != nil {
		return nil, nil, err
	}
	enc, err := model.New(spec, tensor.Float32, o.Seed)
	if err != nil {
		return nil, nil, err
	}
	return enc, s, nil
}

// features returns the dataset's features as one dense N x F table, used in
// place when they are stored dense.
func features(ds *dataset.Dataset) *tensor.Dense {
	backing := ds.Features.Dense
	if ds.Features.IsSparse() || backing == nil {
		backing = ds.Features.ToDense()
	}
	return tensor.New(tensor.WithShape(ds.Features.Rows, ds.Features.Cols), tensor.WithBacking(backing))
}

// pairGraph returns the pairs (src[i], dst[i]) as a graph over n nodes, the
// form the decoders score.
func pairGraph(n int, src, dst []int32) (*graph.Graph, error) {
	return graph.FromCOO(n, n, src, dst)
}

// encode adds every layer of m to eg over the one graph g (full-graph
// training and evaluation) and binds their parameters to s.
func encode(m train.Stack, s *train.Shared, eg *gorgonia.ExprGraph, g *graph.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	var params gorgonia.Nodes
	h := x
	for l := range m.NumLayers() {
		var ps gorgonia.Nodes
		var err error
		if h, ps, err = m.Layer(eg, l, g, h); err != nil {
			return nil, nil, fmt.Errorf("layer %d: %w", l+1, err)
		}
		params = append(params, ps...)
	}
	if err := s.Bind(params); err != nil {
		return nil, nil, err
	}
	return h, params, nil
}

// scores runs the graph of eg forward (no gradients) and returns the values
// of the score nodes, as float64.
func scores(eg *gorgonia.ExprGraph, nodes ...*gorgonia.Node) ([][]float64, error) {
	vm := gorgonia.NewTapeMachine(eg.SubgraphRoots(nodes...))
	defer nn.CloseVM(vm)
	if err := vm.RunAll(); err != nil {
		return nil, err
	}
	out := make([][]float64, len(nodes))
	for i, n := range nodes {
		switch d := n.Value().Data().(type) {
		case []float32:
			out[i] = make([]float64, len(d))
			for j, v := range d {
				out[i][j] = float64(v)
			}
		case []float64:
			out[i] = append([]float64(nil), d...)
		default:
			return nil, fmt.Errorf("scores of type %T", d)
		}
	}
	return out, nil
}

// snapshot copies the shared parameters (the model of the best epoch).
func snapshot(s *train.Shared) map[string]*tensor.Dense {
	m := map[string]*tensor.Dense{}
	for _, name := range s.Names() {
		m[name] = s.Value(name).Clone().(*tensor.Dense)
	}
	return m
}

// restore writes a snapshot back into the shared parameters.
func restore(s *train.Shared, snap map[string]*tensor.Dense) error {
	for name, v := range snap {
		dst := s.Value(name)
		if dst == nil {
			return fmt.Errorf("restore: no parameter %q", name)
		}
		if err := tensor.Copy(dst, v); err != nil {
			return fmt.Errorf("restore %q: %w", name, err)
		}
	}
	return nil
}

// save writes the trained model to -save, if given: with the dot decoder
// (no parameters) a model file of the encoder (package model), which
// model.Load and cmd/gnnserve run without this program; with a learned
// decoder a parameter file of the encoder and the decoder (nn.SaveParams),
// which only -load reads.
func save(w io.Writer, o *options, m *model.Model, s *train.Shared) error {
	if o.Save == "" {
		return nil
	}
	if o.Decoder == "dot" {
		if err := setup.SaveModel(o.Save, m, s.Nodes()); err != nil {
			return fmt.Errorf("-save: %w", err)
		}
		fmt.Fprintf(w, "saved the encoder to %s (a model file, with the architecture)\n", o.Save)
		return nil
	}
	if err := nn.SaveParams(o.Save, s.Nodes()); err != nil {
		return fmt.Errorf("-save: %w", err)
	}
	fmt.Fprintf(w, "saved the encoder's and the %s decoder's parameters to %s\n", o.Decoder, o.Save)
	return nil
}

// loadParams reads -load into the shared parameters, every one of which must be
// bound: a model file (the encoder, for the dot decoder) or a parameter
// file.
func (o *options) loadParams(m *model.Model, s *train.Shared) error {
	if o.Decoder != "dot" {
		if isModel, err := model.IsModelFile(o.Load); err != nil {
			return fmt.Errorf("-load: %w", err)
		} else if isModel {
			return fmt.Errorf("-load %s: a model file holds the encoder only; -decoder %s needs the parameter file -save wrote with it", o.Load, o.Decoder)
		}
		if err := nn.LoadParams(o.Load, s.Nodes()); err != nil {
			return fmt.Errorf("-load: %w", err)
		}
		return nil
	}
	if _, err := setup.LoadModel(o.Load, m, s.Nodes(), nil); err != nil {
		return fmt.Errorf("-load: %w", err)
	}
	return nil
}
