package serve

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/gcn"
	"gorgonia.org/tensor"
)

// TestConcurrentRequestsEqualForward fires 50 concurrent requests of a few
// nodes each (repeats included) and checks every answer against a direct
// forward pass: the same sampled mini-batch built as training builds it in
// sampled mode, the model on the whole graph in full-neighbourhood and
// cached modes. Equality is to the bit: batching runs each node on its own
// rows and edges.
func TestConcurrentRequestsEqualForward(t *testing.T) {
	d := tinyData(t, 60, 8, 1)
	for _, tc := range []struct {
		name    string
		fanouts []int
		cache   bool
	}{{"sampled", []int{3, 3, 2}, false}, {"full", nil, false}, {"cached", nil, true}} {
		t.Run(tc.name, func(t *testing.T) {
			m := sageModel(t, d, []int{8, 16, 16, 3}, tc.fanouts)
			m.Mode.Eval()
			_, ts := start(t, Config{Cache: tc.cache, MaxBatch: 16}, d, m)
			L := m.Stack.NumLayers()
			whole, err := wholeForward(m, d.Graph, d.Features, L)
			if err != nil {
				t.Fatal(err)
			}
			const clients = 50
			type call struct {
				req  EmbedRequest
				want [][]float64
			}
			calls := make([]call, clients)
			for i := range calls {
				rng := rand.New(rand.NewPCG(uint64(i), 7))
				var nodes []int64
				for range 1 + rng.IntN(5) {
					nodes = append(nodes, int64(rng.IntN(60)))
				}
				if i%3 == 0 {
					nodes = append(nodes, nodes[0]) // a repeat
				}
				seed := uint64(i)
				c := call{req: EmbedRequest{PredictRequest: PredictRequest{Nodes: nodes, Seed: &seed}}}
				var distinct []int32
				for _, v := range nodes {
					if !slices.Contains(distinct, int32(v)) {
						distinct = append(distinct, int32(v))
					}
				}
				var sampled *tensor.Dense
				if tc.fanouts != nil {
					sampled = sampledForward(t, m, d, distinct, L, seed)
				}
				for _, v := range nodes {
					if sampled != nil {
						c.want = append(c.want, row(sampled, slices.Index(distinct, int32(v))))
					} else {
						c.want = append(c.want, row(whole, int(v)))
					}
				}
				calls[i] = c
			}
			var wg sync.WaitGroup
			for i := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					c := &calls[i]
					var got EmbedResponse
					if code, body := post(t, ts.URL+"/v1/embed", c.req, &got); code != 200 {
						t.Errorf("request %d: %d %s", i, code, body)
						return
					}
					if got.Layer != L-1 || len(got.Embeddings) != len(c.want) {
						t.Errorf("request %d: layer %d, %d embeddings, want layer %d and %d", i, got.Layer, len(got.Embeddings), L-1, len(c.want))
						return
					}
					for k, e := range got.Embeddings {
						if e.Node != c.req.Nodes[k] || e.New {
							t.Errorf("request %d: embedding %d is of node %d (new %v), want %d", i, k, e.Node, e.New, c.req.Nodes[k])
						}
						if err := sameRow(e.Embedding, c.want[k]); err != nil {
							t.Errorf("request %d, node %d: %v", i, e.Node, err)
						}
					}
					var pred PredictResponse
					if code, body := post(t, ts.URL+"/v1/predict", c.req.PredictRequest, &pred); code != 200 {
						t.Errorf("request %d: predict: %d %s", i, code, body)
						return
					}
					for k, p := range pred.Predictions {
						class, probs := softmax(c.want[k])
						if p.Class != class || sameRow(p.Probabilities, probs) != nil {
							t.Errorf("request %d, node %d: class %d %v, want %d %v", i, p.Node, p.Class, p.Probabilities, class, probs)
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

// TestEmbedLayer checks an inner layer's embeddings against the first
// layers run on the whole graph.
func TestEmbedLayer(t *testing.T) {
	d := tinyData(t, 40, 6, 2)
	m := sageModel(t, d, []int{6, 10, 9, 3}, nil)
	_, ts := start(t, Config{Cache: true}, d, m)
	for layer := range 3 {
		want, err := wholeForward(m, d.Graph, d.Features, layer+1)
		if err != nil {
			t.Fatal(err)
		}
		var got EmbedResponse
		if code, body := post(t, ts.URL+"/v1/embed", EmbedRequest{PredictRequest: PredictRequest{Nodes: []int64{5, 0, 39}}, Layer: Layer(layer)}, &got); code != 200 {
			t.Fatalf("layer %d: %d %s", layer, code, body)
		}
		for k, e := range got.Embeddings {
			if err := sameRow(e.Embedding, row(want, int(e.Node))); err != nil {
				t.Errorf("layer %d, node %d (%d): %v", layer, e.Node, k, err)
			}
		}
	}
}

// extend returns the graph and features with a request's new nodes and
// edges added, edges in the order the server reads them.
func extend(t *testing.T, d *Data, nodes []NewNode) *Data {
	t.Helper()
	n := d.Graph.NumDst()
	src, dst := d.Graph.COO()
	src, dst = slices.Clone(src), slices.Clone(dst)
	for k, nn := range nodes {
		for _, u := range nn.InEdges {
			src, dst = append(src, int32(u)), append(dst, int32(n+k))
		}
		for _, v := range nn.OutEdges {
			src, dst = append(src, int32(n+k)), append(dst, int32(v))
		}
	}
	g, err := graph.FromCOO(n+len(nodes), n+len(nodes), src, dst)
	if err != nil {
		t.Fatal(err)
	}
	f := d.Features.Shape()[1]
	x := slices.Clone(d.Features.Data().([]float32))
	for _, nn := range nodes {
		for _, v := range nn.Features {
			x = append(x, float32(v))
		}
	}
	return &Data{Graph: g, Features: tensor.New(tensor.WithShape(n+len(nodes), f), tensor.WithBacking(x))}
}

// TestNewNodes answers new nodes (with edges to the graph, from the graph
// and between themselves) and nodes of the graph they point to, and checks
// them against the model run on the graph with the nodes added.
func TestNewNodes(t *testing.T) {
	d := tinyData(t, 50, 6, 3)
	feat := func(k int) []float64 {
		f := make([]float64, 6)
		for i := range f {
			f[i] = float64((k+1)*(i+2)%7) / 7
		}
		return f
	}
	newNodes := []NewNode{
		{Features: feat(0), InEdges: []int64{1, 2, 3, 51}, OutEdges: []int64{4}},
		{Features: feat(1), InEdges: []int64{50, 7}, OutEdges: []int64{1, 50}},
		{Features: feat(2)}, // isolated
	}
	req := PredictRequest{Nodes: []int64{4, 1, 9}, NewNodes: newNodes}
	ext := extend(t, d, newNodes)
	for _, tc := range []struct {
		name  string
		cache bool
	}{{"full", false}, {"cached", true}} {
		t.Run(tc.name, func(t *testing.T) {
			m := sageModel(t, d, []int{6, 12, 3}, nil)
			_, ts := start(t, Config{Cache: tc.cache}, d, m)
			var got EmbedResponse
			if code, body := post(t, ts.URL+"/v1/embed", EmbedRequest{PredictRequest: req}, &got); code != 200 {
				t.Fatalf("%d %s", code, body)
			}
			want, err := wholeForward(m, ext.Graph, ext.Features, 2)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := wholeForward(m, d.Graph, d.Features, 2)
			if err != nil {
				t.Fatal(err)
			}
			ids := []int64{4, 1, 9, 50, 51, 52}
			for k, e := range got.Embeddings {
				if e.Node != ids[k] || e.New != (k >= 3) {
					t.Errorf("embedding %d is of node %d (new %v), want %d", k, e.Node, e.New, ids[k])
				}
				w := want
				if tc.cache && !e.New {
					w = plain // the cache holds the graph without the request's edges
				}
				if err := sameRow(e.Embedding, row(w, int(ids[k]))); err != nil {
					t.Errorf("node %d: %v", ids[k], err)
				}
			}
		})
	}
	t.Run("sampled", func(t *testing.T) {
		m := sageModel(t, d, []int{6, 12, 3}, []int{2, 1})
		_, ts := start(t, Config{}, d, m)
		var a, b, c PredictResponse
		post(t, ts.URL+"/v1/predict", req, &a)
		post(t, ts.URL+"/v1/predict", req, &b)
		seed := uint64(99)
		req2 := req
		req2.Seed = &seed
		post(t, ts.URL+"/v1/predict", req2, &c)
		if len(a.Predictions) != 6 || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("the same request gave\n%v\nthen\n%v", a, b)
		}
		if fmt.Sprint(a) == fmt.Sprint(c) {
			t.Errorf("seeds 0 and 99 gave the same answer %v", a)
		}
	})
}

// TestCacheWholeGCN serves a GCN (symmetric norm, which reads the sources'
// out-degrees) from the cache computed by its Whole, and checks that every
// node equals the model on the whole graph; a GraphConv with the right norm
// (in-degrees only) answers the same without the cache.
func TestCacheWholeGCN(t *testing.T) {
	d := tinyData(t, 40, 5, 4)
	nodes := make([]int64, 40)
	for i := range nodes {
		nodes[i] = int64(i)
	}
	for _, tc := range []struct {
		norm  gcn.Norm
		cache bool
	}{{gcn.Both, true}, {gcn.Right, false}} {
		t.Run(fmt.Sprintf("%v/cache=%v", tc.norm, tc.cache), func(t *testing.T) {
			m := gcnModel(t, d, []int{5, 8, 3}, tc.norm)
			want, err := wholeForward(m, d.Graph, d.Features, 2)
			if err != nil {
				t.Fatal(err)
			}
			s, ts := start(t, Config{Cache: tc.cache}, d, m)
			var got EmbedResponse
			if code, body := post(t, ts.URL+"/v1/embed", EmbedRequest{PredictRequest: PredictRequest{Nodes: nodes}}, &got); code != 200 {
				t.Fatalf("%d %s", code, body)
			}
			for _, e := range got.Embeddings {
				if err := sameRow(e.Embedding, row(want, int(e.Node))); err != nil {
					t.Errorf("node %d: %v", e.Node, err)
				}
			}
			if tc.cache {
				var r RefreshResponse
				if code, body := post(t, ts.URL+"/v1/refresh", "", &r); code != 200 || r.Generation != 2 {
					t.Errorf("refresh: %d %s", code, body)
				}
				if c := s.cache.Load(); c == nil || c.generation != 2 {
					t.Errorf("cache generation %v after a refresh, want 2", c)
				}
			}
		})
	}
}

// TestWholeGraphSelfLoops serves a GCN with the symmetric norm on the graph
// with self-loops as a WholeGraph model, and a SAGE with self-loops by
// blocks: graph nodes (every layer) and new nodes must equal the models run
// on the whole graph with the new nodes and then the self-loops added.
func TestWholeGraphSelfLoops(t *testing.T) {
	d := tinyData(t, 45, 5, 13)
	newNodes := []NewNode{
		{Features: []float64{1, 0, 2, 0, 1}, InEdges: []int64{0, 3, 46}, OutEdges: []int64{0, 7}},
		{Features: []float64{0, 1, 0, 1, 0}, InEdges: []int64{8}, OutEdges: []int64{45}},
	}
	ext := extend(t, d, newNodes)
	looped, err := ext.Graph.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	plainLooped, err := d.Graph.AddSelfLoops()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		model func() *Model
	}{
		{"gcn-whole", func() *Model {
			m := gcnModel(t, d, []int{5, 8, 3}, gcn.Both)
			m.Whole, m.WholeGraph, m.SelfLoops, m.Fanouts = nil, true, true, []int{2, 2}
			return m
		}},
		{"sage-blocks", func() *Model {
			m := sageModel(t, d, []int{5, 8, 3}, nil)
			m.SelfLoops = true
			return m
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := tc.model()
			_, ts := start(t, Config{}, d, m)
			for layer := range 2 {
				onGraph, err := wholeForward(m, plainLooped, d.Features, layer+1)
				if err != nil {
					t.Fatal(err)
				}
				withNew, err := wholeForward(m, looped, ext.Features, layer+1)
				if err != nil {
					t.Fatal(err)
				}
				var got EmbedResponse
				req := EmbedRequest{PredictRequest: PredictRequest{Nodes: []int64{0, 44, 9}, NewNodes: newNodes}, Layer: Layer(layer)}
				if code, body := post(t, ts.URL+"/v1/embed", req, &got); code != 200 {
					t.Fatalf("%d %s", code, body)
				}
				for k, e := range got.Embeddings {
					want := row(withNew, int(e.Node))
					if tc.name == "gcn-whole" && !e.New {
						want = row(onGraph, int(e.Node)) // from the cache
					}
					if err := sameRow(e.Embedding, want); err != nil {
						t.Errorf("layer %d, node %d (%d): %v", layer, e.Node, k, err)
					}
				}
			}
		})
	}
}
