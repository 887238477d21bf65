package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"flag"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/model"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
	"github.com/gnngo/gnn/serve"
)

// parse returns the options of args, failing the test on a parse error.
func parse(t *testing.T, args ...string) *options {
	t.Helper()
	o := defaults()
	fs := flag.NewFlagSet("gnnserve", flag.ContinueOnError)
	o.register(fs)
	if err := o.parse(fs, args); err != nil {
		t.Fatal(err)
	}
	return &o
}

// cora returns the Planetoid Cora directory, skipping the test without it.
func cora(t *testing.T) string {
	root := "../../../shared/data/planetoid"
	if env := os.Getenv("GNN_PLANETOID_DIR"); env != "" {
		root = env
	}
	dir := filepath.Join(root, "cora")
	if _, err := os.Stat(filepath.Join(dir, "meta.txt")); err != nil {
		t.Skipf("Planetoid cora not found at %s; set GNN_PLANETOID_DIR", dir)
	}
	return dir
}

// TestOnceServesTrainedSAGE trains a two-layer SAGE on Cora as
// examples/sage did, saves its parameters, and checks that gnnserve -once
// with -arch sage -params predicts every node as layer-wise inference
// (train.Inference) does, probabilities to the bit.
func TestOnceServesTrainedSAGE(t *testing.T) {
	dir := cora(t)
	ds, err := serve.LoadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Graph, _, err = ds.Graph.ReorderEdges(graph.ByDst); err != nil {
		t.Fatal(err)
	}
	d, err := serve.NewData(ds)
	if err != nil {
		t.Fatal(err)
	}
	s, err := train.NewShared(0.01, 5e-4)
	if err != nil {
		t.Fatal(err)
	}
	m := &sage.Stack{Widths: []int{d.Features.Shape()[1], 16, ds.NumClasses}, Name: "sage", Values: s.Value}
	smp, err := sampling.NewMultiLayer(ds.Graph, []int{10, 5}, sampling.Options{})
	if err != nil {
		t.Fatal(err)
	}
	loader, err := sampling.NewLoader(smp, ds.Train, sampling.LoaderOptions{BatchSize: 64, Shuffle: true, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := train.FitBatches(m, s, loader, d.Features, ds.Labels, 2, nil, nil); err != nil {
		t.Fatal(err)
	}
	params := filepath.Join(t.TempDir(), "sage.params")
	if err := nn.SaveParams(params, s.Nodes()); err != nil {
		t.Fatal(err)
	}
	logits, err := train.Inference(m, s, ds.Graph, d.Features, 1000, nil)
	if err != nil {
		t.Fatal(err)
	}
	acc, err := nn.Accuracy(logits, ds.Labels, ds.Test)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pred.csv")
	o := parse(t, "-data", dir, "-layers", "2", "-hidden", "16", "-params", params, "-once", "-out", out, "-max-nodes", "1000")
	if err := run(o, nil); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != ds.Graph.NumDst()+1 || strings.Join(recs[0], ",") != "node,class,p0,p1,p2,p3,p4,p5,p6" {
		t.Fatalf("%d lines, header %v", len(recs), recs[0])
	}
	correct := 0
	test := map[int]bool{}
	for _, v := range ds.Test {
		test[int(v)] = true
	}
	for i, r := range recs[1:] {
		node, _ := strconv.Atoi(r[0])
		class, _ := strconv.Atoi(r[1])
		row := logits.Data().([]float32)[node*7 : node*7+7]
		want := make([]float64, 7)
		for c, v := range row {
			want[c] = float64(v)
		}
		wc, wp := softmaxRef(want)
		if node != i || class != wc {
			t.Fatalf("line %d: node %d class %d, want node %d class %d", i+2, node, class, i, wc)
		}
		for c, s := range r[2:] {
			if p, _ := strconv.ParseFloat(s, 64); p != wp[c] {
				t.Fatalf("node %d: p%d %v, want %v", node, c, p, wp[c])
			}
		}
		if test[node] && int32(class) == ds.Labels[node] {
			correct++
		}
	}
	if got := float64(correct) / float64(len(ds.Test)); got != acc {
		t.Errorf("test accuracy of the CSV %.4f, of layer-wise inference %.4f", got, acc)
	}
	t.Logf("test accuracy %.4f after 2 epochs", acc)
}

// softmaxRef returns the class and probabilities the server gives for
// logits xs: the first largest, and their softmax.
func softmaxRef(xs []float64) (int, []float64) {
	best := 0
	for i, v := range xs {
		if v > xs[best] {
			best = i
		}
	}
	p := make([]float64, len(xs))
	var sum float64
	for i, v := range xs {
		p[i] = math.Exp(v - xs[best])
		sum += p[i]
	}
	for i := range p {
		p[i] /= sum
	}
	return best, p
}

// TestListenShutdown runs the command's server on 127.0.0.1 with a
// generated graph and random weights, waits for /healthz, asks a
// prediction, then cancels (as SIGTERM does) and checks a clean exit.
func TestListenShutdown(t *testing.T) {
	before := runtime.NumGoroutine()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	o := parse(t, "-nodes", "200", "-features", "8", "-classes", "3", "-layers", "2", "-hidden", "8", "-random-weights", "-fanouts", "4,3", "-addr", addr)
	if err := o.check(); err != nil {
		t.Fatal(err)
	}
	cfg, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	s, err := serve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- listen(ctx, o, s) }()
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	url := "http://" + addr
	for i := 0; ; i++ {
		resp, err := client.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if i > 500 {
			t.Fatalf("not ready after 5 s: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	resp, err := client.Post(url+"/v1/predict", "application/json", strings.NewReader(`{"nodes":[0,199]}`))
	if err != nil {
		t.Fatal(err)
	}
	var p serve.PredictResponse
	json.NewDecoder(resp.Body).Decode(&p)
	resp.Body.Close()
	if resp.StatusCode != 200 || len(p.Predictions) != 2 || len(p.Predictions[1].Probabilities) != 3 {
		t.Errorf("predict: %d %+v", resp.StatusCode, p)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("listen returned %v", err)
	}
	for i := 0; runtime.NumGoroutine() > before && i < 300; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines before, %d after", before, n)
	}
}

// TestBench runs the load client against a small server.
func TestBench(t *testing.T) {
	o := parse(t, "-nodes", "100", "-features", "4", "-classes", "3", "-layers", "2", "-hidden", "4", "-random-weights", "-cache")
	cfg, _ := o.config()
	s, err := serve.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := load(o, s); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	defer ts.Close()
	defer s.Close()
	r, err := bench(ts.URL, 120, 6, 3, "predict", 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Requests != 120 || r.Errors != 0 || len(r.Latencies) != 120 || len(r.Heap) < 2 {
		t.Errorf("%d requests, %d errors %v, %d latencies, %d heap samples", r.Requests, r.Errors, r.Codes, len(r.Latencies), len(r.Heap))
	}
	var b bytes.Buffer
	r.print(&b, 6, 3, "predict")
	if !strings.Contains(b.String(), "latency ms: p50 ") || !strings.Contains(b.String(), "120 requests (0 errors") {
		t.Errorf("output:\n%s", b.String())
	}
}

// TestFlagErrors checks that wrong flags are refused naming the flag.
func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{}, "no model: give -model FILE"},
		{[]string{"-random-weights", "-fanouts", "1,x"}, `-fanouts "1,x"`},
		{[]string{"-random-weights", "-aggregator", "lstm"}, `-aggregator "lstm"`},
		{[]string{"-model", "m", "-hidden", "3"}, "-model describes the model"},
		{[]string{"-random-weights", "-params", "p"}, "exclude each other"},
		{[]string{"-random-weights", "-data", "x", "-nodes", "5"}, "-nodes shapes the generated graph"},
		{[]string{"-random-weights", "-ids", "1"}, "-ids and -out apply to -once"},
		{[]string{"-bench", "http://x", "-bench-clients", "0"}, "-bench-clients 0"},
		{[]string{"-random-weights", "-timeout", "0s"}, "-timeout"},
	} {
		o := parse(t, tc.args...)
		if err := o.check(); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.msg)
		}
	}
}

