package model_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/model"
)

// smallSpec is a one-layer GraphConv model, 5 -> 2.
func smallSpec() model.Spec {
	return model.Spec{InFeatures: 5, SelfLoops: true, Layers: []model.LayerSpec{{Type: model.GraphConv, In: 5, Out: 2}}}
}

// saved returns the bytes of a saved small model.
func saved(t *testing.T) []byte {
	t.Helper()
	m, err := model.New(smallSpec(), tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.gnnmodel")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// reframe rebuilds a model file with the header fields and spec edit
// gives, and a correct checksum: a file that differs from a valid one only
// where a test wants it to.
func reframe(data []byte, edit func(version, dtype *uint32, spec []byte) []byte) []byte {
	version := binary.LittleEndian.Uint32(data[8:])
	dtype := binary.LittleEndian.Uint32(data[12:])
	n := binary.LittleEndian.Uint32(data[16:])
	spec := data[20 : 20+n]
	rest := data[20+n : len(data)-4]
	spec = edit(&version, &dtype, bytes.Clone(spec))
	var out []byte
	out = append(out, data[:8]...)
	out = binary.LittleEndian.AppendUint32(out, version)
	out = binary.LittleEndian.AppendUint32(out, dtype)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(spec)))
	out = append(out, spec...)
	out = append(out, rest...)
	return binary.LittleEndian.AppendUint32(out, crc32.Checksum(out, crc32.MakeTable(crc32.Castagnoli)))
}

// loadBytes writes data to a file and loads it.
func loadBytes(t *testing.T, data []byte) (*model.Model, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gnnmodel")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return model.Load(path)
}

// TestLoadErrors checks that bad files give errors naming what is wrong.
func TestLoadErrors(t *testing.T) {
	data := saved(t)
	if _, err := loadBytes(t, reframe(data, func(*uint32, *uint32, []byte) []byte { return nil })); err == nil {
		t.Fatal("reframe's empty spec loaded")
	}
	if _, err := loadBytes(t, reframe(data, func(_, _ *uint32, s []byte) []byte { return s })); err != nil {
		t.Fatalf("reframe without a change: %v", err)
	}
	corrupt := bytes.Clone(data)
	corrupt[len(corrupt)-10] ^= 0x10
	replace := func(old, new string) []byte {
		return reframe(data, func(_, _ *uint32, s []byte) []byte { return []byte(strings.Replace(string(s), old, new, 1)) })
	}
	params := filepath.Join("testdata", "gcn2-v1.params")
	paramData, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		want []string
	}{
		{"empty", nil, []string{"not a gnn model file"}},
		{"other", []byte("hello, world, this is not a model"), []string{"not a gnn model file", "magic"}},
		{"parameter file", paramData, []string{"a parameter file", "nn.LoadParams"}},
		{"truncated header", data[:14], []string{"truncated header"}},
		{"truncated", data[:len(data)-7], []string{"checksum mismatch"}},
		{"truncated checksum", data[:len(data)-2], []string{"checksum mismatch"}},
		{"corrupt", corrupt, []string{"checksum mismatch"}},
		{"newer version", reframe(data, func(v, _ *uint32, s []byte) []byte { *v = 2; return s }), []string{"format version 2", "newer"}},
		{"bad dtype", reframe(data, func(_, d *uint32, s []byte) []byte { *d = 7; return s }), []string{"dtype code 7"}},
		{"unknown layer type", replace(`"GraphConv"`, `"GraphConvX"`), []string{"layer 0", `unknown layer type "GraphConvX"`}},
		{"unknown field", replace(`"in":5`, `"inn":5`), []string{"spec", `unknown field "inn"`}},
		{"shape", replace(`"out":2`, `"out":3`), []string{"parameter 0 (layer 0 (gcn1, GraphConv))", `"gcn1.weight"`, "[5 2] in the file", "(5, 3) in the model"}},
		{"renamed", replace(`"name":"gcn1"`, `"name":"gcnA"`), []string{"parameter 0", `no parameter "gcn1.weight"`}},
		{"no bias", replace(`"type":"GraphConv"`, `"type":"GraphConv","no_bias":true`), []string{"the file holds 2 parameters, its spec has 1"}},
		{"too large", replace(`"out":2`, `"out":2000000000`), []string{"need at least", "bytes"}},
		{"trailing", append(bytes.Clone(data), 0, 0, 0, 0, 0), []string{"checksum mismatch"}},
		{"trailing, summed", reframe(append(bytes.Clone(data), 0, 0, 0, 0), func(_, _ *uint32, s []byte) []byte { return s }), []string{"unexpected data after the checksum"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := loadBytes(t, c.data)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range append(c.want, "model: load ", "m.gnnmodel") {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not say %q", msg, w)
				}
			}
		})
	}
	if _, err := model.Load(filepath.Join(t.TempDir(), "missing")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("missing file: %v", err)
	}
}

