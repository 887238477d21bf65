package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
)

// tinyData is a planted-partition graph of n nodes with f features and 3
// classes.
func tinyData(t testing.TB, n, f int, seed uint64) *Data {
	t.Helper()
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features, cfg.Classes, cfg.TrainPerClass, cfg.Val, cfg.Test, cfg.Seed = n, f, 3, 2, 5, 5, seed
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewData(ds)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// bind builds m's stack once on node 0's full neighbourhood so that its
// parameters hold every name.
func bind(t testing.TB, m *Model, d *Data) {
	t.Helper()
	smp, err := sampling.NewMultiLayer(d.Graph, m.fanouts(m.Stack.NumLayers()), sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := smp.Sample([]int32{0}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train.BuildBatch(m.Stack, m.Params, mb, d.Features); err != nil {
		t.Fatal(err)
	}
}

// sageModel is a SAGE stack of the given widths (mean aggregator, dropout
// 0.5 so that evaluation mode matters) with random weights.
func sageModel(t testing.TB, d *Data, widths []int, fanouts []int) *Model {
	t.Helper()
	s, err := train.NewShared(0.01, 0)
	if err != nil {
		t.Fatal(err)
	}
	mode := nn.NewMode()
	m := &Model{Stack: &sage.Stack{Widths: widths, Dropout: 0.5, Mode: mode, Name: "sage", Values: s.Value},
		Params: s, InFeatures: widths[0], Fanouts: fanouts, Mode: mode}
	bind(t, m, d)
	return m
}

// gcnStack is a stack of GraphConv layers with ReLU between them.
type gcnStack struct {
	widths []int
	norm   gcn.Norm
	values nn.Values
}

func (s *gcnStack) NumLayers() int { return len(s.widths) - 1 }

func (s *gcnStack) Layer(eg *gorgonia.ExprGraph, l int, g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, gorgonia.Nodes, error) {
	opts := []gcn.Option{gcn.WithName(fmt.Sprintf("gcn%d", l+1)), gcn.WithNorm(s.norm), gcn.WithAllowZeroInDegree(true), gcn.WithValues(s.values)}
	if l < s.NumLayers()-1 {
		opts = append(opts, gcn.WithActivation(nn.ReLU))
	}
	layer, err := gcn.New(eg, s.widths[l], s.widths[l+1], opts...)
	if err != nil {
		return nil, nil, err
	}
	out, err := layer.Forward(g, x)
	if err != nil {
		return nil, nil, err
	}
	return out, layer.Learnables(), nil
}

// gcnModel is a GCN stack with random weights; its Whole runs it on the
// whole graph.
func gcnModel(t testing.TB, d *Data, widths []int, norm gcn.Norm) *Model {
	t.Helper()
	s, err := train.NewShared(0.01, 0)
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{Stack: &gcnStack{widths: widths, norm: norm, values: s.Value}, Params: s, InFeatures: widths[0]}
	bind(t, m, d)
	m.Whole = func(g *graph.Graph, x *tensor.Dense) (*tensor.Dense, error) {
		return wholeForward(m, g, x, m.Stack.NumLayers())
	}
	return m
}

// wholeForward runs the first depth layers of m on the whole graph g.
func wholeForward(m *Model, g *graph.Graph, x *tensor.Dense, depth int) (*tensor.Dense, error) {
	eg := gorgonia.NewGraph()
	h := gorgonia.NodeFromAny(eg, x, gorgonia.WithName("x"))
	for l := range depth {
		out, ps, err := m.Stack.Layer(eg, l, g, h)
		if err != nil {
			return nil, err
		}
		if err := m.Params.Bind(ps); err != nil {
			return nil, err
		}
		h = out
	}
	vm := gorgonia.NewTapeMachine(eg.SubgraphRoots(h))
	defer nn.CloseVM(vm)
	if err := vm.RunAll(); err != nil {
		return nil, err
	}
	return h.Value().(*tensor.Dense), nil
}

// sampledForward runs m on the mini-batch its sampler draws for nodes
// (distinct) with seed, as training builds it (train.BuildBatch).
func sampledForward(t testing.TB, m *Model, d *Data, nodes []int32, depth int, seed uint64) *tensor.Dense {
	t.Helper()
	smp, err := sampling.NewMultiLayer(d.Graph, m.fanouts(depth), sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mb, err := smp.Sample(nodes, seed)
	if err != nil {
		t.Fatal(err)
	}
	b, err := train.BuildBatch(prefix{m.Stack, depth}, m.Params, mb, d.Features)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(b.Logits.Graph().SubgraphRoots(b.Logits))
	defer nn.CloseVM(vm)
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return b.Logits.Value().(*tensor.Dense)
}

// row returns row i of t as float64s.
func row(t *tensor.Dense, i int) []float64 { return rowsOf(t, []int32{int32(i)})[0] }

// start returns a started server and an httptest server on it, closed at
// the end of the test.
func start(t testing.TB, cfg Config, d *Data, m *Model) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Start(d, m); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() {
		ts.Close()
		s.Close()
	})
	return s, ts
}

// post sends body (marshalled unless a string) to url and decodes the
// answer into out when it is 200; it returns the status and the raw body.
func post(t testing.TB, url string, body any, out any) (int, string) {
	t.Helper()
	var raw []byte
	if s, ok := body.(string); ok {
		raw = []byte(s)
	} else {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(raw))
	if err != nil {
		t.Error(err)
		return 0, ""
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	buf.ReadFrom(resp.Body)
	if resp.StatusCode == http.StatusOK && out != nil {
		if err := json.Unmarshal(buf.Bytes(), out); err != nil {
			t.Errorf("decoding %s: %v", buf.String(), err)
		}
	}
	return resp.StatusCode, buf.String()
}

// noLeak fails t if the number of goroutines has not come back to before
// within a few seconds.
func noLeak(t *testing.T, before int) {
	t.Helper()
	var now int
	for range 200 {
		now = runtime.NumGoroutine()
		if now <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	buf := make([]byte, 1<<16)
	buf = buf[:runtime.Stack(buf, true)]
	t.Errorf("%d goroutines before, %d after:\n%s", before, now, buf)
}

// sameRow reports whether got equals want to the bit, naming the first
// difference.
func sameRow(got, want []float64) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d values, want %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Errorf("value %d is %v, want %v", i, got[i], want[i])
		}
	}
	return nil
}
