package rgcn

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/ops"
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
	if eg == nil {
		return nil, fmt.Errorf("rgcn: nil expression graph")
	}
	if in <= 0 || out <= 0 || numRels <= 0 {
		return nil, fmt.Errorf("rgcn: sizes must be positive, got in %d, out %d, %d relations", in, out, numRels)
	}
	c := config{selfLoop: true, bias: true, dtype: tensor.Float32}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	if c.reg == BlockDiagonal && (in%c.numBases != 0 || out%c.numBases != 0) {
		return nil, fmt.Errorf("rgcn: block-diagonal with %d blocks needs in (%d) and out (%d) to be multiples of it", c.numBases, in, out)
	}
	if c.name == "" {
		c.name = nn.UniqueName(eg, "rgcn")
	}
	if !c.seedSet {
		c.seed = nn.SeedOf(c.name)
	}
	l := &RelGraphConv{in: in, out: out, numRels: numRels, cfg: c}
	gain := 1.4142135623730951 // DGL: nn.init.calculate_gain("relu")
	param := func(k uint64, name string, shape ...int) (*gorgonia.Node, error) {
		v, err := nn.Glorot(c.dtype, nn.ParamSeed(c.seed, k), gain, shape...)
		if err != nil {
			return nil, err
		}
		return nn.Param(eg, c.name+"."+name, v), nil
	}
	var err error
	switch c.reg {
	case None:
		l.w, err = param(0, "weight", numRels, in, out)
	case Basis:
		if l.w, err = param(0, "bases", c.numBases, in, out); err == nil {
			l.coeff, err = param(1, "coeff", numRels, c.numBases)
		}
	case BlockDiagonal:
		b := c.numBases
		l.w, err = param(0, "blocks", numRels, b, in/b, out/b)
	}
	if err != nil {
		return nil, fmt.Errorf("rgcn: %w", err)
	}
	if c.selfLoop {
		if l.loop, err = param(2, "loop_weight", in, out); err != nil {
			return nil, fmt.Errorf("rgcn: %w", err)
		}
	}
	if c.bias {
		l.b = nn.Param(eg, c.name+".bias", nn.Zeros(c.dtype, out))
	}
	return l, nil
}

// Learnables returns the layer's parameters: the relation weights (or bases
// and coefficients, or blocks), the self-loop weight and the bias, where
// present.
func (l *RelGraphConv) Learnables() gorgonia.Nodes {
	var ps gorgonia.Nodes
	for _, p := range []*gorgonia.Node{l.w, l.coeff, l.loop, l.b} {
		if p != nil {
			ps = append(ps, p)
		}
	}
	return ps
}

// Forward applies the layer to node features x (NumNodes x in) over the
// relations rel and returns (NumNodes x out) features (see the package
// doc for the order of products and sums). It returns an error when rel
// is nil, has no nodes or another number of relations than the layer, or
// x has the wrong shape or dtype.
func (l *RelGraphConv) Forward(rel *Relations, x *gorgonia.Node) (*gorgonia.Node, error) {
	name := l.cfg.name
	if rel == nil {
		return nil, fmt.Errorf("rgcn: %s: nil relations", name)
	}
	if rel.NumRelations() != l.numRels {
		return nil, fmt.Errorf("rgcn: %s: %d relations, but the layer was built for %d", name, rel.NumRelations(), l.numRels)
	}
	if rel.NumNodes() == 0 {
		return nil, fmt.Errorf("rgcn: %s: the relations have no destination nodes: the result would be empty, which Gorgonia cannot hold", name)
	}
	if x == nil {
		return nil, fmt.Errorf("rgcn: %s: nil features", name)
	}
	if s := x.Shape(); len(s) != 2 || s[0] != rel.NumNodes() || s[1] != l.in {
		return nil, fmt.Errorf("rgcn: %s: features %q have shape %v, want (%d, %d)", name, x.Name(), s, rel.NumNodes(), l.in)
	}
	if x.Dtype() != l.cfg.dtype {
		return nil, fmt.Errorf("rgcn: %s: features %q are %v, the layer %v", name, x.Name(), x.Dtype(), l.cfg.dtype)
	}
	h, err := l.forward(rel, x)
	if err != nil {
		return nil, fmt.Errorf("rgcn: %s: %w", name, err)
	}
	return h, nil
}

