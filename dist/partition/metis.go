//go:build metis

package partition

/*
#cgo LDFLAGS: -lmetis
#include <metis.h>
#if IDXTYPEWIDTH != 32
#error "gnn's METIS binding needs METIS built with 32-bit idx_t (Debian's libmetis-dev)"
#endif
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/gnngo/gnn/graph"
)

// METISBuilt reports whether this build has the METIS partitioner (build tag
// metis).
const METISBuilt = true

// METIS partitions g like Partition, with METIS_PartGraphKway from the
// system's METIS 5 library (objective: edge cut, imbalance at most 3%,
// seed as given). Edge directions are folded as in Partition.
func METIS(g *graph.Graph, parts int, seed int64) ([]int32, error) {
	return METISBalanced(g, parts, seed, BalanceNodes)
}

// METISBalanced is METIS keeping what b names balanced; with
// BalanceNodesEdges the node counts and the in-edges are two constraints
// (METIS's multi-constraint partitioning), each within 3%.
func METISBalanced(g *graph.Graph, parts int, seed int64, b Balance) ([]int32, error) {
	if err := checkPartitionArgs(g, parts); err != nil {
		return nil, err
	}
	if _, err := vertexWeights(g, b); err != nil {
		return nil, err
	}
	n := g.NumNodes()
	owner := make([]int32, n)
	if parts == 1 || n == 0 {
		return owner, nil
	}
	w := undirected(g)
	if len(w.adj) > math.MaxInt32 {
		return nil, fmt.Errorf("partition: METIS: %d adjacency entries exceed its 32-bit indices", len(w.adj))
	}
	xadj := make([]int32, n+1)
	for i, x := range w.xadj {
		xadj[i] = int32(x)
	}
	var options [C.METIS_NOPTIONS]C.idx_t
	C.METIS_SetDefaultOptions(&options[0])
	options[C.METIS_OPTION_SEED] = C.idx_t(int32(seed))
	options[C.METIS_OPTION_UFACTOR] = 30 // 1.03, MaxImbalance
	options[C.METIS_OPTION_NUMBERING] = 0
	nvtxs, ncon, nparts := C.idx_t(n), C.idx_t(1), C.idx_t(parts)
	vw := w.vw
	if b == BalanceNodesEdges {
		// Two weights per vertex: 1 (its node) and its in-degree.
		ncon = 2
		vw = make([]int32, 2*n)
		_, dst := g.COO()
		for v := range n {
			vw[2*v] = 1
		}
		for _, v := range dst {
			vw[2*v+1]++
		}
	}
	var objval C.idx_t
	idx := func(s []int32) *C.idx_t {
		if len(s) == 0 {
			return nil
		}
		return (*C.idx_t)(unsafe.Pointer(&s[0]))
	}
	adj := w.adj
	if len(adj) == 0 {
		// METIS reads adjncy even when it is empty.
		adj = []int32{0}
	}
	ew := w.ew
	if len(ew) == 0 {
		ew = []int32{0}
	}
	rc := C.METIS_PartGraphKway(&nvtxs, &ncon, idx(xadj), idx(adj), idx(vw), nil, idx(ew),
		&nparts, nil, nil, &options[0], &objval, idx(owner))
	switch rc {
	case C.METIS_OK:
		return owner, nil
	case C.METIS_ERROR_INPUT:
		return nil, fmt.Errorf("partition: METIS rejected the input (METIS_ERROR_INPUT)")
	case C.METIS_ERROR_MEMORY:
		return nil, fmt.Errorf("partition: METIS ran out of memory (METIS_ERROR_MEMORY)")
	default:
		return nil, fmt.Errorf("partition: METIS failed (code %d)", int(rc))
	}
}
