package mp

import (
	"fmt"
	"maps"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph/hetero"
)

// HeteroFrame binds feature data to a heterograph: one node store per node
// type and one edge store per edge type (DGL's g.nodes[ntype].data and
// g.edges[etype].data). MultiUpdateAll passes messages on several
// relations and combines their results per destination type.
//
// A HeteroFrame is not safe for concurrent use.
type HeteroFrame struct {
	h       *hetero.Graph
	nodes   []*Data
	edges   []*Data
	initial float64
}

// NewHeteroFrame returns an empty frame over h, or an error when h is nil.
func NewHeteroFrame(h *hetero.Graph) (*HeteroFrame, error) {
	if h == nil {
		return nil, fmt.Errorf("mp: NewHeteroFrame: nil graph")
	}
	f := &HeteroFrame{h: h, nodes: make([]*Data, h.NumNodeTypes()), edges: make([]*Data, h.NumEdgeTypes())}
	for i, name := range h.NodeTypes() {
		f.nodes[i] = newData(fmt.Sprintf("%q node", name), h.NodeCount(i))
	}
	for j, t := range h.EdgeTypes() {
		f.edges[j] = newData(fmt.Sprintf("%s edge", t), h.RelationAt(j).NumEdges())
	}
	return f, nil
}

// Graph returns the frame's heterograph.
func (f *HeteroFrame) Graph() *hetero.Graph { return f.h }

// Nodes returns the fields of the nodes of type ntype.
func (f *HeteroFrame) Nodes(ntype string) (*Data, error) {
	i, err := f.h.NodeTypeID(ntype)
	if err != nil {
		return nil, fmt.Errorf("mp: %w", err)
	}
	return f.nodes[i], nil
}

// Edges returns the fields of the edges of type t, one row per edge ID of
// its relation.
func (f *HeteroFrame) Edges(t hetero.EdgeType) (*Data, error) {
	j, err := f.h.EdgeTypeID(t)
	if err != nil {
		return nil, fmt.Errorf("mp: %w", err)
	}
	return f.edges[j], nil
}

// SetInitial sets the value a node gets from a relation on which it
// receives no message (Frame.SetInitial); 0 unless set.
func (f *HeteroFrame) SetInitial(v float64) { f.initial = v }

// Relation returns a Frame over relation t's graph whose source, destination
// and edge data are the frame's stores of t.Src, t.Dst and t: what a
// routine writes there is visible in the heterograph's frame (DGL's
// g[etype]). Over a relation within one node type the frame is homogeneous.
func (f *HeteroFrame) Relation(t hetero.EdgeType) (*Frame, error) {
	j, err := f.h.EdgeTypeID(t)
	if err != nil {
		return nil, fmt.Errorf("mp: %w", err)
	}
	s, d := f.h.Endpoints(j)
	return f.relationFrame(j, f.nodes[s], f.nodes[d]), nil
}

// relationFrame returns the frame of relation j over the stores src and
// dst (one store when the relation is within one node type).
func (f *HeteroFrame) relationFrame(j int, src, dst *Data) *Frame {
	g := f.h.RelationAt(j)
	s, d := f.h.Endpoints(j)
	fr := &Frame{g: g, src: src, dst: dst, edges: f.edges[j], initial: f.initial}
	if s == d {
		fr.nodes, fr.src = dst, dst
	} else {
		fr.nodes = &Data{what: "node", err: fmt.Errorf(
			"node data is ambiguous on relation %s between two node types; use SrcData or DstData", f.h.EdgeTypes()[j])}
	}
	return fr
}

// Pass is the message and reduce functions, and optional apply function,
// that MultiUpdateAll runs on one relation (the tuple of DGL's
// multi_update_all).
type Pass struct {
	Message MessageFunc
	Reduce  ReduceFunc
	Apply   NodeFunc
}

// MultiUpdateAll runs UpdateAll with each relation's pass, each exactly as
// UpdateAll would on that relation's graph (builtins fused, no per-edge
// messages), then combines, for every destination node type and every field
// the passes wrote, the results of the relations that wrote it, in edge-type
// order, with cross (DGL's multi_update_all). A node with no in-edges on a
// relation takes the initial value there, as in DGL. Node types no pass
// reaches keep their fields. It returns an error naming the relation at
// fault, and changes nothing, when a pass fails, names an edge type the
// graph lacks, or the results cannot be combined.
func (f *HeteroFrame) MultiUpdateAll(passes map[hetero.EdgeType]Pass, cross CrossReducer) error {
	for t := range passes {
		if _, err := f.h.EdgeTypeID(t); err != nil {
			return fmt.Errorf("mp: MultiUpdateAll: %w", err)
		}
	}
	// fields[d][name]: the results for node type d's field name, in
	// edge-type order; names[d] lists the names in first-written order.
	fields := make([]map[string][]*gorgonia.Node, len(f.nodes))
	names := make([][]string, len(f.nodes))
	for j, t := range f.h.EdgeTypes() {
		p, ok := passes[t]
		if !ok {
			continue
		}
		s, d := f.h.Endpoints(j)
		out := f.nodes[d].clone()
		src := f.nodes[s]
		if s == d {
			src = out
		}
		if err := f.relationFrame(j, src, out).UpdateAll(p.Message, p.Reduce, p.Apply); err != nil {
			return fmt.Errorf("mp: MultiUpdateAll: relation %s: %w", t, err)
		}
		if fields[d] == nil {
			fields[d] = map[string][]*gorgonia.Node{}
		}
		for _, name := range out.Names() {
			if x := out.fields[name]; f.nodes[d].fields[name] != x {
				if fields[d][name] == nil {
					names[d] = append(names[d], name)
				}
				fields[d][name] = append(fields[d][name], x)
			}
		}
	}
	combined := make([]Fields, len(f.nodes))
	for d, ns := range names {
		combined[d] = Fields{}
		for _, name := range ns {
			x, err := CrossReduce(cross, fields[d][name])
			if err != nil {
				return fmt.Errorf("mp: MultiUpdateAll: field %q of node type %q: %w", name, f.h.NodeTypes()[d], err)
			}
			combined[d][name] = x
		}
	}
	for d, c := range combined {
		maps.Copy(f.nodes[d].fields, c)
	}
	return nil
}
