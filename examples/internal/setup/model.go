package setup

import (
	"encoding/json"
	"fmt"
	"reflect"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
)

// LoadModel reads the file -load names into m and the parameter nodes
// params built from it: a model file (model.Save, what -save writes) must
// hold m's architecture, training settings (dropout, seeds, fan-outs)
// aside, and gives every parameter; a parameter file (nn.SaveParams, what
// -save wrote before model files) is read into params as before. It returns
// what it read, "a model file" or "a parameter file".
func LoadModel(path string, m *model.Model, params gorgonia.Nodes) (string, error) {
	isModel, err := model.IsModelFile(path)
	if err != nil {
		return "", err
	}
	if !isModel {
		if err := nn.LoadParams(path, params); err != nil {
			return "", err
		}
		if m != nil {
			if err := syncModel(m, params); err != nil {
				return "", err
			}
		}
		return "a parameter file", nil
	}
	if m == nil {
		return "", fmt.Errorf("%s is a model file; this program reads parameter files only", path)
	}
	lm, err := model.Load(path)
	if err != nil {
		return "", err
	}
	if err := sameArchitecture(lm.Spec(), m.Spec()); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if lm.Dtype() != m.Dtype() {
		return "", fmt.Errorf("%s: a %v model, this one is %v", path, lm.Dtype(), m.Dtype())
	}
	if err := m.SetParams(lm.Params()); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	// The nodes hold the model's tensors when the layers took them as
	// their values; copy into any that do not.
	vals := m.Params()
	for _, p := range params {
		v, ok := vals[p.Name()]
		if !ok {
			return "", fmt.Errorf("%s: the model has no parameter %q", path, p.Name())
		}
		if p.Value() == gorgonia.Value(v) {
			continue
		}
		if err := gorgonia.Let(p, v.Clone().(*tensor.Dense)); err != nil {
			return "", fmt.Errorf("%s: parameter %q: %w", path, p.Name(), err)
		}
	}
	return "a model file", nil
}

// SaveModel copies the values the parameter nodes params hold (trained)
// into m and writes m, architecture and parameters, to path as a model file.
func SaveModel(path string, m *model.Model, params gorgonia.Nodes) error {
	if err := syncModel(m, params); err != nil {
		return err
	}
	return m.Save(path)
}

// syncModel copies the values of params, which must be all of m's
// parameters, into m.
func syncModel(m *model.Model, params gorgonia.Nodes) error {
	vals := make(map[string]*tensor.Dense, len(params))
	for _, p := range params {
		v, ok := p.Value().(*tensor.Dense)
		if !ok {
			return fmt.Errorf("parameter %q holds %T", p.Name(), p.Value())
		}
		vals[p.Name()] = v
	}
	return m.SetParams(vals)
}

// trainingOnly are the spec fields that change how a model trains but not
// what it computes in evaluation: a model file may differ in them from the
// model it is loaded into.
var trainingOnly = []string{"seed", "dropout_seed", "dropout", "attn_dropout", "edge_dropout", "out_dropout", "fanouts"}

// sameArchitecture returns an error naming the first layer where the
// specs a (the file's) and b (the program's) differ, training settings
// aside.
func sameArchitecture(a, b model.Spec) error {
	ja, jb := stripped(a), stripped(b)
	if reflect.DeepEqual(ja, jb) {
		return nil
	}
	la, _ := ja["layers"].([]any)
	lb, _ := jb["layers"].([]any)
	if len(la) != len(lb) {
		return fmt.Errorf("the file's model has %d layers, this one %d", len(la), len(lb))
	}
	for i := range la {
		if !reflect.DeepEqual(la[i], lb[i]) {
			fa, _ := json.Marshal(la[i])
			fb, _ := json.Marshal(lb[i])
			return fmt.Errorf("layer %d differs: the file's is %s, this one's %s", i, fa, fb)
		}
	}
	fa, _ := json.Marshal(ja)
	fb, _ := json.Marshal(jb)
	return fmt.Errorf("the file's model is %s, this one %s", fa, fb)
}

// stripped returns s as a JSON object without the training-only fields.
func stripped(s model.Spec) map[string]any {
	data, _ := json.Marshal(s)
	var v map[string]any
	json.Unmarshal(data, &v)
	var strip func(x any)
	strip = func(x any) {
		switch t := x.(type) {
		case map[string]any:
			for _, k := range trainingOnly {
				delete(t, k)
			}
			for _, c := range t {
				strip(c)
			}
		case []any:
			for _, c := range t {
				strip(c)
			}
		}
	}
	strip(v)
	return v
}

// ModelAccuracy loads the model file at path and returns its accuracy on
// the dataset's nodes, predicted on the whole graph (model.Predict) from the
// dense features: what a program that has only the file (cmd/gnnserve)
// computes, against what the example printed.
func ModelAccuracy(path string, ds *dataset.Dataset, nodes []int32) (float64, error) {
	m, err := model.Load(path)
	if err != nil {
		return 0, err
	}
	f := ds.Features
	x := tensor.New(tensor.WithShape(f.Rows, f.Cols), tensor.WithBacking(f.ToDense()))
	logits, err := m.Predict(ds.Graph, x)
	if err != nil {
		return 0, err
	}
	return nn.Accuracy(logits, ds.Labels, nodes)
}
