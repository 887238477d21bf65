package rgcn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/internal/layerkit"
)

// RelGraphConv is an R-GCN layer (see the package documentation). Build it
// with New.
type RelGraphConv struct {
	in, out, numRels int
	cfg              config
	w                *gorgonia.Node // None: (R, in, out); Basis: bases (B, in, out); BDD: (R, B, in/B, out/B)
	coeff            *gorgonia.Node // Basis: (R, B)
	loop, b          *gorgonia.Node
}

// New adds a RelGraphConv from in to out features over numRels relations
// to eg. Weights are Glorot-uniform initialised from the seed with DGL's
// ReLU gain; the bias starts at 0. It returns an error when a size is not
// positive, an option is invalid, or in and out are not multiples of the
// number of blocks.
func New(eg *gorgonia.ExprGraph, in, out, numRels int, opts ...Option) (*RelGraphConv, error) {
	if in <= 0 || out <= 0 || numRels <= 0 {
		return nil, fmt.Errorf("rgcn: sizes must be positive, got in %d, out %d, %d relations", in, out, numRels)
	}
	c := config{selfLoop: true}
	c.Bias = true
	if err := kit.Setup(eg, &c, opts, func(c *config) float64 { return c.dropout }); err != nil {
		return nil, err
	}
	if c.reg == BlockDiagonal && (in%c.numBases != 0 || out%c.numBases != 0) {
		return nil, fmt.Errorf("rgcn: block-diagonal with %d blocks needs in (%d) and out (%d) to be multiples of it", c.numBases, in, out)
	}
	l := &RelGraphConv{in: in, out: out, numRels: numRels, cfg: c}
	gain := 1.4142135623730951 // DGL: nn.init.calculate_gain("relu")
	ps := c.Params(eg)
	switch c.reg {
	case None:
		l.w = ps.Glorot("weight", 0, gain, numRels, in, out)
	case Basis:
		l.w = ps.Glorot("bases", 0, gain, c.numBases, in, out)
		l.coeff = ps.Glorot("coeff", 1, gain, numRels, c.numBases)
	case BlockDiagonal:
		b := c.numBases
		l.w = ps.Glorot("blocks", 0, gain, numRels, b, in/b, out/b)
	}
	if c.selfLoop {
		l.loop = ps.Glorot("loop_weight", 2, gain, in, out)
	}
	if c.Bias {
		l.b = ps.Zeros("bias", out)
	}
	return layerkit.Built(l, ps)
}

// Learnables returns the layer's parameters: the relation weights (or bases
// and coefficients, or blocks), the self-loop weight and the bias, where
// present.
func (l *RelGraphConv) Learnables() gorgonia.Nodes {
	return layerkit.Present(l.w, l.coeff, l.loop, l.b)
}

// Forward applies the layer to node features x (NumSrc x in) over g, which
// must be the *Relations of the graph (Group, DstRange), and returns
// (NumDst x out) features: one SegmentMatMul over all relations, the
// self-loop and the bias, then the activation and dropout. With g a
// Relations (an nn.Graph), RelGraphConv is an nn.Layer. It returns an
// error when g is nil or not a *Relations, has no destinations or another
// number of relations than the layer, or x has the wrong shape or dtype.
func (l *RelGraphConv) Forward(g nn.Graph, x *gorgonia.Node) (*gorgonia.Node, error) {
	if _, err := l.relations(g); err != nil {
		return nil, err
	}
	if x == nil {
		return nil, fmt.Errorf("rgcn: %s: nil features", l.cfg.Name)
	}
	return l.ForwardRows(g, gorgonia.Nodes{x})
}

// relations returns g as the layer's relations, or Forward's error.
func (l *RelGraphConv) relations(g nn.Graph) (*Relations, error) {
	name := l.cfg.Name
	if nn.IsNil(g) {
		return nil, fmt.Errorf("rgcn: %s: nil relations", name)
	}
	rel, ok := g.(*Relations)
	if !ok || rel == nil {
		return nil, fmt.Errorf("rgcn: %s: the graph is a %T; RelGraphConv needs the *rgcn.Relations of a graph (rgcn.Group), which knows each edge's relation", name, g)
	}
	if rel.NumRelations() != l.numRels {
		return nil, fmt.Errorf("rgcn: %s: %d relations, but the layer was built for %d", name, rel.NumRelations(), l.numRels)
	}
	if rel.NumDst() == 0 {
		return nil, fmt.Errorf("rgcn: %s: the relations have no destination nodes: the result would be empty, which Gorgonia cannot hold", name)
	}
	return rel, nil
}

// ForwardRows is Forward with the features in row blocks, xs[0], xs[1],
// ... stacked in order (a model's features of each node type, in the
// homogeneous graph's order), without a stacked copy: see
// SegmentMatMulRows. It returns Forward's errors, for any block.
func (l *RelGraphConv) ForwardRows(g nn.Graph, xs gorgonia.Nodes) (*gorgonia.Node, error) {
	name := l.cfg.Name
	rel, err := l.relations(g)
	if err != nil {
		return nil, err
	}
	if len(xs) == 0 {
		return nil, fmt.Errorf("rgcn: %s: no features", name)
	}
	rows := 0
	for _, x := range xs {
		if x == nil {
			return nil, fmt.Errorf("rgcn: %s: nil features", name)
		}
		if s := x.Shape(); len(s) != 2 || s[1] != l.in {
			return nil, fmt.Errorf("rgcn: %s: features %q have shape %v, want (%d, %d)", name, x.Name(), s, rel.NumSrc(), l.in)
		}
		if x.Dtype() != l.cfg.Dtype {
			return nil, fmt.Errorf("rgcn: %s: features %q are %v, the layer %v", name, x.Name(), x.Dtype(), l.cfg.Dtype)
		}
		rows += x.Shape()[0]
	}
	if rows != rel.NumSrc() {
		return nil, fmt.Errorf("rgcn: %s: features %q have shape %v, want (%d, %d)", name, xs[0].Name(), xs[0].Shape(), rel.NumSrc(), l.in)
	}
	h, err := l.forward(rel, xs)
	if err != nil {
		return nil, fmt.Errorf("rgcn: %s: %w", name, err)
	}
	return h, nil
}

func (l *RelGraphConv) forward(rel *Relations, xs gorgonia.Nodes) (*gorgonia.Node, error) {
	w := l.w
	if l.cfg.reg == Basis {
		// W_r = sum_b a_rb V_b for all r at once: (R, B) x (B, in*out).
		flat, err := gorgonia.Reshape(l.w, tensor.Shape{l.cfg.numBases, l.in * l.out})
		if err != nil {
			return nil, err
		}
		all, err := nn.MatMul(l.coeff, flat)
		if err != nil {
			return nil, err
		}
		if w, err = gorgonia.Reshape(all, tensor.Shape{l.numRels, l.in, l.out}); err != nil {
			return nil, err
		}
	}
	h, err := SegmentMatMulRows(rel, xs, w, l.loop, l.b)
	if err != nil {
		return nil, err
	}
	if l.cfg.relu && l.cfg.dropout > 0 {
		return nn.ReLUDropout(h, l.cfg.dropout, nn.ParamSeed(l.cfg.Seed, 3), l.cfg.Mode)
	}
	if h, err = l.cfg.Activate(h); err != nil {
		return nil, err
	}
	if l.cfg.dropout > 0 {
		if h, err = nn.Dropout(h, l.cfg.dropout, nn.ParamSeed(l.cfg.Seed, 3), l.cfg.Mode); err != nil {
			return nil, err
		}
	}
	return h, nil
}

var _ nn.Layer = (*RelGraphConv)(nil)
