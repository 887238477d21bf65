package train_test

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
)

// fitBatchesRun trains a two-layer GraphSAGE with dropout for two epochs of
// mini-batches on a small planted graph with GOMAXPROCS procs, the layers
// taking their values from the shared model on rebuilds when values is
// set, and returns the per-epoch losses and the final shared parameter
// values.
func fitBatchesRun(t *testing.T, procs int, values bool) ([]float64, [][]float32) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Classes, cfg.Features = 1500, 5, 16
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	feats := tensor.New(tensor.WithShape(ds.Features.Rows, ds.Features.Cols), tensor.WithBacking(ds.Features.ToDense()))
	sampler, err := sampling.NewMultiLayer(ds.Graph, []int{8, 4}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	loader, err := sampling.NewLoader(sampler, ds.Train, sampling.LoaderOptions{BatchSize: 30, Shuffle: true, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	mode := nn.NewMode()
	s, err := train.NewShared(0.01, 5e-4)
	if err != nil {
		t.Fatal(err)
	}
	m := &sage.Stack{Widths: []int{cfg.Features, 24, cfg.Classes}, Dropout: 0.5, Mode: mode}
	if values {
		m.Values = s.Value
	}
	hist, err := train.FitBatches(m, s, loader, feats, ds.Labels, 2, mode, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Batches < 3 {
		t.Fatalf("history %+v, want 2 epochs of at least 3 batches", hist)
	}
	var losses []float64
	for _, e := range hist {
		losses = append(losses, e.Loss)
	}
	var final [][]float32
	for _, p := range s.Nodes() {
		final = append(final, slices.Clone(p.Value().Data().([]float32)))
	}
	return losses, final
}

// TestFitBatchesGOMAXPROCS checks that mini-batch training (sampling,
// prefetching, dropout, the fused ops, Adam) gives bit-identical losses and
// parameters whatever GOMAXPROCS is.
func TestFitBatchesGOMAXPROCS(t *testing.T) {
	loss1, val1 := fitBatchesRun(t, 1, false)
	loss2, val2 := fitBatchesRun(t, 2, false)
	sameRun(t, "GOMAXPROCS 1", "GOMAXPROCS 2", loss1, loss2, val1, val2)
}

// TestFitBatchesValues checks that layers starting from the shared values
// on every rebuild (sage.Stack's Values = Shared.Value, which skips the
// initial draw) train exactly as layers whose fresh draw Bind replaces.
func TestFitBatchesValues(t *testing.T) {
	loss1, val1 := fitBatchesRun(t, 2, false)
	loss2, val2 := fitBatchesRun(t, 2, true)
	sameRun(t, "drawn then bound", "from Shared.Value", loss1, loss2, val1, val2)
}

// sameRun fails unless two runs' losses and parameters are identical.
func sameRun(t *testing.T, a, b string, lossA, lossB []float64, valA, valB [][]float32) {
	t.Helper()
	if !slices.Equal(lossA, lossB) {
		t.Fatalf("epoch losses %v (%s), %v (%s)", lossA, a, lossB, b)
	}
	for i := range valA {
		if !slices.Equal(valA[i], valB[i]) {
			t.Fatalf("parameter %d differs between %s and %s", i, a, b)
		}
	}
}

// TestSharedValue checks that Value returns the bound tensors by name and
// nil for unknown names.
func TestSharedValue(t *testing.T) {
	s, err := train.NewShared(0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Value("w") != nil {
		t.Fatal("Value of an unbound name is not nil")
	}
	w := param("w", tensor.Float32, 2, 3)
	if err := s.Bind(gorgonia.Nodes{w}); err != nil {
		t.Fatal(err)
	}
	if s.Value("w") != w.Value() || s.Value("b") != nil {
		t.Fatalf("Value(w) = %v, Value(b) = %v", s.Value("w"), s.Value("b"))
	}
}

// param returns a parameter node named name holding a float32 tensor of
// the given shape on a new graph.
func param(name string, dt tensor.Dtype, shape ...int) *gorgonia.Node {
	return nn.Param(gorgonia.NewGraph(), name, nn.Zeros(dt, shape...))
}

func TestSharedErrors(t *testing.T) {
	if _, err := train.NewShared(0, 0); err == nil || !strings.Contains(err.Error(), "learning rate 0") {
		t.Errorf("learning rate 0: %v", err)
	}
	if _, err := train.NewShared(0.1, -1); err == nil || !strings.Contains(err.Error(), "weight decay -1") {
		t.Errorf("weight decay -1: %v", err)
	}
	s, err := train.NewShared(0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Bind(gorgonia.Nodes{param("w", tensor.Float32, 2, 3), param("b", tensor.Float32, 3)}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p    *gorgonia.Node
		want string
	}{
		{param("w", tensor.Float32, 3, 2), `parameter "w" is float32 (3, 2) on this graph but float32 (2, 3) in the shared model`},
		{param("w", tensor.Float64, 2, 3), `parameter "w" is float64 (2, 3) on this graph but float32 (2, 3)`},
		{param("b", tensor.Float32, 4), `parameter "b" is float32 (4) on this graph but float32 (3)`},
	} {
		if err := s.Bind(gorgonia.Nodes{c.p}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Bind %v %v: error %v, want %q", c.p.Name(), c.p.Shape(), err, c.want)
		}
	}
	if got := s.Names(); !slices.Equal(got, []string{"w", "b"}) {
		t.Errorf("names %v after refused binds, want [w b]", got)
	}

	// Step: the parameters must be exactly the shared ones.
	eg := gorgonia.NewGraph()
	w := nn.Param(eg, "w", nn.Zeros(tensor.Float32, 2, 3))
	b := nn.Param(eg, "b", nn.Zeros(tensor.Float32, 3))
	other := nn.Param(eg, "c", nn.Zeros(tensor.Float32, 3))
	if err := s.Bind(gorgonia.Nodes{w, b}); err != nil {
		t.Fatal(err)
	}
	loss := gorgonia.Must(gorgonia.Sum(gorgonia.Must(gorgonia.Add(gorgonia.Must(gorgonia.Sum(w, 0)), b))))
	for _, c := range []struct {
		params gorgonia.Nodes
		want   string
	}{
		{gorgonia.Nodes{w}, "step over 1 parameters, the shared model has 2"},
		{gorgonia.Nodes{w, w}, `parameter "w" is not bound or given twice`},
		{gorgonia.Nodes{w, other}, `parameter "c" is not bound or given twice`},
	} {
		if _, err := s.Step(loss, c.params); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Step over %v: error %v, want %q", c.params, err, c.want)
		}
	}
	if _, err := s.Step(loss, gorgonia.Nodes{b, w}); err != nil {
		t.Errorf("Step in another order: %v", err)
	}
}

// TestFitBatchesMatchesSteps checks FitBatches, which gathers each batch's
// input rows ahead into recycled buffers, against the plain loop over the
// loader's batches (BuildBatch, CrossEntropy, Step): the losses and the
// final parameters must be identical, so no buffer is overwritten while a
// batch reads it. A label out of range must stop it with an error.
func TestFitBatchesMatchesSteps(t *testing.T) {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Classes, cfg.Features = 1500, 5, 16
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	feats := tensor.New(tensor.WithShape(ds.Features.Rows, ds.Features.Cols), tensor.WithBacking(ds.Features.ToDense()))
	sampler, err := sampling.NewMultiLayer(ds.Graph, []int{8, 4}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	loader, err := sampling.NewLoader(sampler, ds.Train, sampling.LoaderOptions{BatchSize: 16, Shuffle: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	model := func() (*sage.Stack, *train.Shared) {
		s, err := train.NewShared(0.01, 0)
		if err != nil {
			t.Fatal(err)
		}
		return &sage.Stack{Widths: []int{cfg.Features, 24, cfg.Classes}, Values: s.Value}, s
	}
	const epochs = 2
	m, s := model()
	hist, err := train.FitBatches(m, s, loader, feats, ds.Labels, epochs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	for _, e := range hist {
		got = append(got, e.Loss)
	}

	m, ref := model()
	var want []float64
	for ep := range epochs {
		var sum float64
		var n int
		for mb, err := range loader.Epoch(ep) {
			if err != nil {
				t.Fatal(err)
			}
			b, err := train.BuildBatch(m, ref, mb, feats)
			if err != nil {
				t.Fatal(err)
			}
			y, err := train.Labels(ds.Labels, mb.OutputNodes)
			if err != nil {
				t.Fatal(err)
			}
			idx := make([]int32, len(y))
			for i := range idx {
				idx[i] = int32(i)
			}
			loss, err := nn.CrossEntropy(b.Logits, y, idx)
			if err != nil {
				t.Fatal(err)
			}
			l, err := ref.Step(loss, b.Params)
			if err != nil {
				t.Fatal(err)
			}
			sum += l * float64(len(y))
			n += len(y)
		}
		want = append(want, sum/float64(n))
	}
	var vs, vr [][]float32
	for i, p := range s.Nodes() {
		vs = append(vs, p.Value().Data().([]float32))
		vr = append(vr, ref.Nodes()[i].Value().Data().([]float32))
	}
	sameRun(t, "FitBatches", "the plain loop", got, want, vs, vr)

	bad := slices.Clone(ds.Labels)
	bad[ds.Train[len(ds.Train)-1]] = int32(cfg.Classes)
	m, s = model()
	if _, err := train.FitBatches(m, s, loader, feats, bad, 1, nil, nil); err == nil || !strings.Contains(err.Error(), "epoch 1") {
		t.Errorf("a label out of range: error %v, want one naming epoch 1", err)
	}
}
