package linkpred

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
)

// HeteroPart is one split's view of a heterograph split on one relation.
type HeteroPart struct {
	// Part is the split relation's own part, as SplitEdges gives it for
	// the relation's graph: its message-passing graph, the map to the
	// relation's edge IDs, and the supervision pairs (source-type and
	// destination-type node IDs).
	Part
	// Hetero is the parent heterograph with the split relation, and the
	// reverse relation if one was named, holding only their
	// message-passing edges; the other relations are shared unchanged.
	Hetero *hetero.Graph
	// Rel and Reverse are the canonical types of the split relation and
	// of its reverse (the zero EdgeType when none was named).
	Rel, Reverse hetero.EdgeType
	// ReverseGraphEIDs maps each edge of the reverse relation in Hetero to
	// its edge ID in the parent's reverse relation; nil without a reverse.
	ReverseGraphEIDs []int64
	// ReverseRelEIDs holds, for each supervision pair, the edge ID of its
	// reverse edge in the parent's reverse relation; nil without a
	// reverse. A loader excludes these from message passing with EIDs.
	ReverseRelEIDs []int64
}

// HeteroSplit is the result of SplitRelation.
type HeteroSplit struct {
	Train, Val, Test HeteroPart
}

// SplitRelation splits the edges of relation rel of hg as SplitEdges splits
// a graph's (PyG's RandomLinkSplit with edge_types and rev_edge_types). When
// reverse is not "", it names the reverse relation, whose edges go with their
// forward edges: its edge v->u is matched with the relation's edge u->v (the
// i-th of each, in edge-ID order, when there are parallel edges) and falls in
// the same split, so the reverse of a validation or test edge passes no
// messages where its forward edge may not. cfg.Undirected applies to rel
// itself (its source and destination types must be the same).
//
// Relation names are resolved by hetero.Graph.CanonicalEdgeType. It returns
// an error for an unknown or ambiguous relation name, a reverse relation whose
// types are not rel's swapped or that is rel itself, an edge of either
// relation without a partner in the other (naming it), and the errors of
// SplitEdges.
func SplitRelation(hg *hetero.Graph, rel, reverse string, cfg SplitConfig) (*HeteroSplit, error) {
	ft, err := hg.CanonicalEdgeType(rel)
	if err != nil {
		return nil, fmt.Errorf("linkpred: relation to split: %w", err)
	}
	fg, err := hg.Relation(ft)
	if err != nil {
		return nil, err
	}
	groups, partner, sup, err := assign(fg, cfg)
	if err != nil {
		return nil, fmt.Errorf("%w (relation %s)", err, ft)
	}
	var rt hetero.EdgeType
	var rg *graph.Graph
	var fwdRev, revFwd []int64
	var revGroups []uint8
	if reverse != "" {
		if rt, err = hg.CanonicalEdgeType(reverse); err != nil {
			return nil, fmt.Errorf("linkpred: reverse relation: %w", err)
		}
		if rt == ft {
			return nil, fmt.Errorf("linkpred: relation %s is named as its own reverse (use Undirected for a relation that holds both directions)", ft)
		}
		if rt.Src != ft.Dst || rt.Dst != ft.Src {
			return nil, fmt.Errorf("linkpred: reverse relation %s must run from %q to %q, the reverse of %s", rt, ft.Dst, ft.Src, ft)
		}
		if rg, err = hg.Relation(rt); err != nil {
			return nil, err
		}
		if fwdRev, revFwd, err = matchReverse(fg, rg, ft, rt); err != nil {
			return nil, err
		}
		revGroups = make([]uint8, len(revFwd))
		for e, f := range revFwd {
			revGroups[e] = groups[f]
		}
	}
	s := &HeteroSplit{}
	for i, p := range []*HeteroPart{&s.Train, &s.Val, &s.Test} {
		mp := groupTrain + uint8(i)
		p.Rel = ft
		if p.Part, err = part(fg, groups, partner, mp, sup[i]); err != nil {
			return nil, err
		}
		rels := map[hetero.EdgeType]*graph.Graph{}
		for _, t := range hg.EdgeTypes() {
			rels[t], _ = hg.Relation(t)
		}
		rels[ft] = p.Graph
		if rg != nil {
			p.Reverse = rt
			var r Part
			if r, err = part(rg, revGroups, nil, mp, 255); err != nil {
				return nil, err
			}
			rels[rt], p.ReverseGraphEIDs = r.Graph, r.GraphEIDs
			p.ReverseRelEIDs = make([]int64, len(p.EIDs))
			for j, e := range p.EIDs {
				p.ReverseRelEIDs[j] = fwdRev[e]
			}
		}
		nodes := map[string]int{}
		for j, name := range hg.NodeTypes() {
			nodes[name] = hg.NodeCount(j)
		}
		if p.Hetero, err = hetero.New(nodes, rels); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// matchReverse matches every edge u->v of fg with an edge v->u of rg, the
// i-th with the i-th in edge-ID order, and returns both maps, or an error
// naming the lowest-numbered edge of fg, or else of rg, left unmatched.
func matchReverse(fg, rg *graph.Graph, ft, rt hetero.EdgeType) (fwdRev, revFwd []int64, err error) {
	fs, fd := fg.COO()
	rs, rd := rg.COO()
	ks := make([]keyed, 0, len(fs)+len(rs))
	for e := range fs {
		ks = append(ks, keyed{key: pack(fs[e], fd[e]), e: int64(e)})
	}
	for e := range rs {
		ks = append(ks, keyed{key: pack(rd[e], rs[e]), dir: 1, e: int64(e)})
	}
	sortKeyed(ks)
	fwdRev, revFwd = make([]int64, len(fs)), make([]int64, len(rs))
	for i := range fwdRev {
		fwdRev[i] = -1
	}
	for i := range revFwd {
		revFwd[i] = -1
	}
	for lo := 0; lo < len(ks); {
		hi, m := lo+1, lo
		for hi < len(ks) && ks[hi].key == ks[lo].key {
			hi++
		}
		for m < hi && ks[m].dir == 0 {
			m++
		}
		for i := 0; i < m-lo && m+i < hi; i++ {
			f, r := ks[lo+i].e, ks[m+i].e
			fwdRev[f], revFwd[r] = r, f
		}
		lo = hi
	}
	for e, r := range fwdRev {
		if r < 0 {
			return nil, nil, fmt.Errorf("linkpred: edge %d (%d -> %d) of relation %s has no reverse edge %d -> %d left in relation %s",
				e, fs[e], fd[e], ft, fd[e], fs[e], rt)
		}
	}
	for e, f := range revFwd {
		if f < 0 {
			return nil, nil, fmt.Errorf("linkpred: edge %d (%d -> %d) of reverse relation %s has no forward edge %d -> %d left in relation %s",
				e, rs[e], rd[e], rt, rd[e], rs[e], ft)
		}
	}
	return fwdRev, revFwd, nil
}
