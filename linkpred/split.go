package linkpred

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/seeded"
)

// SplitConfig configures SplitEdges and SplitRelation, as the arguments of
// PyG's RandomLinkSplit.
type SplitConfig struct {
	// Val and Test are the fractions of the edges (of the pairs, when
	// Undirected) held out for validation and test, each in [0, 1) with a
	// sum below 1. The counts are rounded down, as PyG's int(ratio * n):
	// with P edges or pairs, validation gets floor(Val*P), test
	// floor(Test*P) and training the remaining P - floor(Val*P) -
	// floor(Test*P), at least one.
	Val, Test float64
	// DisjointTrain is PyG's disjoint_train_ratio, in [0, 1): the fraction
	// of the training edges used only as supervision and kept out of the
	// training message-passing graph. floor(DisjointTrain*T) of the T
	// training edges are held out; when that is zero (DisjointTrain is 0
	// or T is small) all training edges both pass messages and supervise,
	// as in PyG.
	DisjointTrain float64
	// Undirected treats every edge u->v and its reverse v->u as one pair
	// that always falls in one split. Every edge must have a distinct
	// reverse partner (a bidirected graph; parallel edges pair up in
	// edge-ID order) and a self-loop is a pair on its own. Supervision
	// lists each pair once, by its edge with src <= dst, as PyG does;
	// message-passing graphs hold both directions.
	Undirected bool
	// Seed selects the random permutation: the same graph and
	// configuration always give the same split.
	Seed uint64
}

// check validates the ratios.
func (c SplitConfig) check() error {
	for _, r := range []struct {
		name string
		v    float64
	}{{"Val", c.Val}, {"Test", c.Test}, {"DisjointTrain", c.DisjointTrain}} {
		if !(r.v >= 0 && r.v < 1) {
			return fmt.Errorf("linkpred: %s ratio %v outside [0, 1)", r.name, r.v)
		}
	}
	if c.Val+c.Test >= 1 {
		return fmt.Errorf("linkpred: Val + Test = %v + %v = %v leaves no training edges (the sum must be below 1)", c.Val, c.Test, c.Val+c.Test)
	}
	return nil
}

// Part is one split's view of a graph: the graph its message passing runs on
// and the positive supervision edges it is trained or evaluated on.
type Part struct {
	// Graph holds the message-passing edges over all the parent's nodes
	// (same NumSrc and NumDst), in increasing parent edge-ID order.
	Graph *graph.Graph
	// GraphEIDs maps each edge of Graph to its parent edge ID.
	GraphEIDs []int64
	// Src and Dst are the positive supervision pairs, in increasing parent
	// edge-ID order; EIDs holds the parent edge ID of each.
	Src, Dst []int32
	EIDs     []int64
	// ReverseEIDs holds, when the split is Undirected, the parent edge ID
	// of each supervision edge's reverse partner (the edge itself for a
	// self-loop); nil otherwise. A loader excludes EIDs and ReverseEIDs
	// from message passing to keep the labels out of it.
	ReverseEIDs []int64
}

// EdgeSplit is the result of SplitEdges: PyG's train, validation and test
// data of RandomLinkSplit.
//
// Train's message-passing graph holds the training edges less the disjoint
// supervision ones; Val's holds all training edges; Test's holds the
// training and validation edges. Validation and test supervision edges (and,
// when Undirected, their reverses) are therefore in no message-passing graph
// of their own split or an earlier one. Every parent edge is a message-passing
// edge of Test, a supervision edge of Val or Test, or the reverse of one.
type EdgeSplit struct {
	Train, Val, Test Part
}

// Edge groups, in the order the message-passing graphs grow: train's holds
// groupTrain, val's adds groupDisjoint, test's adds groupVal.
const (
	groupTrain uint8 = iota
	groupDisjoint
	groupVal
	groupTest
)

