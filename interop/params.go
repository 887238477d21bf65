package interop

import (
	"fmt"
	"sort"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
)

// Params holds gnn parameter values by their full gnn names
// ("gcn1.weight"), as PyG and DGL return them.
type Params map[string]*tensor.Dense

// Names returns the parameter names in increasing order.
func (p Params) Names() []string {
	out := make([]string, 0, len(p))
	for n := range p {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Values returns p as an nn.Values, for the WithValues option of the
// layers (every layer package with parameters has one): the layer then
// starts from these values instead of drawing its own, and refuses a
// value of another shape or dtype. A parameter p has no value for is
// drawn, so prefer Assign after building the model, which also checks
// that every parameter gets a value.
func (p Params) Values() nn.Values {
	return func(name string) *tensor.Dense { return p[name] }
}

// Merge adds q's values to p; a name in both is an error.
func (p Params) Merge(q Params) error {
	for _, n := range q.Names() {
		if _, dup := p[n]; dup {
			return fmt.Errorf("interop: parameter %q is converted twice", n)
		}
	}
	for n, v := range q {
		p[n] = v
	}
	return nil
}

// Assign copies p's values into params (a model's Learnables), matched by
// name. Every parameter must get a value of its shape and dtype, and
// every value must find its parameter: the error names the first
// parameter without a value, value without a parameter, or mismatch
// (sorted by name). Nothing is changed unless everything matches.
func (p Params) Assign(params gorgonia.Nodes) error {
	byName := make(map[string]*gorgonia.Node, len(params))
	var missing []string
	for _, n := range params {
		if n == nil {
			return fmt.Errorf("interop: Assign: nil parameter")
		}
		if _, dup := byName[n.Name()]; dup {
			return fmt.Errorf("interop: Assign: two parameters are named %q", n.Name())
		}
		byName[n.Name()] = n
		if _, ok := p[n.Name()]; !ok {
			missing = append(missing, n.Name())
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		return fmt.Errorf("interop: Assign: no value for parameter %q (%d of %d parameters have none; converted: %v)", missing[0], len(missing), len(params), p.Names())
	}
	for _, name := range p.Names() {
		n, ok := byName[name]
		if !ok {
			return fmt.Errorf("interop: Assign: value %q matches no parameter of the model; build the layer with the options the table in the package documentation names, or leave the value out", name)
		}
		v := p[name]
		if !v.Shape().Eq(n.Shape()) {
			return fmt.Errorf("interop: Assign: value %q has shape %v, the parameter %v", name, v.Shape(), n.Shape())
		}
		if v.Dtype() != n.Dtype() {
			return fmt.Errorf("interop: Assign: value %q has dtype %v, the parameter %v; convert with the dtype of the model", name, v.Dtype(), n.Dtype())
		}
		if n.Value() == nil {
			return fmt.Errorf("interop: Assign: parameter %q has no value to overwrite", name)
		}
	}
	for name, v := range p {
		switch d := byName[name].Value().Data().(type) {
		case []float32:
			copy(d, v.Data().([]float32))
		case []float64:
			copy(d, v.Data().([]float64))
		default:
			return fmt.Errorf("interop: Assign: parameter %q holds %T, not a float tensor", name, d)
		}
	}
	return nil
}

// ParamsOf copies the values of a model's parameters (its Learnables) into
// Params under their names, for WriteSafetensors: a gnn model's weights
// in gnn's names and layouts ((in, out) weights), which
// safetensors.torch.load_file reads back in Python.
func ParamsOf(params gorgonia.Nodes) (Params, error) {
	p := Params{}
	for _, n := range params {
		if n == nil || n.Name() == "" {
			return nil, fmt.Errorf("interop: ParamsOf: a parameter is nil or has no name")
		}
		if _, dup := p[n.Name()]; dup {
			return nil, fmt.Errorf("interop: ParamsOf: two parameters are named %q", n.Name())
		}
		v, ok := n.Value().(*tensor.Dense)
		if !ok || (v.Dtype() != tensor.Float32 && v.Dtype() != tensor.Float64) {
			return nil, fmt.Errorf("interop: ParamsOf: parameter %q has no float32 or float64 tensor value", n.Name())
		}
		p[n.Name()] = v.Clone().(*tensor.Dense)
	}
	return p, nil
}
