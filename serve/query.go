package serve

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn/train"
)

// requestError is a query the server refuses, answered with its status.
type requestError struct {
	status int
	msg    string
}

// Error returns the message.
func (e *requestError) Error() string { return e.msg }

// badRequest returns a 400 error with a formatted message.
func badRequest(format string, args ...any) error {
	return &requestError{status: 400, msg: fmt.Sprintf(format, args...)}
}

// errLoading is the error of queries before Start has finished.
var errLoading = errors.New("the model is still loading")

// prepared is a validated query: the distinct graph nodes, for each listed
// node its position among them, the new nodes and the layer.
type prepared struct {
	listed   []int64
	distinct []int32
	rowOf    []int
	newNodes []NewNode
	layer    int
	seed     uint64
}

// prepare validates a request against the graph and the model, naming the
// first thing wrong.
func (s *Server) prepare(req *PredictRequest, layer *LayerRef) (*prepared, error) {
	if !s.Ready() {
		return nil, s.notReady()
	}
	if req == nil {
		return nil, badRequest("no request")
	}
	n := s.data.Graph.NumDst()
	L := s.model.Stack.NumLayers()
	total := len(req.Nodes) + len(req.NewNodes)
	switch {
	case total == 0:
		return nil, badRequest(`the request names no nodes: give "nodes" or "new_nodes"`)
	case total > s.cfg.MaxNodes:
		return nil, badRequest("the request names %d nodes (nodes and new_nodes), the limit is %d", total, s.cfg.MaxNodes)
	case len(req.NewNodes) > s.cfg.MaxNewNodes:
		return nil, badRequest("the request has %d new nodes, the limit is %d", len(req.NewNodes), s.cfg.MaxNewNodes)
	}
	p := &prepared{listed: req.Nodes, newNodes: req.NewNodes, layer: L - 1, seed: s.cfg.Seed, rowOf: make([]int, len(req.Nodes))}
	if req.Seed != nil {
		p.seed = *req.Seed
	}
	if layer != nil {
		l, err := s.model.layerIndex(*layer)
		if err != nil {
			return nil, err
		}
		p.layer = l
	}
	seen := make(map[int32]int, len(req.Nodes))
	for i, v := range req.Nodes {
		if v < 0 || v >= int64(n) {
			return nil, badRequest("node %d (nodes[%d]) is not in the graph, whose nodes are 0 to %d", v, i, n-1)
		}
		k, ok := seen[int32(v)]
		if !ok {
			k = len(p.distinct)
			seen[int32(v)] = k
			p.distinct = append(p.distinct, int32(v))
		}
		p.rowOf[i] = k
	}
	total = n + len(req.NewNodes)
	f32 := s.model.dtype() == tensor.Float32
	for k, nn := range req.NewNodes {
		if len(nn.Features) != s.model.InFeatures {
			return nil, badRequest("new_nodes[%d] has %d features, the model takes %d", k, len(nn.Features), s.model.InFeatures)
		}
		for j, v := range nn.Features {
			if math.IsNaN(v) || math.IsInf(v, 0) || (f32 && math.Abs(v) > math.MaxFloat32) {
				return nil, badRequest("new_nodes[%d].features[%d] is %v, not a finite %v", k, j, v, s.model.dtype())
			}
		}
		for _, e := range []struct {
			name string
			ids  []int64
		}{{"in_edges", nn.InEdges}, {"out_edges", nn.OutEdges}} {
			for j, u := range e.ids {
				if u < 0 || u >= int64(total) {
					return nil, badRequest("new_nodes[%d].%s[%d] is node %d, which is neither in the graph (0 to %d) nor a new node of the request (%d to %d)",
						k, e.name, j, u, n-1, n, total-1)
				}
			}
		}
	}
	return p, nil
}

// Predict answers a prediction request without HTTP: the class and the
// class probabilities (softmax of the last layer's outputs) of every
// listed node, then of every new node.
func (s *Server) Predict(ctx context.Context, req *PredictRequest) (*PredictResponse, error) {
	p, err := s.prepare(req, nil)
	if err != nil {
		return nil, err
	}
	rows, err := s.answer(ctx, p)
	if err != nil {
		return nil, err
	}
	resp := &PredictResponse{Predictions: make([]Prediction, len(rows))}
	for i, r := range rows {
		pr := &resp.Predictions[i]
		pr.Node, pr.New = s.nodeID(p, i)
		pr.Class, pr.Probabilities = softmax(r)
	}
	s.metrics.predicted(len(rows))
	return resp, nil
}

// Embed answers an embedding request without HTTP: the outputs of the
// layer asked for (the last by default) of every listed node, then of
// every new node.
func (s *Server) Embed(ctx context.Context, req *EmbedRequest) (*EmbedResponse, error) {
	if req == nil {
		return nil, badRequest("no request")
	}
	p, err := s.prepare(&req.PredictRequest, req.Layer)
	if err != nil {
		return nil, err
	}
	rows, err := s.answer(ctx, p)
	if err != nil {
		return nil, err
	}
	resp := &EmbedResponse{Layer: p.layer, Embeddings: make([]Embedding, len(rows))}
	if len(s.model.LayerNames) > 0 {
		resp.LayerName = s.model.LayerNames[p.layer]
	}
	for i, r := range rows {
		e := &resp.Embeddings[i]
		e.Node, e.New = s.nodeID(p, i)
		e.Embedding = r
	}
	return resp, nil
}