// SplitEdges splits the edges of g into training, validation and test
// message-passing and supervision edges by cfg (PyG's RandomLinkSplit; see
// SplitConfig for the rounding). It works on bipartite graphs as well unless
// cfg.Undirected, which needs a homogeneous graph. It returns an error for a
// ratio outside [0, 1) or Val + Test >= 1, a graph with no edges, or, with
// Undirected, an edge without a reverse partner (naming the first one).
func SplitEdges(g *graph.Graph, cfg SplitConfig) (*EdgeSplit, error) {
	groups, partner, sup, err := assign(g, cfg)
	if err != nil {
		return nil, err
	}
	s := &EdgeSplit{}
	for i, p := range []*Part{&s.Train, &s.Val, &s.Test} {
		if *p, err = part(g, groups, partner, groupTrain+uint8(i), sup[i]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// assign gives every edge of g its group (reverse partners share one) and
// returns the partner map (nil unless Undirected) and the group whose
// representative edges supervise each split.
func assign(g *graph.Graph, cfg SplitConfig) (groups []uint8, partner []int64, sup [3]uint8, err error) {
	if err = cfg.check(); err != nil {
		return
	}
	if g.NumEdges() == 0 {
		err = fmt.Errorf("linkpred: cannot split a graph with no edges (%v)", g)
		return
	}
	if cfg.Undirected {
		if partner, err = pairs(g); err != nil {
			return
		}
	}
	reps := representatives(g, partner)
	var s seeded.Stream
	s.Reset(cfg.Seed, math.MaxUint64)
	for i := len(reps) - 1; i > 0; i-- {
		j := int(s.Below(uint64(i + 1)))
		reps[i], reps[j] = reps[j], reps[i]
	}
	n := len(reps)
	numVal, numTest := int(cfg.Val*float64(n)), int(cfg.Test*float64(n))
	numTrain := n - numVal - numTest
	numDisjoint := int(cfg.DisjointTrain * float64(numTrain))
	groups = make([]uint8, g.NumEdges())
	for p, e := range reps {
		grp := groupTrain
		switch {
		case p < numDisjoint:
			grp = groupDisjoint
		case p >= numTrain+numVal:
			grp = groupTest
		case p >= numTrain:
			grp = groupVal
		}
		groups[e] = grp
		if partner != nil {
			groups[partner[e]] = grp
		}
	}
	sup = [3]uint8{groupTrain, groupVal, groupTest}
	if numDisjoint > 0 {
		sup[0] = groupDisjoint
	}
	return
}

// representatives returns the edges that stand for a supervision pair, in
// increasing ID order: every edge, or with a partner map the edge of each
// pair whose source is at most its destination.
func representatives(g *graph.Graph, partner []int64) []int64 {
	src, dst := g.COO()
	reps := make([]int64, 0, len(src))
	for e := range src {
		if partner == nil || src[e] <= dst[e] {
			reps = append(reps, int64(e))
		}
	}
	return reps
}

// part builds the Part whose message passing holds the edges of groups below
// or equal to mp (group order: train, disjoint, val) and whose supervision is
// the representative edges of group sup.
func part(g *graph.Graph, groups []uint8, partner []int64, mp, sup uint8) (Part, error) {
	src, dst := g.COO()
	isSup := func(e int, grp uint8) bool { return grp == sup && (partner == nil || src[e] <= dst[e]) }
	var nm, ns int
	for e, grp := range groups {
		if grp <= mp {
			nm++
		}
		if isSup(e, grp) {
			ns++
		}
	}
	ms, md := make([]int32, 0, nm), make([]int32, 0, nm)
	p := Part{GraphEIDs: make([]int64, 0, nm),
		Src: make([]int32, 0, ns), Dst: make([]int32, 0, ns), EIDs: make([]int64, 0, ns)}
	if partner != nil {
		p.ReverseEIDs = make([]int64, 0, ns)
	}
	for e, grp := range groups {
		if grp <= mp {
			ms, md = append(ms, src[e]), append(md, dst[e])
			p.GraphEIDs = append(p.GraphEIDs, int64(e))
		}
		if isSup(e, grp) {
			p.Src, p.Dst = append(p.Src, src[e]), append(p.Dst, dst[e])
			p.EIDs = append(p.EIDs, int64(e))
			if partner != nil {
				p.ReverseEIDs = append(p.ReverseEIDs, partner[e])
			}
		}
	}
	var err error
	p.Graph, err = graph.FromCOO(g.NumSrc(), g.NumDst(), ms, md)
	return p, err
}