// TestNewErrors checks that specs that cannot be built give errors naming
// the layer and the field.
func TestNewErrors(t *testing.T) {
	with := func(edit func(s *model.Spec)) model.Spec {
		s := model.Spec{InFeatures: 5, Layers: []model.LayerSpec{
			{Type: model.GraphConv, In: 5, Out: 4},
			{Type: model.GATConv, In: 4, Out: 3, Heads: 2},
		}}
		edit(&s)
		return s
	}
	for _, c := range []struct {
		name string
		spec model.Spec
		want string
	}{
		{"no layers", model.Spec{InFeatures: 3}, "no layers"},
		{"unknown type", with(func(s *model.Spec) { s.Layers[1].Type = "GAT" }), `layer 1 (GAT): unknown layer type "GAT"`},
		{"field", with(func(s *model.Spec) { s.Layers[0].Heads = 2 }), "layer 0 (GraphConv): heads does not apply to GraphConv"},
		{"in features", with(func(s *model.Spec) { s.InFeatures = 6 }), "layer 0 (gcn1, GraphConv): in 5, but its input is 6 wide"},
		{"chain", with(func(s *model.Spec) { s.Layers[1].In = 5 }), "layer 1 (gat2, GATConv): in 5, but its input is 4 wide"},
		{"classes", with(func(s *model.Spec) { s.Classes = 3 }), "classes 3, but the output is 6 wide"},
		{"activation", with(func(s *model.Spec) { s.Layers[0].Activation = "swish" }), `layer 0 (gcn1, GraphConv): unknown activation "swish"`},
		{"dropout", with(func(s *model.Spec) { s.Layers[1].Dropout = 1 }), "layer 1 (gat2, GATConv): dropout 1: want a probability in [0, 1)"},
		{"names", with(func(s *model.Spec) { s.Layers[1].Name = "gcn1" }), `parameter "gcn1.weight" is also layer 0 (gcn1, GraphConv)'s`},
		{"norm", with(func(s *model.Spec) { s.Layers[0].Norm = "sym" }), `layer 0 (gcn1, GraphConv): unknown norm "sym"`},
		{"layer's own check", with(func(s *model.Spec) { s.Layers[1].Heads = -1 }), "layer 1 (gat2, GATConv): heads -1"},
		{"mlp", model.Spec{InFeatures: 3, Layers: []model.LayerSpec{{Type: model.GINConv, In: 3, Out: 4, MLP: []model.LayerSpec{{Type: model.GraphConv, In: 3, Out: 4}}}}},
			"layer 0 (gin1, GINConv): mlp layer 0 (GraphConv): only Linear and BatchNorm layers can go here"},
		{"head without readout", with(func(s *model.Spec) { s.Head = []model.LayerSpec{{Type: model.Linear, In: 6, Out: 2}} }), "head layers need a readout"},
		{"readout", with(func(s *model.Spec) { s.Readout = &model.ReadoutSpec{Type: "median"} }), `unknown readout "median"`},
		{"fanouts", with(func(s *model.Spec) { s.Fanouts = []int{5} }), "1 fanouts for 2 layers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := model.New(c.spec, tensor.Float32, 1)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q does not say %q", err, c.want)
			}
		})
	}
	if _, err := model.New(with(func(*model.Spec) {}), tensor.Int, 1); err == nil || !strings.Contains(err.Error(), "dtype int") {
		t.Errorf("dtype int: %v", err)
	}
}

// TestSetParamsErrors checks SetParams's refusals, and that they change
// nothing.
func TestSetParamsErrors(t *testing.T) {
	m, err := model.New(smallSpec(), tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := bits(t, m.Params()["gcn1.weight"])
	good := func() map[string]*tensor.Dense {
		return map[string]*tensor.Dense{"gcn1.weight": tensor.New(tensor.WithShape(5, 2), tensor.Of(tensor.Float32)), "gcn1.bias": tensor.New(tensor.WithShape(2), tensor.Of(tensor.Float32))}
	}
	for _, c := range []struct {
		name string
		edit func(v map[string]*tensor.Dense)
		want string
	}{
		{"missing", func(v map[string]*tensor.Dense) { delete(v, "gcn1.bias") }, `parameter "gcn1.bias" (layer 0 (gcn1, GraphConv)) is not given`},
		{"shape", func(v map[string]*tensor.Dense) {
			v["gcn1.weight"] = tensor.New(tensor.WithShape(2, 5), tensor.Of(tensor.Float32))
		},
			`parameter "gcn1.weight" (layer 0 (gcn1, GraphConv)): shape (2, 5) given, the model's is (5, 2)`},
		{"dtype", func(v map[string]*tensor.Dense) {
			v["gcn1.bias"] = tensor.New(tensor.WithShape(2), tensor.Of(tensor.Float64))
		}, "float64 given, the model is float32"},
		{"extra", func(v map[string]*tensor.Dense) { v["gcn2.bias"] = v["gcn1.bias"] }, `the model has no parameter "gcn2.bias"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := good()
			c.edit(v)
			err := m.SetParams(v)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
			if got := bits(t, m.Params()["gcn1.weight"]); !equalBits(got, before) {
				t.Errorf("a refused SetParams changed the weight")
			}
		})
	}
	if err := m.SetParams(good()); err != nil {
		t.Fatal(err)
	}
	for _, b := range bits(t, m.Params()["gcn1.weight"]) {
		if b != 0 {
			t.Fatal("SetParams did not copy the zeros")
		}
	}
}

func equalBits(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPredictErrors checks Predict's refusals of bad input.
func TestPredictErrors(t *testing.T) {
	m, err := model.New(smallSpec(), tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	g := testGraph(t, 6)
	for _, c := range []struct {
		name string
		x    *tensor.Dense
		want string
	}{
		{"nil", nil, "nil features"},
		{"width", features(tensor.Float32, 6, 4, 1), "features have shape (6, 4), want (6, 5)"},
		{"rows", features(tensor.Float32, 5, 5, 1), "features have shape (5, 5), want (6, 5)"},
		{"dtype", features(tensor.Float64, 6, 5, 1), "features are float64, the model is float32"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := m.Predict(g, c.x)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
	if _, err := m.Predict(nil, features(tensor.Float32, 6, 5, 1)); err == nil {
		t.Error("nil graph: no error")
	}
	if _, err := m.PredictGraphs(nil, nil); err == nil || !strings.Contains(err.Error(), "graph-level") {
		t.Errorf("PredictGraphs of a node model: %v", err)
	}
	if _, err := m.PredictHetero(nil, nil); err == nil {
		t.Errorf("PredictHetero of a node model: no error")
	}
}
