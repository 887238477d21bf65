package serve_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/nn/sage"
	"github.com/gnngo/gnn/nn/train"
	"github.com/gnngo/gnn/sampling"
	"github.com/gnngo/gnn/serve"
)

// Example serves a two-layer GraphSAGE built in code (here untrained) on a
// generated graph, and asks for predictions over HTTP and directly.
func Example() {
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features, cfg.Classes = 200, 16, 4
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		panic(err)
	}
	data, err := serve.NewData(ds)
	if err != nil {
		panic(err)
	}
	// The model: a SAGE stack and its parameters, bound once by building it
	// on one node's neighbourhood (as training does on every batch).
	params, _ := train.NewShared(0.01, 0)
	stack := &sage.Stack{Widths: []int{16, 32, 4}, Name: "sage", Values: params.Value}
	smp, _ := sampling.NewMultiLayer(ds.Graph, []int{5, 5}, sampling.Options{})
	mb, _ := smp.Sample([]int32{0}, 0)
	if _, err := train.BuildBatch(stack, params, mb, data.Features); err != nil {
		panic(err)
	}
	model := &serve.Model{Stack: stack, Params: params, InFeatures: 16, Fanouts: []int{5, 5}}

	s, err := serve.New(serve.Config{})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	if err := s.Start(data, model); err != nil {
		panic(err)
	}
	ts := httptest.NewServer(s) // or http.ListenAndServe(addr, s)
	defer ts.Close()

	resp, err := http.Post(ts.URL+"/v1/predict", "application/json", strings.NewReader(`{"nodes":[0,1,2]}`))
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Status, strings.HasPrefix(string(body), `{"predictions":[{"node":0,"class":`))

	// Without HTTP: a new node with its features and an edge from node 3.
	p, err := s.Predict(context.Background(), &serve.PredictRequest{NewNodes: []serve.NewNode{{Features: make([]float64, 16), InEdges: []int64{3}}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Predictions[0].Node, p.Predictions[0].New, len(p.Predictions[0].Probabilities))
	// Output:
	// 200 OK true
	// 200 true 4
}