func (l *RelGraphConv) forward(rel *Relations, x *gorgonia.Node) (*gorgonia.Node, error) {
	ws, err := l.relationWeights(x.Graph())
	if err != nil {
		return nil, err
	}
	var h *gorgonia.Node
	add := func(y *gorgonia.Node) error {
		if h == nil {
			h = y
			return nil
		}
		var err error
		h, err = gorgonia.Add(h, y)
		return err
	}
	if l.in < l.out {
		// Aggregate first: [A_1 x | ... | A_R x] (N x R·in) times the
		// stacked weights (R·in x out) is the same sum with one N x out
		// product instead of R of them.
		var aggs gorgonia.Nodes
		for r := range ws {
			y, err := l.aggregate(rel, r, x)
			if err != nil {
				return nil, fmt.Errorf("relation %d: %w", r, err)
			}
			aggs = append(aggs, y)
		}
		a, err := concat(1, aggs)
		if err != nil {
			return nil, err
		}
		w, err := concat(0, ws)
		if err != nil {
			return nil, err
		}
		if h, err = nn.MatMul(a, w); err != nil {
			return nil, err
		}
	} else {
		for r, w := range ws {
			// One dense product per relation, then a fused sum over its edges.
			y, err := nn.MatMul(x, w)
			if err != nil {
				return nil, fmt.Errorf("relation %d: %w", r, err)
			}
			if y, err = l.aggregate(rel, r, y); err != nil {
				return nil, fmt.Errorf("relation %d: %w", r, err)
			}
			if err := add(y); err != nil {
				return nil, err
			}
		}
	}
	if l.loop != nil {
		y, err := nn.MatMul(x, l.loop)
		if err != nil {
			return nil, fmt.Errorf("self-loop: %w", err)
		}
		if err := add(y); err != nil {
			return nil, err
		}
	}
	if l.b != nil {
		if h, err = nn.AddBias(h, l.b); err != nil {
			return nil, err
		}
	}
	if l.cfg.act != nil {
		if h, err = l.cfg.act(h); err != nil {
			return nil, err
		}
	}
	if l.cfg.dropout > 0 {
		if h, err = nn.Dropout(h, l.cfg.dropout, nn.ParamSeed(l.cfg.seed, 3), l.cfg.mode); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// aggregate returns the fused (normed) sum of y over relation r's edges.
func (l *RelGraphConv) aggregate(rel *Relations, r int, y *gorgonia.Node) (*gorgonia.Node, error) {
	if rel.norms == nil {
		return ops.CopyUSum(rel.graphs[r], y)
	}
	c := gorgonia.NewMatrix(y.Graph(), l.cfg.dtype, gorgonia.WithShape(len(rel.norms[r]), 1),
		gorgonia.WithName(fmt.Sprintf("%s.norm%d_%d", l.cfg.name, r, rel.graphs[r].ID())),
		gorgonia.WithValue(column(l.cfg.dtype, rel.norms[r])))
	return ops.UMulESum(rel.graphs[r], y, c)
}

// relationWeights returns W_r, an (in, out) node, for every relation.
func (l *RelGraphConv) relationWeights(eg *gorgonia.ExprGraph) ([]*gorgonia.Node, error) {
	ws := make([]*gorgonia.Node, l.numRels)
	switch l.cfg.reg {
	case None:
		for r := range ws {
			w, err := gorgonia.Slice(l.w, gorgonia.S(r))
			if err != nil {
				return nil, err
			}
			ws[r] = w
		}
	case Basis:
		b := l.cfg.numBases
		flat, err := gorgonia.Reshape(l.w, tensor.Shape{b, l.in * l.out})
		if err != nil {
			return nil, err
		}
		all, err := nn.MatMul(l.coeff, flat) // (R, in*out)
		if err != nil {
			return nil, err
		}
		for r := range ws {
			row, err := gorgonia.Slice(all, gorgonia.S(r))
			if err != nil {
				return nil, err
			}
			if ws[r], err = gorgonia.Reshape(row, tensor.Shape{l.in, l.out}); err != nil {
				return nil, err
			}
		}
	case BlockDiagonal:
		b := l.cfg.numBases
		bi, bo := l.in/b, l.out/b
		zero := gorgonia.NewMatrix(eg, l.cfg.dtype, gorgonia.WithShape(bi, bo),
			gorgonia.WithName(l.cfg.name+".zero_block"), gorgonia.WithValue(nn.Zeros(l.cfg.dtype, bi, bo)))
		for r := range ws {
			rows := make([]*gorgonia.Node, b)
			for i := range b {
				cols := make([]*gorgonia.Node, b)
				for j := range b {
					cols[j] = zero
					if i == j {
						blk, err := gorgonia.Slice(l.w, gorgonia.S(r), gorgonia.S(i))
						if err != nil {
							return nil, err
						}
						cols[j] = blk
					}
				}
				row, err := concat(1, cols)
				if err != nil {
					return nil, err
				}
				rows[i] = row
			}
			w, err := concat(0, rows)
			if err != nil {
				return nil, err
			}
			ws[r] = w
		}
	}
	return ws, nil
}

func concat(axis int, xs []*gorgonia.Node) (*gorgonia.Node, error) {
	if len(xs) == 1 {
		return xs[0], nil
	}
	return gorgonia.Concat(axis, xs...)
}

// column returns vals as an (n, 1) tensor of dtype dt.
func column(dt tensor.Dtype, vals []float64) *tensor.Dense {
	if dt == tensor.Float32 {
		f := make([]float32, len(vals))
		for i, v := range vals {
			f[i] = float32(v)
		}
		return tensor.New(tensor.WithShape(len(vals), 1), tensor.WithBacking(f))
	}
	return tensor.New(tensor.WithShape(len(vals), 1), tensor.WithBacking(append([]float64(nil), vals...)))
}
