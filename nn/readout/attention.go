package readout

import (
	"fmt"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
)

// GlobalAttentionPooling is DGL's GlobalAttentionPooling. Build it with
// NewGlobalAttentionPooling.
type GlobalAttentionPooling struct {
	gate, feat nn.Activation
	params     gorgonia.Nodes
}

// Option configures a GlobalAttentionPooling.
type Option func(*GlobalAttentionPooling) error

// WithFeat sets the feature network applied to the node features before
// they are weighted (default the identity); params are the learnable nodes
// it uses, which Learnables returns after the gate's.
func WithFeat(f nn.Activation, params ...*gorgonia.Node) Option {
	return func(p *GlobalAttentionPooling) error {
		if f == nil {
			return fmt.Errorf("readout: nil feature network")
		}
		if err := checkParams("feature", params); err != nil {
			return err
		}
		p.feat = f
		p.params = append(p.params, params...)
		return nil
	}
}

// NewGlobalAttentionPooling returns a pooling whose gate network is gate,
// which must map (N, F) node features to (N, 1) scores; gateParams are the
// learnable nodes it uses.
func NewGlobalAttentionPooling(gate nn.Activation, gateParams gorgonia.Nodes, opts ...Option) (*GlobalAttentionPooling, error) {
	if gate == nil {
		return nil, fmt.Errorf("readout: nil gate network")
	}
	if err := checkParams("gate", gateParams); err != nil {
		return nil, err
	}
	p := &GlobalAttentionPooling{gate: gate, params: append(gorgonia.Nodes{}, gateParams...)}
	for _, o := range opts {
		if err := o(p); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func checkParams(what string, params gorgonia.Nodes) error {
	for i, n := range params {
		if n == nil {
			return fmt.Errorf("readout: %s parameter %d is nil", what, i)
		}
	}
	return nil
}

// Learnables returns the gate network's parameters, then the feature
// network's, for a Gorgonia solver.
func (p *GlobalAttentionPooling) Learnables() gorgonia.Nodes {
	return append(gorgonia.Nodes{}, p.params...)
}

// Forward returns the readout of every graph of b, (NumGraphs, F'), from
// node features x, (NumNodes, F).
func (p *GlobalAttentionPooling) Forward(b *graph.Batched, x *gorgonia.Node) (*gorgonia.Node, error) {
	r, _, err := p.ForwardAttention(b, x)
	return r, err
}

// ForwardAttention is Forward that also returns the attention weights,
// (NumNodes, 1): the softmax of the gate scores over each graph's nodes
// (DGL's get_attention).
func (p *GlobalAttentionPooling) ForwardAttention(b *graph.Batched, x *gorgonia.Node) (readout, attention *gorgonia.Node, err error) {
	if b == nil || x == nil {
		return nil, nil, fmt.Errorf("readout: GlobalAttentionPooling needs a batch and features")
	}
	if s := x.Shape(); len(s) != 2 || s[0] != b.NumSrc() {
		return nil, nil, fmt.Errorf("readout: features %q have shape %v, want (%d, F) for the batch's %d nodes", x.Name(), s, b.NumSrc(), b.NumSrc())
	}
	gate, err := p.gate(x)
	if err != nil {
		return nil, nil, fmt.Errorf("readout: gate network: %w", err)
	}
	if gate == nil {
		return nil, nil, fmt.Errorf("readout: the gate network returned no node")
	}
	if s := gate.Shape(); len(s) != 2 || s[0] != b.NumSrc() || s[1] != 1 {
		return nil, nil, fmt.Errorf("readout: the gate network returned shape %v, want (%d, 1)", s, b.NumSrc())
	}
	feat := x
	if p.feat != nil {
		if feat, err = p.feat(x); err != nil {
			return nil, nil, fmt.Errorf("readout: feature network: %w", err)
		}
		if feat == nil {
			return nil, nil, fmt.Errorf("readout: the feature network returned no node")
		}
		if s := feat.Shape(); len(s) != 2 || s[0] != b.NumSrc() {
			return nil, nil, fmt.Errorf("readout: the feature network returned shape %v, want (%d, F')", s, b.NumSrc())
		}
	}
	if attention, err = ops.SoftmaxNodes(b, gate); err != nil {
		return nil, nil, err
	}
	if readout, err = ops.WeightedSumNodes(b, feat, attention); err != nil {
		return nil, nil, err
	}
	return readout, attention, nil
}
