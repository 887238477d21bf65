package layerkit

import (
	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/nn"
)

// CheckInput is the check at the top of a layer's Forward: a graph, and
// features x of NumSrc rows, in columns and the layer's dtype.
func (c *Config) CheckInput(g nn.Graph, x *gorgonia.Node, in int) error {
	if nn.IsNil(g) || x == nil {
		return c.Errorf("Forward needs a graph and features")
	}
	if s := x.Shape(); len(s) != 2 || s[0] != g.NumSrc() || s[1] != in {
		return c.Errorf("features %q have shape %v, want (%d, %d)", x.Name(), s, g.NumSrc(), in)
	}
	if x.Dtype() != c.Dtype {
		return c.Errorf("features have dtype %v, the layer %v", x.Dtype(), c.Dtype)
	}
	return nil
}

// CheckHomogeneous is CheckInput for a layer that needs as many source as
// destination nodes; kind names the layer in the error ("SGConv").
func (c *Config) CheckHomogeneous(g nn.Graph, x *gorgonia.Node, in int, kind string) error {
	if !nn.IsNil(g) && g.NumSrc() != g.NumDst() {
		return c.Errorf("graph has %d source and %d destination nodes; %s needs a homogeneous graph", g.NumSrc(), g.NumDst(), kind)
	}
	return c.CheckInput(g, x, in)
}

// CheckDst is the check of destination features given apart (a
// bipartite Forward): NumDst rows, width columns and the layer's dtype.
func (c *Config) CheckDst(g nn.Graph, xDst *gorgonia.Node, width int) error {
	if s := xDst.Shape(); len(s) != 2 || s[0] != g.NumDst() || s[1] != width {
		return c.Errorf("destination features %q have shape %v, want (%d, %d)", xDst.Name(), s, g.NumDst(), width)
	}
	if xDst.Dtype() != c.Dtype {
		return c.Errorf("destination features have dtype %v, the layer %v", xDst.Dtype(), c.Dtype)
	}
	return nil
}

// CheckDstFirst is the check of a layer that reads the destination nodes'
// features as the first NumDst rows of the source features (DGL's blocks).
func (c *Config) CheckDstFirst(g nn.Graph) error {
	if g.NumDst() > g.NumSrc() {
		return c.Errorf("graph has %d destination nodes but %d sources; the destinations must be the first NumDst sources", g.NumDst(), g.NumSrc())
	}
	return nil
}

// CheckZeroIn is the zero in-degree rule: unless AllowZeroIn, an error
// when a destination node of g has no in-edges. alone says what such a
// node's output would be ("the bias alone"), "" for nothing said.
func (c *Config) CheckZeroIn(g nn.Graph, alone string) error {
	if c.AllowZeroIn {
		return nil
	}
	z := g.ZeroInDegree()
	if len(z) == 0 {
		return nil
	}
	if alone != "" {
		alone = "; their output would be " + alone
	}
	return c.Errorf("%d of %d destination nodes have no in-edges (node %d first)%s; add self-loops (graph.AddSelfLoops) or use WithAllowZeroInDegree(true)", len(z), g.NumDst(), z[0], alone)
}

// Activate applies the layer's output activation Act to x; without one it
// returns x.
func (c *Config) Activate(x *gorgonia.Node) (*gorgonia.Node, error) {
	if c.Act == nil {
		return x, nil
	}
	return c.Act(x)
}

// Output is the end of a layer's Forward on its aggregated features rst
// (N, heads*F, head-major): rst plus the residual res and the bias b, each
// when not nil, then with mean and more than one head the mean over the
// heads (N, F), then Activate.
func (c *Config) Output(rst, res, b *gorgonia.Node, heads int, mean bool) (*gorgonia.Node, error) {
	var err error
	if res != nil {
		if rst, err = gorgonia.Add(rst, res); err != nil {
			return nil, err
		}
	}
	if b != nil {
		if rst, err = nn.AddBias(rst, b); err != nil {
			return nil, err
		}
	}
	if mean && heads > 1 {
		if rst, err = nn.MeanHeads(rst, heads); err != nil {
			return nil, err
		}
	}
	return c.Activate(rst)
}

// CheckEdgeFeatures checks that edge features ef are given exactly when
// the layer takes them (d > 0, WithEdgeFeatures(d)), and, when given,
// their shape (NumEdges, d) and dtype.
func (c *Config) CheckEdgeFeatures(g nn.Graph, ef *gorgonia.Node, d int) error {
	switch {
	case ef == nil && d > 0:
		return c.Errorf("the layer takes edge features of size %d; use ForwardEdges", d)
	case ef == nil:
		return nil
	case d == 0:
		return c.Errorf("edge features given to a layer built without WithEdgeFeatures")
	}
	if s := ef.Shape(); len(s) != 2 || s[0] != g.NumEdges() || s[1] != d {
		return c.Errorf("edge features %q have shape %v, want (%d, %d)", ef.Name(), s, g.NumEdges(), d)
	}
	if ef.Dtype() != c.Dtype {
		return c.Errorf("edge features have dtype %v, the layer %v", ef.Dtype(), c.Dtype)
	}
	return nil
}
