package model

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/readout"
	"github.com/gnngo/gnn/ops"
)

// pooling is a readout: node features of a batch to one row per graph.
type pooling func(b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, error)

// level is one pooling of node features and the head applied to it.
type level struct {
	pool   pooling
	head   nn.Activation // nil: none
	params gorgonia.Nodes
	where  string
}

// buildLevels builds the readout and head of the (normalised) graph-level
// spec s: one level, or one per entry of its Levels.
func buildLevels(e env, s *Spec) ([]level, error) {
	r := s.Readout
	one := func(gate, feat, head []LayerSpec, where string) (level, error) {
		pool, ps, err := buildPooling(e, r.Type, gate, feat)
		if err != nil {
			return level{}, fmt.Errorf("%s: %w", where, err)
		}
		h, hps, err := buildSeq(e, head, "head ")
		if err != nil {
			return level{}, fmt.Errorf("%s: %w", where, err)
		}
		return level{pool: pool, head: h, params: append(ps, hps...), where: where}, nil
	}
	if len(r.Levels) == 0 {
		lv, err := one(r.Gate, r.Feat, s.Head, "readout")
		return []level{lv}, err
	}
	levels := make([]level, len(r.Levels))
	for i, rl := range r.Levels {
		var err error
		if levels[i], err = one(rl.Gate, rl.Feat, rl.Head, fmt.Sprintf("readout level %d", i)); err != nil {
			return nil, err
		}
	}
	return levels, nil
}

// buildPooling builds a readout of type typ (with the gate and feat layers
// of an attention readout) in e's graph and returns it with its parameters.
func buildPooling(e env, typ string, gate, feat []LayerSpec) (pooling, gorgonia.Nodes, error) {
	switch typ {
	case "sum":
		return ops.SumNodes, nil, nil
	case "mean":
		return ops.MeanNodes, nil, nil
	case "max":
		return ops.MaxNodes, nil, nil
	case "attention":
		g, gateParams, err := buildSeq(e, gate, "gate ")
		if err != nil {
			return nil, nil, err
		}
		f, featParams, err := buildSeq(e, feat, "feat ")
		if err != nil {
			return nil, nil, err
		}
		var opts []readout.Option
		if f != nil {
			opts = append(opts, readout.WithFeat(f, featParams...))
		}
		p, err := readout.NewGlobalAttentionPooling(g, gateParams, opts...)
		if err != nil {
			return nil, nil, err
		}
		return p.Forward, p.Learnables(), nil
	}
	return nil, nil, fmt.Errorf("unknown readout %q", typ)
}