// nodeID returns the ID of answer i: a listed node, or a new one numbered
// after the graph's nodes.
func (s *Server) nodeID(p *prepared, i int) (int64, bool) {
	if i < len(p.listed) {
		return p.listed[i], false
	}
	return int64(s.data.Graph.NumDst() + i - len(p.listed)), true
}

// answer returns the rows of the layer asked for, one per listed node then
// one per new node: listed nodes from the cache when it holds that layer,
// the rest through the batcher.
func (s *Server) answer(ctx context.Context, p *prepared) ([][]float64, error) {
	var distinct [][]float64
	var fresh [][]float64
	c := s.cache.Load()
	if s.model.WholeGraph {
		distinct = rowsOf(c.layers[p.layer], p.distinct)
		s.metrics.lookups(len(p.distinct))
		if len(p.newNodes) > 0 {
			var err error
			if fresh, err = s.extended(ctx, p); err != nil {
				return nil, err
			}
		}
	} else if c != nil && p.layer == s.model.Stack.NumLayers()-1 {
		distinct = rowsOf(c.out, p.distinct)
		s.metrics.lookups(len(p.distinct))
		if len(p.newNodes) > 0 {
			var err error
			if fresh, err = s.run(ctx, nil, p.newNodes, p.layer, p.seed); err != nil {
				return nil, err
			}
		}
	} else {
		out, err := s.run(ctx, p.distinct, p.newNodes, p.layer, p.seed)
		if err != nil {
			return nil, err
		}
		distinct, fresh = out[:len(p.distinct)], out[len(p.distinct):]
	}
	rows := make([][]float64, 0, len(p.listed)+len(fresh))
	for _, k := range p.rowOf {
		rows = append(rows, distinct[k])
	}
	return append(rows, fresh...), nil
}

// rowsOf copies the rows ids of t to float64 slices.
func rowsOf(t *tensor.Dense, ids []int32) [][]float64 {
	f := t.Shape()[1]
	out := make([][]float64, len(ids))
	for i, id := range ids {
		r := make([]float64, f)
		switch d := t.Data().(type) {
		case []float32:
			for j, v := range d[int(id)*f : (int(id)+1)*f] {
				r[j] = float64(v)
			}
		case []float64:
			copy(r, d[int(id)*f:])
		}
		out[i] = r
	}
	return out
}

// softmax returns the index of the largest of xs (the first of equals) and
// the softmax of xs.
func softmax(xs []float64) (int, []float64) {
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

// whole returns the last layer's outputs for every node of the graph.
func (s *Server) whole() (*tensor.Dense, error) {
	if s.model.Whole != nil {
		return s.model.Whole(s.data.Graph, s.features)
	}
	return train.Inference(s.model.Stack, s.model.Params, s.graph, s.features, s.cfg.Chunk, nil)
}

// extended runs a WholeGraph model on a copy of the graph with the
// request's new nodes and edges added (and self-loops on them when the
// model asks), and returns the new nodes' outputs of the layer asked for.
func (s *Server) extended(ctx context.Context, p *prepared) ([][]float64, error) {
	n, k := s.data.Graph.NumDst(), len(p.newNodes)
	src, dst := s.data.Graph.COO()
	src, dst = slices.Clone(src), slices.Clone(dst)
	for j, nn := range p.newNodes {
		for _, u := range nn.InEdges {
			src, dst = append(src, int32(u)), append(dst, int32(n+j))
		}
		for _, v := range nn.OutEdges {
			src, dst = append(src, int32(n+j)), append(dst, int32(v))
		}
	}
	g, err := graph.FromCOO(n+k, n+k, src, dst)
	if err != nil {
		return nil, err
	}
	if s.model.SelfLoops {
		if g, err = g.AddSelfLoops(); err != nil {
			return nil, err
		}
	}
	f := s.model.InFeatures
	var x *tensor.Dense
	switch table := s.features.Data().(type) {
	case []float32:
		d := append(make([]float32, 0, (n+k)*f), table...)
		for _, nn := range p.newNodes {
			for _, v := range nn.Features {
				d = append(d, float32(v))
			}
		}
		x = tensor.New(tensor.WithShape(n+k, f), tensor.WithBacking(d))
	case []float64:
		d := append(make([]float64, 0, (n+k)*f), table...)
		for _, nn := range p.newNodes {
			d = append(d, nn.Features...)
		}
		x = tensor.New(tensor.WithShape(n+k, f), tensor.WithBacking(d))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.modelMu.Lock()
	layers, err := s.model.wholeLayers(g, x, p.layer+1)
	s.modelMu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("serve: the model on the graph with the new nodes: %w", err)
	}
	ids := make([]int32, k)
	for j := range ids {
		ids[j] = int32(n + j)
	}
	return rowsOf(layers[p.layer], ids), nil
}
