package mp

import (
	"fmt"
	"slices"

	"github.com/gnngo/gnn/graph"
)

// sortedEdges validates edge IDs given by a user (name is the argument's
// name in errors) and returns them in increasing order, in a new slice.
func (f *Frame) sortedEdges(eids []int64, name string) ([]int64, error) {
	n := int64(f.g.NumEdges())
	seen := make([]uint64, (n+63)/64)
	for i, e := range eids {
		if e < 0 || e >= n {
			return nil, fmt.Errorf("%s[%d] = %d but the graph has %d edges", name, i, e, n)
		}
		if seen[e/64]&(1<<(e%64)) != 0 {
			return nil, fmt.Errorf("%s[%d] = %d repeats an earlier entry", name, i, e)
		}
		seen[e/64] |= 1 << (e % 64)
	}
	s := slices.Clone(eids)
	sortEdges(s)
	return s, nil
}

// sortedNodes validates node IDs given by a user against n nodes of one
// side and returns them in increasing order, in a new slice.
func sortedNodes(nodes []int32, n int, side string) ([]int32, error) {
	seen := make([]uint64, (n+63)/64)
	for i, v := range nodes {
		if v < 0 || int(v) >= n {
			return nil, fmt.Errorf("nodes[%d] = %d but the graph has %d %s nodes", i, v, n, side)
		}
		if seen[v/64]&(1<<(v%64)) != 0 {
			return nil, fmt.Errorf("nodes[%d] = %d repeats an earlier entry", i, v)
		}
		seen[v/64] |= 1 << (v % 64)
	}
	s := slices.Clone(nodes)
	slices.Sort(s)
	return s, nil
}

func sortEdges(e []int64) { slices.Sort(e) }

// recvCompute returns the compute graph of the edges eids (increasing,
// distinct) that keeps every source node and renumbers the destinations
// updated: dsts (increasing, distinct, including every destination of
// eids), or the destinations of eids when dsts is nil. Edge i of the
// compute graph is eids[i], so mailboxes keep the frame's edge-ID order.
func (f *Frame) recvCompute(eids []int64, dsts []int32) (*compute, error) {
	src, dst := f.g.COO()
	newID := make([]int32, f.g.NumDst())
	if dsts == nil {
		for _, e := range eids {
			newID[dst[e]] = 1
		}
		for v, used := range newID {
			if used != 0 {
				dsts = append(dsts, int32(v))
			}
		}
	}
	for i, v := range dsts {
		newID[v] = int32(i)
	}
	cs, cd := make([]int32, len(eids)), make([]int32, len(eids))
	for i, e := range eids {
		cs[i], cd[i] = src[e], newID[dst[e]]
	}
	cg, err := graph.FromCOO(f.g.NumSrc(), len(dsts), cs, cd)
	if err != nil {
		return nil, err
	}
	return newCompute(f, cg, dsts, eids), nil
}
