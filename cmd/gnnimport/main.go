// Command gnnimport turns the weights of a model trained in PyTorch (PyG or
// DGL) into a gnn model file, which the examples' -load, model.Load and
// cmd/gnnserve read: the user saves the state dict with safetensors
// (safetensors.torch.save_file(model.state_dict(), "model.safetensors")),
// writes the architecture once as a model.Spec in JSON (the "layers",
// "in_features", "self_loops", ... of package model's file header; see
// model/doc.go), and names the PyTorch module of each gnn layer:
//
//	gnnimport -from pyg -weights model.safetensors -spec spec.json \
//	    -modules gcn1=conv1,gcn2=conv2 -out cora.gnnmodel
//
// Each layer of the spec is converted by package interop from the module
// named for it (by default the module of the layer's own name) as the
// PyTorch class of its type: PyG's GCNConv, GATConv, GATv2Conv, SAGEConv,
// GINConv, RGCNConv, or DGL's GraphConv, GATConv, GATv2Conv, SAGEConv,
// GINConv, RelGraphConv. Every parameter of the model must get a value of
// its shape, and every tensor of the file must be used (-allow-unused lists
// the others instead of failing), so that nothing is silently dropped.
// Where PyG's conventions differ from gnn's (its GCNConv normalises by
// in-degrees and adds self-loops itself) interop's table in its doc.go says
// what the spec must say (self_loops, norm).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/interop"
	"github.com/gnngo/gnn/model"
)

// options are gnnimport's flags.
type options struct {
	From, Weights, Spec, Modules, Out, Dtype, Aggregator string
	AllowUnused                                          bool
}

// kinds maps gnn's layer types to the PyTorch classes of each source.
var kinds = map[string]map[string]string{
	"pyg": {model.GraphConv: "GCNConv", model.GATConv: "GATConv", model.GATv2Conv: "GATv2Conv",
		model.SAGEConv: "SAGEConv", model.GINConv: "GINConv", model.RelGraphConv: "RGCNConv"},
	"dgl": {model.GraphConv: "GraphConv", model.GATConv: "GATConv", model.GATv2Conv: "GATv2Conv",
		model.SAGEConv: "SAGEConv", model.GINConv: "GINConv", model.RelGraphConv: "RelGraphConv"},
}

func main() {
	var o options
	fs := flag.NewFlagSet("gnnimport", flag.ExitOnError)
	o.register(fs)
	_ = fs.Parse(os.Args[1:])
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gnnimport: unexpected arguments %q\n", fs.Args())
		os.Exit(2)
	}
	if err := run(&o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gnnimport:", err)
		os.Exit(1)
	}
}

func (o *options) register(fs *flag.FlagSet) {
	fs.StringVar(&o.From, "from", "pyg", "the library the weights come from: pyg or dgl")
	fs.StringVar(&o.Weights, "weights", "", "the safetensors file of the model's state dict (required)")
	fs.StringVar(&o.Spec, "spec", "", "the architecture, a model.Spec in JSON (required)")
	fs.StringVar(&o.Modules, "modules", "", "the PyTorch module of each gnn layer, as layer=module,... (default: the module named as the layer)")
	fs.StringVar(&o.Out, "out", "", "the model file to write (required)")
	fs.StringVar(&o.Dtype, "dtype", "float32", "the model's dtype: float32 or float64")
	fs.StringVar(&o.Aggregator, "aggregator", "", "PyG SAGEConv's aggr, which its state dict does not record: mean (default) or max")
	fs.BoolVar(&o.AllowUnused, "allow-unused", false, "write the model even if some tensors of the file are not used (they are listed)")
}

// modules parses -modules.
func (o *options) modules() (map[string]string, error) {
	m := map[string]string{}
	if o.Modules == "" {
		return m, nil
	}
	for _, kv := range strings.Split(o.Modules, ",") {
		layer, module, ok := strings.Cut(kv, "=")
		if !ok || layer == "" {
			return nil, fmt.Errorf("-modules %q: want layer=module pairs separated by commas", o.Modules)
		}
		if _, dup := m[layer]; dup {
			return nil, fmt.Errorf("-modules: layer %q given twice", layer)
		}
		m[layer] = module
	}
	return m, nil
}

func run(o *options, w io.Writer) error {
	switch {
	case o.Weights == "":
		return errors.New("-weights: give the safetensors file of the state dict")
	case o.Spec == "":
		return errors.New("-spec: give the architecture (a model.Spec in JSON)")
	case o.Out == "":
		return errors.New("-out: give the model file to write")
	}
	byType, ok := kinds[o.From]
	if !ok {
		return fmt.Errorf("-from %q: want pyg or dgl", o.From)
	}
	dtypes := map[string]tensor.Dtype{"float32": tensor.Float32, "float64": tensor.Float64}
	dt, ok := dtypes[o.Dtype]
	if !ok {
		return fmt.Errorf("-dtype %q: want float32 or float64", o.Dtype)
	}
	mods, err := o.modules()
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(o.Spec)
	if err != nil {
		return fmt.Errorf("-spec: %w", err)
	}
	var spec model.Spec
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return fmt.Errorf("-spec %s: %w", o.Spec, err)
	}
	m, err := model.New(spec, dt, 0)
	if err != nil {
		return fmt.Errorf("-spec %s: %w", o.Spec, err)
	}
	ts, err := interop.ReadSafetensors(o.Weights)
	if err != nil {
		return fmt.Errorf("-weights: %w", err)
	}
	convert := interop.PyG
	if o.From == "dgl" {
		convert = interop.DGL
	}
	layers := map[string]bool{}
	for _, ls := range m.Spec().Layers {
		layers[ls.Name] = true
	}
	for layer := range mods {
		if !layers[layer] {
			return fmt.Errorf("-modules names layer %q, which the spec does not have", layer)
		}
	}
	params := interop.Params{}
	for i, ls := range m.Spec().Layers {
		kind, ok := byType[ls.Type]
		if !ok {
			return fmt.Errorf("layer %d (%s) is a %s, which has no %s counterpart to import (%s has: %s)", i, ls.Name, ls.Type, o.From, o.From, typeList(byType))
		}
		module, given := mods[ls.Name]
		if !given {
			module = ls.Name
		}
		p, err := convert(ts, interop.Layer{Kind: kind, Prefix: module, Name: ls.Name, Dtype: dt, Aggregator: o.Aggregator, Bases: ls.Bases})
		if err != nil {
			return fmt.Errorf("layer %d (%s) from %s module %q: %w", i, ls.Name, kind, module, err)
		}
		if err := params.Merge(p); err != nil {
			return err
		}
	}
	if unused := ts.Unused(); len(unused) > 0 {
		if !o.AllowUnused {
			return fmt.Errorf("%s: no layer of the spec reads the tensors %s (-allow-unused to write the model without them)", o.Weights, strings.Join(unused, ", "))
		}
		fmt.Fprintf(w, "not used: %s\n", strings.Join(unused, ", "))
	}
	if err := m.SetParams(params); err != nil {
		return err
	}
	if err := m.Save(o.Out); err != nil {
		return err
	}
	fmt.Fprintf(w, "wrote %s: %d layers, %d parameters from %s\n", o.Out, m.NumLayers(), len(params), o.Weights)
	return nil
}

// typeList lists the gnn layer types a source maps.
func typeList(byType map[string]string) string {
	var ts []string
	for t := range byType {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return strings.Join(ts, ", ")
}