// TestOnceModelFile saves a GCN model file (self-loops, symmetric norm, as
// examples/gcn trains it) and checks that -once -model predicts every Cora
// node as the model's own Predict does, to the bit.
func TestOnceModelFile(t *testing.T) {
	dir := cora(t)
	ds, err := serve.LoadDataset(dir)
	if err != nil {
		t.Fatal(err)
	}
	spec := model.Spec{InFeatures: ds.Features.Cols, Classes: ds.NumClasses, SelfLoops: true, Layers: []model.LayerSpec{
		{Type: model.GraphConv, In: ds.Features.Cols, Out: 16, Activation: "relu", Dropout: 0.5},
		{Type: model.GraphConv, In: 16, Out: ds.NumClasses, Dropout: 0.5}}}
	m, err := model.New(spec, tensor.Float32, 1)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gcn.gnnmodel")
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	// The command numbers the edges by destination; Predict on that graph.
	g, _, err := ds.Graph.ReorderEdges(graph.ByDst)
	if err != nil {
		t.Fatal(err)
	}
	d, err := serve.NewData(ds)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Predict(g, d.Features)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pred.csv")
	if err := run(parse(t, "-data", dir, "-model", path, "-once", "-out", out, "-ids", "0,1,2,2707,5"), nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 6 {
		t.Fatalf("%d lines:\n%s", len(lines), b)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		node, _ := strconv.Atoi(f[0])
		row := make([]float64, ds.NumClasses)
		for c, v := range want.Data().([]float32)[node*ds.NumClasses : (node+1)*ds.NumClasses] {
			row[c] = float64(v)
		}
		class, probs := softmaxRef(row)
		if f[1] != strconv.Itoa(class) {
			t.Errorf("node %d: class %s, want %d", node, f[1], class)
		}
		for c, p := range probs {
			if f[2+c] != strconv.FormatFloat(p, 'g', -1, 64) {
				t.Errorf("node %d: p%d %s, want %v", node, c, f[2+c], p)
			}
		}
	}
}
