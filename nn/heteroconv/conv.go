package heteroconv

import (
	"fmt"
	"slices"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/nn"
)

// Conv is a heterogeneous graph convolution: one layer per relation and a
// cross-relation reducer. Build it with New.
type Conv struct {
	types []hetero.EdgeType // sorted, as a heterograph's
	mods  []nn.Layer
	agg   mp.CrossReducer
}

// New returns a Conv running mods[t] on relation t and combining the
// outputs for each destination type with agg. A layer may serve several
// relations (its parameters are then shared). It returns an error when
// mods is empty, a layer is nil, or agg is not a known reducer.
func New(mods map[hetero.EdgeType]nn.Layer, agg mp.CrossReducer) (*Conv, error) {
	if len(mods) == 0 {
		return nil, fmt.Errorf("heteroconv: no relation layers")
	}
	if agg < mp.CrossSum || agg > mp.CrossStack {
		return nil, fmt.Errorf("heteroconv: unknown cross reducer %d", int(agg))
	}
	c := &Conv{agg: agg}
	for t, l := range mods {
		if l == nil {
			return nil, fmt.Errorf("heteroconv: relation %s has a nil layer", t)
		}
		c.types = append(c.types, t)
	}
	slices.SortFunc(c.types, hetero.EdgeType.Compare)
	for _, t := range c.types {
		c.mods = append(c.mods, mods[t])
	}
	return c, nil
}

// Forward runs every relation of h whose source type has features in x:
// its layer maps x[t.Src] on the relation's graph to outputs for t.Dst,
// and the outputs of each destination type are combined, in edge-type
// order, with the reducer (DGL's HeteroGraphConv.forward). Layers given
// for relations that h lacks are not used, so one Conv serves a
// heterograph's relation subgraphs. Relations into a node type with no
// nodes are not run either: their output would be empty, which Gorgonia
// cannot hold, so such a type has no entry in the result. It returns an error naming the
// relation when one of h's relations with input has no layer, when a
// layer fails, or when the outputs for a type cannot be combined.
func (c *Conv) Forward(h *hetero.Graph, x map[string]*gorgonia.Node) (map[string]*gorgonia.Node, error) {
	if h == nil {
		return nil, fmt.Errorf("heteroconv: nil heterograph")
	}
	for name := range x {
		if _, err := h.NodeTypeID(name); err != nil {
			return nil, fmt.Errorf("heteroconv: features given for %w", err)
		}
	}
	outs := map[string][]*gorgonia.Node{}
	var order []string
	for j, t := range h.EdgeTypes() {
		in, ok := x[t.Src]
		if !ok || h.RelationAt(j).NumDst() == 0 {
			continue
		}
		i, found := slices.BinarySearchFunc(c.types, t, hetero.EdgeType.Compare)
		if !found {
			return nil, fmt.Errorf("heteroconv: relation %s has input features but no layer", t)
		}
		y, err := c.run(c.mods[i], h.RelationAt(j), t, in, x)
		if err != nil {
			return nil, fmt.Errorf("heteroconv: relation %s: %w", t, err)
		}
		if outs[t.Dst] == nil {
			order = append(order, t.Dst)
		}
		outs[t.Dst] = append(outs[t.Dst], y)
	}
	res := make(map[string]*gorgonia.Node, len(outs))
	for _, nt := range order {
		y, err := mp.CrossReduce(c.agg, outs[nt])
		if err != nil {
			return nil, fmt.Errorf("heteroconv: node type %q: %w", nt, err)
		}
		res[nt] = y
	}
	return res, nil
}

// run applies layer l to relation t's graph g with source features in: on
// a relation between two node types, a BipartiteLayer also gets the
// destination type's features (as DGL passes a (src, dst) pair), and
// fails without them; another layer reads the source features only.
func (c *Conv) run(l nn.Layer, g nn.Graph, t hetero.EdgeType, in *gorgonia.Node, x map[string]*gorgonia.Node) (*gorgonia.Node, error) {
	b, ok := l.(nn.BipartiteLayer)
	if !ok || t.Src == t.Dst {
		return l.Forward(g, in)
	}
	dst, ok := x[t.Dst]
	if !ok {
		return nil, fmt.Errorf("the layer reads destination features, but node type %q has none", t.Dst)
	}
	return b.ForwardBipartite(g, in, dst)
}

// Learnables returns the relation layers' parameters in edge-type order,
// each once even when a layer serves several relations.
func (c *Conv) Learnables() gorgonia.Nodes {
	var ps gorgonia.Nodes
	seen := map[*gorgonia.Node]bool{}
	for _, l := range c.mods {
		for _, p := range l.Learnables() {
			if !seen[p] {
				seen[p] = true
				ps = append(ps, p)
			}
		}
	}
	return ps
}
