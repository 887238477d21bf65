package train_test

import (
	"fmt"
	"math"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/internal/testkit/testsets"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
)

// coraTable returns Cora's row-normalised features as a dense table.
func coraTable(t *testing.T, dt tensor.Dtype) (*dataset.Dataset, *tensor.Dense) {
	t.Helper()
	ds := testsets.Planetoid(t, "cora")
	ds.Features.RowNormalize()
	d := ds.Features.ToDense()
	if dt == tensor.Float32 {
		return ds, tensor.New(tensor.WithShape(ds.Features.Rows, ds.Features.Cols), tensor.WithBacking(d))
	}
	v := make([]float64, len(d))
	for i, x := range d {
		v[i] = float64(x)
	}
	return ds, tensor.New(tensor.WithShape(ds.Features.Rows, ds.Features.Cols), tensor.WithBacking(v))
}

// gradients returns loss and the values of its gradients with respect to
// params, run on loss's graph.
func gradients(t *testing.T, loss *gorgonia.Node, params gorgonia.Nodes) (float64, [][]float64) {
	t.Helper()
	grads, err := gorgonia.Grad(loss, params...)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(loss.Graph())
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	var out [][]float64
	for _, g := range grads {
		out = append(out, append([]float64(nil), g.Value().Data().([]float64)...))
	}
	return loss.Value().Data().(float64), out
}

// TestBatchOfWholeTrainingSet checks that mini-batch GraphSAGE on Cora with
// fan-out -1 and one batch holding the whole training set gives the loss
// and parameter gradients of the full-graph model (float64).
func TestBatchOfWholeTrainingSet(t *testing.T) {
	t.Parallel()
	ds, feats := coraTable(t, tensor.Float64)
	m := &sage.Stack{Widths: []int{ds.Features.Cols, 16, ds.NumClasses}, Dtype: tensor.Float64}

	eg := gorgonia.NewGraph()
	h := gorgonia.NodeFromAny(eg, feats, gorgonia.WithName("x"))
	var params gorgonia.Nodes
	for l := range m.NumLayers() {
		var ps gorgonia.Nodes
		var err error
		if h, ps, err = m.Layer(eg, l, ds.Graph, h); err != nil {
			t.Fatal(err)
		}
		params = append(params, ps...)
	}
	loss, err := nn.CrossEntropy(h, ds.Labels, ds.Train)
	if err != nil {
		t.Fatal(err)
	}
	wantLoss, want := gradients(t, loss, params)

	sampler, err := sampling.NewMultiLayer(ds.Graph, []int{-1, -1}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := sampler.Sample(ds.Train, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(mb.InputNodes) >= ds.Graph.NumDst() {
		t.Fatalf("the batch reads all %d nodes; the test needs a proper subset", len(mb.InputNodes))
	}
	s, err := train.NewShared(0.01, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := train.BuildBatch(m, s, mb, feats)
	if err != nil {
		t.Fatal(err)
	}
	y, err := train.Labels(ds.Labels, mb.OutputNodes)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]int32, len(y))
	for i := range rows {
		rows[i] = int32(i)
	}
	bl, err := nn.CrossEntropy(b.Logits, y, rows)
	if err != nil {
		t.Fatal(err)
	}
	gotLoss, got := gradients(t, bl, b.Params)
	if math.Abs(gotLoss-wantLoss) > 1e-12 {
		t.Fatalf("batch loss %v, full-graph loss %v", gotLoss, wantLoss)
	}
	for p := range want {
		for i := range want[p] {
			if math.Abs(got[p][i]-want[p][i]) > 1e-12*(1+math.Abs(want[p][i])) {
				t.Fatalf("gradient of %s element %d: batch %v, full graph %v", params[p].Name(), i, got[p][i], want[p][i])
			}
		}
	}
}

// TestInferenceIsFullGraphForward checks that layer-wise inference in
// chunks computes the full-graph forward pass of the trained parameters.
func TestInferenceIsFullGraphForward(t *testing.T) {
	t.Parallel()
	ds, feats := coraTable(t, tensor.Float64)
	m := &sage.Stack{Widths: []int{ds.Features.Cols, 8, ds.NumClasses}, Dtype: tensor.Float64}
	s, err := train.NewShared(0.01, 0)
	if err != nil {
		t.Fatal(err)
	}
	sampler, err := sampling.NewMultiLayer(ds.Graph, []int{5, 5}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	loader, err := sampling.NewLoader(sampler, ds.Train, sampling.LoaderOptions{BatchSize: 64, Shuffle: true, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train.FitBatches(m, s, loader, feats, ds.Labels, 2, nil, nil); err != nil {
		t.Fatal(err)
	}
	got, err := train.Inference(m, s, ds.Graph, feats, 700, nil)
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	h := gorgonia.NodeFromAny(eg, feats, gorgonia.WithName("x"))
	var params gorgonia.Nodes
	for l := range m.NumLayers() {
		var ps gorgonia.Nodes
		if h, ps, err = m.Layer(eg, l, ds.Graph, h); err != nil {
			t.Fatal(err)
		}
		params = append(params, ps...)
	}
	if err := s.Bind(params); err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	want := h.Value().Data().([]float64)
	gd := got.Data().([]float64)
	if len(gd) != len(want) {
		t.Fatalf("inference gave %d values, the full graph %d", len(gd), len(want))
	}
	for i := range want {
		if math.Abs(gd[i]-want[i]) > 1e-12*(1+math.Abs(want[i])) {
			t.Fatalf("output %d: layer-wise %v, full graph %v", i, gd[i], want[i])
		}
	}
}

// TestFitBatchesCora trains GraphSAGE on Cora by mini-batches of sampled
// neighbours and checks the mean test accuracy of five seeds, evaluated by
// layer-wise inference.
func TestFitBatchesCora(t *testing.T) {
	if testing.Short() {
		t.Skip("trains five models")
	}
	t.Parallel()
	ds, feats := coraTable(t, tensor.Float32)
	sampler, err := sampling.NewMultiLayer(ds.Graph, []int{10, 10}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	const seeds = 5
	for seed := range seeds {
		mode := nn.NewMode()
		m := &sage.Stack{Widths: []int{ds.Features.Cols, 64, ds.NumClasses}, Dropout: 0.5, Mode: mode, Name: fmt.Sprintf("seed%d.sage", seed)}
		s, err := train.NewShared(0.01, 5e-4)
		if err != nil {
			t.Fatal(err)
		}
		loader, err := sampling.NewLoader(sampler, ds.Train, sampling.LoaderOptions{BatchSize: 35, Shuffle: true, Seed: uint64(seed)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := train.FitBatches(m, s, loader, feats, ds.Labels, 30, mode, nil); err != nil {
			t.Fatal(err)
		}
		logits, err := train.Inference(m, s, ds.Graph, feats, 1024, mode)
		if err != nil {
			t.Fatal(err)
		}
		acc, err := nn.Accuracy(logits, ds.Labels, ds.Test)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("seed %d: test accuracy %.4f", seed, acc)
		sum += acc
	}
	if mean := sum / seeds; mean < 0.80 {
		t.Fatalf("mean test accuracy over %d seeds %.4f, want at least 0.80", seeds, mean)
	}
}
