package model_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/model"
)

// randomize gives every parameter of m random values (biases included, so
// that a file that dropped them would show).
func randomize(t testing.TB, m *model.Model, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	vals := map[string]*tensor.Dense{}
	for name, v := range m.Params() {
		c := v.Clone().(*tensor.Dense)
		switch d := c.Data().(type) {
		case []float32:
			for i := range d {
				d[i] = float32(r.NormFloat64() * 0.5)
			}
		case []float64:
			for i := range d {
				d[i] = r.NormFloat64() * 0.5
			}
		}
		vals[name] = c
	}
	if err := m.SetParams(vals); err != nil {
		t.Fatal(err)
	}
}

// features returns an n x f tensor of random features.
func features(dt tensor.Dtype, n, f int, seed uint64) *tensor.Dense {
	r := rand.New(rand.NewPCG(seed, 9))
	if dt == tensor.Float64 {
		d := make([]float64, n*f)
		for i := range d {
			d[i] = r.NormFloat64()
		}
		return tensor.New(tensor.WithShape(n, f), tensor.WithBacking(d))
	}
	d := make([]float32, n*f)
	for i := range d {
		d[i] = float32(r.NormFloat64())
	}
	return tensor.New(tensor.WithShape(n, f), tensor.WithBacking(d))
}

// bits returns the bit patterns of a tensor's elements.
func bits(t testing.TB, v *tensor.Dense) []uint64 {
	t.Helper()
	var out []uint64
	switch d := v.Data().(type) {
	case []float32:
		for _, x := range d {
			out = append(out, uint64(math.Float32bits(x)))
		}
	case []float64:
		for _, x := range d {
			out = append(out, math.Float64bits(x))
		}
	default:
		t.Fatalf("output holds %T", v.Data())
	}
	return out
}

// node returns the homogeneous test graph: n nodes, random edges.
func testGraph(t testing.TB, n int) *graph.Graph {
	return testgraphs.Random(t, rand.New(rand.NewPCG(3, 4)), n, n, 4*n)
}

// nodeSpecs are node-level models of every layer type that runs on a
// homogeneous graph, as tests round-trip them.
func nodeSpecs() map[string]model.Spec {
	slope := 0.1
	return map[string]model.Spec{
		"GraphConv": {InFeatures: 5, Classes: 3, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.GraphConv, In: 5, Out: 4, Activation: "relu", Dropout: 0.5},
			{Type: model.GraphConv, In: 4, Out: 3, Norm: "right", Dropout: 0.5},
		}},
		"GraphConv-none-nobias": {InFeatures: 5, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.GraphConv, In: 5, Out: 2, Norm: "none", NoBias: true, Activation: "tanh"},
		}},
		"SAGEConv": {InFeatures: 5, Classes: 3, Fanouts: []int{10, 5}, Layers: []model.LayerSpec{
			{Type: model.SAGEConv, In: 5, Out: 6, Activation: "relu"},
			{Type: model.SAGEConv, In: 6, Out: 3, Dropout: 0.5},
		}},
		"SAGEConv-pool-gcn": {InFeatures: 5, Layers: []model.LayerSpec{
			{Type: model.SAGEConv, In: 5, Out: 6, Aggregator: "pool", Activation: "elu"},
			{Type: model.SAGEConv, In: 6, Out: 3, Aggregator: "gcn"},
		}},
		"GATConv": {InFeatures: 5, Classes: 3, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.GATConv, In: 5, Out: 4, Heads: 2, Activation: "elu", Dropout: 0.6, AttnDropout: 0.6},
			{Type: model.GATConv, In: 8, Out: 3, Heads: 2, MeanHeads: true, Residual: true, NegativeSlope: &slope},
		}},
		"GATv2Conv": {InFeatures: 5, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.GATv2Conv, In: 5, Out: 4, Heads: 2, Activation: "relu", Dropout: 0.3},
			{Type: model.GATv2Conv, In: 8, Out: 3, Heads: 3, MeanHeads: true, ShareWeights: true, Residual: true},
		}},
		"GINConv": {InFeatures: 5, Layers: []model.LayerSpec{
			{Type: model.GINConv, In: 5, Out: 6, LearnEps: true, Eps: 0.1, Activation: "relu", MLP: []model.LayerSpec{
				{Type: model.Linear, In: 5, Out: 6},
				{Type: model.BatchNorm, In: 6, Activation: "relu"},
				{Type: model.Linear, In: 6, Out: 6},
			}},
			{Type: model.GINConv, In: 6, Out: 6, Aggregator: "max", Dropout: 0.2},
		}},
		"APPNP": {InFeatures: 5, Classes: 3, Layers: []model.LayerSpec{
			{Type: model.Linear, In: 5, Out: 8, Activation: "relu", Dropout: 0.5},
			{Type: model.Linear, In: 8, Out: 3},
			{Type: model.APPNPConv, In: 3, K: 4, Alpha: 0.1, EdgeDropout: 0.2},
		}},
		"SGConv": {InFeatures: 5, SelfLoops: true, Layers: []model.LayerSpec{
			{Type: model.SGConv, In: 5, Out: 3, K: 2},
		}},
		"TAGConv": {InFeatures: 5, Layers: []model.LayerSpec{
			{Type: model.TAGConv, In: 5, Out: 4, K: 3, Activation: "relu"},
			{Type: model.TAGConv, In: 4, Out: 3, NoBias: true},
		}},
		"ChebConv": {InFeatures: 5, Layers: []model.LayerSpec{
			{Type: model.ChebConv, In: 5, Out: 4, K: 3, Activation: "relu", LambdaMax: 1.5},
			{Type: model.ChebConv, In: 4, Out: 3, K: 2},
		}},
		"BatchNorm": {InFeatures: 5, Layers: []model.LayerSpec{
			{Type: model.BatchNorm, In: 5, Eps: 1e-3},
			{Type: model.GraphConv, In: 5, Out: 3, AllowZeroInDegree: true, Activation: "sigmoid"},
		}},
	}
}

// TestRoundTrip builds every node-level model, saves it, loads it and checks
// that the loaded model has the same spec and predicts the same bits, in
// both dtypes.
func TestRoundTrip(t *testing.T) {
	g := testGraph(t, 12)
	for name, spec := range nodeSpecs() {
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			t.Run(name+"/"+dt.String(), func(t *testing.T) {
				m, err := model.New(spec, dt, 11)
				if err != nil {
					t.Fatal(err)
				}
				randomize(t, m, 5)
				x := features(dt, g.NumSrc(), spec.InFeatures, 1)
				want, err := m.Predict(g, x)
				if err != nil {
					t.Fatal(err)
				}
				if s := want.Shape(); s[0] != g.NumDst() || s[1] != m.Spec().OutFeatures() {
					t.Fatalf("output shape %v, want (%d, %d)", s, g.NumDst(), m.Spec().OutFeatures())
				}
				path := filepath.Join(t.TempDir(), "m.gnnmodel")
				if err := m.Save(path); err != nil {
					t.Fatal(err)
				}
				got, err := model.Load(path)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Spec(), m.Spec()) {
					t.Errorf("spec after loading:\n%+v\nwant\n%+v", got.Spec(), m.Spec())
				}
				if got.Dtype() != dt {
					t.Errorf("dtype %v after loading, want %v", got.Dtype(), dt)
				}
				out, err := got.Predict(g, x)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(bits(t, out), bits(t, want)) {
					t.Errorf("outputs differ after loading")
				}
				again, err := m.Predict(g, x)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(bits(t, again), bits(t, want)) {
					t.Errorf("a second Predict differs from the first")
				}
			})
		}
	}
}
