package link

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
	"github.com/gnngo/gnn/ops"
)

// stack is the multilayer perceptron the MLP decoder and EdgeHead share:
// a first layer over the combined endpoints (and edge features), then
// ReLU and a linear layer for every further width; the last layer has no
// activation.
type stack struct {
	cfg    config
	in     int
	widths []int // hidden widths, then the output width
	// The first layer: with Concat, [h_u, h_v, ef] W0 + b0 = h_u wu + h_v
	// wv + ef we + b0 (W0's row blocks); with Hadamard, (h_u * h_v) wu +
	// ef we + b0.
	wu, wv, we, b0 *gorgonia.Node
	w, b           []*gorgonia.Node // the further layers
}

// newStack adds the parameters of a stack from in-wide embeddings through
// hidden to out outputs.
func newStack(eg *gorgonia.ExprGraph, prefix string, in int, hidden []int, out int, opts []Option) (*stack, error) {
	if eg == nil {
		return nil, fmt.Errorf("link: nil expression graph")
	}
	if in <= 0 || out <= 0 {
		return nil, fmt.Errorf("link: %s needs positive sizes, got in %d, out %d", prefix, in, out)
	}
	for i, h := range hidden {
		if h <= 0 {
			return nil, fmt.Errorf("link: %s hidden layer %d has width %d", prefix, i, h)
		}
	}
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	c.Finish(eg, prefix)
	s := &stack{cfg: c, in: in, widths: append(append([]int{}, hidden...), out)}
	// The first layer's weight is one Glorot matrix over all its inputs,
	// as a linear layer on the concatenation, split into row blocks.
	rows := []int{in, in, c.edgeFeat}
	if c.combine == Hadamard {
		rows[1] = 0
	}
	fanIn := rows[0] + rows[1] + rows[2]
	h0 := s.widths[0]
	ps := c.Params(eg)
	var full *tensor.Dense
	block := func(suffix string, lo, n int) *gorgonia.Node {
		return ps.Add(suffix, []int{n, h0}, func() (*tensor.Dense, error) {
			if full == nil {
				f, err := nn.Glorot(c.Dtype, nn.ParamSeed(c.Seed, 0), 1, fanIn, h0)
				if err != nil {
					return nil, err
				}
				full = f
			}
			return rowBlock(full, lo, n, h0), nil
		})
	}
	s.wu = block("w0u", 0, rows[0])
	if rows[1] > 0 {
		s.wv = block("w0v", rows[0], rows[1])
	}
	if rows[2] > 0 {
		s.we = block("w0e", rows[0]+rows[1], rows[2])
	}
	s.b0 = ps.Zeros("b0", h0)
	for i := 1; i < len(s.widths); i++ {
		s.w = append(s.w, ps.Glorot(fmt.Sprintf("w%d", i), uint64(i), 1, s.widths[i-1], s.widths[i]))
		s.b = append(s.b, ps.Zeros(fmt.Sprintf("b%d", i), s.widths[i]))
	}
	return layerkit.Built(s, ps)
}

// learnables returns the parameters, first layer first.
func (s *stack) learnables() gorgonia.Nodes {
	ps := layerkit.Present(s.wu, s.wv, s.we, s.b0)
	for i := range s.w {
		ps = append(ps, s.w[i], s.b[i])
	}
	return ps
}

// forward returns the stack's outputs, one row per pair of pairs, from the
// embeddings h and, with edge features configured, ef (one row per pair).
func (s *stack) forward(pairs *graph.Graph, h, ef *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkPairs(pairs, h); err != nil {
		return nil, err
	}
	if sh := h.Shape(); sh[1] != s.in {
		return nil, fmt.Errorf("link: %s takes %d-wide embeddings but %q has shape %v", s.cfg.Name, s.in, h.Name(), sh)
	}
	if h.Dtype() != s.cfg.Dtype {
		return nil, fmt.Errorf("link: %s: embeddings have dtype %v, the module %v", s.cfg.Name, h.Dtype(), s.cfg.Dtype)
	}
	z, err := s.first(pairs, h)
	if err != nil {
		return nil, fmt.Errorf("link: %s: %w", s.cfg.Name, err)
	}
	switch {
	case s.we != nil && ef == nil:
		return nil, fmt.Errorf("link: %s takes %d edge features per pair and got none", s.cfg.Name, s.cfg.edgeFeat)
	case s.we == nil && ef != nil:
		return nil, fmt.Errorf("link: %s takes no edge features (see WithEdgeFeatures)", s.cfg.Name)
	case ef != nil:
		if sh := ef.Shape(); len(sh) != 2 || sh[0] != pairs.NumEdges() || sh[1] != s.cfg.edgeFeat {
			return nil, fmt.Errorf("link: %s: edge features %q have shape %v, want (%d, %d)", s.cfg.Name, ef.Name(), sh, pairs.NumEdges(), s.cfg.edgeFeat)
		}
		p, err := nn.MatMul(ef, s.we)
		if err != nil {
			return nil, err
		}
		if z, err = gorgonia.Add(z, p); err != nil {
			return nil, err
		}
	}
	if z, err = nn.AddBias(z, s.b0); err != nil {
		return nil, err
	}
	for i := range s.w {
		if z, err = nn.ReLU(z); err != nil {
			return nil, err
		}
		if z, err = nn.MatMul(z, s.w[i]); err != nil {
			return nil, err
		}
		if z, err = nn.AddBias(z, s.b[i]); err != nil {
			return nil, err
		}
	}
	return z, nil
}

// first returns the first layer's product, without bias or edge features,
// one row per pair.
func (s *stack) first(pairs *graph.Graph, h *gorgonia.Node) (*gorgonia.Node, error) {
	if s.cfg.combine == Hadamard {
		x, err := ops.UMulV(pairs, h, h)
		if err != nil {
			return nil, err
		}
		return nn.MatMul(x, s.wu)
	}
	if pairs.NumSrc()+pairs.NumDst() <= 2*pairs.NumEdges() {
		// Project the nodes, then add the projections on each pair: fewer
		// rows multiplied, and no 2F-wide rows.
		a, err := nn.MatMul(h, s.wu)
		if err != nil {
			return nil, err
		}
		b, err := nn.MatMul(h, s.wv)
		if err != nil {
			return nil, err
		}
		return ops.UAddV(pairs, a, b)
	}
	// Few pairs over many nodes: gather the endpoints' rows first.
	hu, err := ops.CopyU(pairs, h)
	if err != nil {
		return nil, err
	}
	hv, err := ops.CopyV(pairs, h)
	if err != nil {
		return nil, err
	}
	a, err := nn.MatMul(hu, s.wu)
	if err != nil {
		return nil, err
	}
	b, err := nn.MatMul(hv, s.wv)
	if err != nil {
		return nil, err
	}
	return gorgonia.Add(a, b)
}

// rowBlock returns a copy of rows [lo, lo+n) of t, w wide.
func rowBlock(t *tensor.Dense, lo, n, w int) *tensor.Dense {
	switch d := t.Data().(type) {
	case []float32:
		return tensor.New(tensor.WithShape(n, w), tensor.WithBacking(append([]float32(nil), d[lo*w:(lo+n)*w]...)))
	case []float64:
		return tensor.New(tensor.WithShape(n, w), tensor.WithBacking(append([]float64(nil), d[lo*w:(lo+n)*w]...)))
	}
	panic("link: rowBlock of a tensor that is not float32 or float64")
}
