package sar

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/train"
)

// NewSync returns the train.Sync of the job c belongs to, for
// train.Config.Sync: parameters start as rank 0's (broadcast), gradients
// are summed over the ranks before every step (all-reduce, the same bits
// on every rank), and so are the loss and the accuracy counts. With
// replicated parameters and the same optimiser everywhere, every rank then
// takes the same steps as one process training on the whole graph.
func NewSync(c comm.Comm) train.Sync { return &syncer{c: c} }

type syncer struct{ c comm.Comm }

func (s *syncer) Params(params gorgonia.Nodes) error {
	for _, p := range params {
		t, err := values.Dense(p.Value())
		if err != nil {
			return fmt.Errorf("sar: parameter %q: %w", p.Name(), err)
		}
		var send []byte
		switch d := t.Data().(type) {
		case []float32:
			send = comm.Float32sToBytes(d)
		case []float64:
			send = comm.Float64sToBytes(d)
		default:
			return fmt.Errorf("sar: parameter %q holds %T, want float32 or float64", p.Name(), d)
		}
		b, err := s.c.Broadcast(send, 0)
		if err != nil {
			return fmt.Errorf("sar: broadcasting parameter %q: %w", p.Name(), err)
		}
		if len(b) != len(send) {
			return fmt.Errorf("sar: rank 0's parameter %q has %d bytes, this rank's %d: the ranks built different models", p.Name(), len(b), len(send))
		}
		copy(send, b)
		if err := restore(t, send); err != nil {
			return fmt.Errorf("sar: parameter %q: %w", p.Name(), err)
		}
	}
	return nil
}

// restore copies b, the bytes of t's elements, into t.
func restore(t tensor.Tensor, b []byte) error {
	switch d := t.Data().(type) {
	case []float32:
		v, err := comm.BytesToFloat32s(b)
		copy(d, v)
		return err
	case []float64:
		v, err := comm.BytesToFloat64s(b)
		copy(d, v)
		return err
	}
	return fmt.Errorf("unsupported data %T", t.Data())
}

func (s *syncer) Grads(params gorgonia.Nodes) error {
	for _, p := range params {
		g, err := p.Grad()
		if err != nil {
			return fmt.Errorf("sar: gradient of %q: %w", p.Name(), err)
		}
		t, err := values.Dense(g)
		if err != nil {
			return fmt.Errorf("sar: gradient of %q: %w", p.Name(), err)
		}
		switch d := t.Data().(type) {
		case []float32:
			err = s.c.AllReduceFloat32(d, comm.Sum)
		case []float64:
			err = s.c.AllReduceFloat64(d, comm.Sum)
		default:
			err = fmt.Errorf("holds %T, want float32 or float64", d)
		}
		if err != nil {
			return fmt.Errorf("sar: gradient of %q: %w", p.Name(), err)
		}
	}
	return nil
}

func (s *syncer) Sum(v []float64) error { return s.c.AllReduceFloat64(v, comm.Sum) }

// CrossEntropy is this rank's share of the mean cross-entropy over the
// nodes listed on all ranks: the sum over its own nodes (local IDs) of
// -log softmax(logits)[label], divided by the number of nodes listed on
// all ranks, so that the ranks' losses add up to nn.CrossEntropy over the
// whole graph and so do their gradients. It is collective (the ranks
// count their nodes together). A rank without nodes gets a zero loss of
// the same form, so that every rank builds the same expression graph.
func CrossEntropy(g *Graph, logits *gorgonia.Node, labels, nodes []int32) (*gorgonia.Node, error) {
	if g == nil || logits == nil {
		return nil, fmt.Errorf("sar: CrossEntropy needs a graph and logits")
	}
	count := []float64{float64(len(nodes))}
	if err := g.c.AllReduceFloat64(count, comm.Sum); err != nil {
		return nil, fmt.Errorf("sar: counting the loss's nodes: %w", err)
	}
	if count[0] == 0 {
		return nil, fmt.Errorf("sar: CrossEntropy over no nodes on any rank")
	}
	scale := float64(len(nodes)) / count[0]
	if len(nodes) == 0 {
		// Any labelled node, weighted 0.
		c := logits.Shape()[len(logits.Shape())-1]
		for v, y := range labels {
			if y >= 0 && int(y) < c {
				nodes = []int32{int32(v)}
				break
			}
		}
		if len(nodes) == 0 {
			return nil, fmt.Errorf("sar: rank %d has no labelled node to build its (zero) loss on", g.rank)
		}
	}
	loss, err := nn.CrossEntropy(logits, labels, nodes)
	if err != nil {
		return nil, fmt.Errorf("sar: rank %d: %w", g.rank, err)
	}
	var c *gorgonia.Node
	if logits.Dtype() == tensor.Float32 {
		c = gorgonia.NewConstant(float32(scale))
	} else {
		c = gorgonia.NewConstant(scale)
	}
	return gorgonia.Mul(loss, c)
}
