package linkpred

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gnngo/gnn/graph"
)

// keyed is an edge with the key it is matched by.
type keyed struct {
	key uint64 // endpoints, packed
	dir uint8  // which side of the match the edge is on
	e   int64
}

func pack(u, v int32) uint64 { return uint64(uint32(u))<<32 | uint64(uint32(v)) }

// pairs matches every edge u->v of a homogeneous graph with a reverse edge
// v->u, the i-th u->v (in edge-ID order) with the i-th v->u; a self-loop is
// its own partner. It returns the partner of every edge, or an error naming
// the lowest-numbered edge left without one.
func pairs(g *graph.Graph) ([]int64, error) {
	if !g.Homogeneous() {
		return nil, fmt.Errorf("linkpred: Undirected needs a homogeneous graph, not %v", g)
	}
	src, dst := g.COO()
	ks := make([]keyed, len(src))
	for e := range src {
		u, v := src[e], dst[e]
		k := keyed{key: pack(u, v), e: int64(e)}
		if u > v {
			k = keyed{key: pack(v, u), dir: 1, e: int64(e)}
		}
		ks[e] = k
	}
	sortKeyed(ks)
	partner := make([]int64, len(src))
	unpaired := int64(-1)
	for lo := 0; lo < len(ks); {
		hi := lo + 1
		for hi < len(ks) && ks[hi].key == ks[lo].key {
			hi++
		}
		if u, v := ks[lo].key>>32, ks[lo].key&(1<<32-1); u == v {
			for _, k := range ks[lo:hi] {
				partner[k.e] = k.e
			}
		} else if e := matchGroup(ks[lo:hi], partner); e >= 0 && (unpaired < 0 || e < unpaired) {
			unpaired = e
		}
		lo = hi
	}
	if unpaired >= 0 {
		return nil, fmt.Errorf("linkpred: Undirected: edge %d (%d -> %d) has no reverse edge %d -> %d to pair with",
			unpaired, src[unpaired], dst[unpaired], dst[unpaired], src[unpaired])
	}
	return partner, nil
}

// matchGroup pairs the dir-0 and dir-1 edges of one sorted key group in
// order, filling partner, and returns the lowest edge ID left unmatched, or
// -1.
func matchGroup(ks []keyed, partner []int64) int64 {
	m, _ := slices.BinarySearchFunc(ks, uint8(1), func(k keyed, d uint8) int { return cmp.Compare(k.dir, d) })
	fwd, rev := ks[:m], ks[m:]
	n := min(len(fwd), len(rev))
	for i := range n {
		partner[fwd[i].e], partner[rev[i].e] = rev[i].e, fwd[i].e
	}
	left := fwd[n:]
	if len(rev) > n {
		left = rev[n:]
	}
	if len(left) == 0 {
		return -1
	}
	low := left[0].e
	for _, k := range left {
		low = min(low, k.e)
	}
	return low
}

// sortKeyed sorts edges by key, then side, then edge ID, by a stable
// least-significant-digit radix sort on (key, side), 16 bits a pass, which
// keeps the edge-ID order the callers list edges in. Keys pack two node IDs
// below 2^31, so (key, side) fits 64 bits; passes over digits that are the
// same for every edge are skipped.
func sortKeyed(ks []keyed) {
	rk := func(k keyed) uint64 { return k.key<<1 | uint64(k.dir) }
	if len(ks) < 256 {
		slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Compare(rk(a), rk(b)) })
		return
	}
	var or, and uint64 = 0, ^uint64(0)
	for _, k := range ks {
		or, and = or|rk(k), and&rk(k)
	}
	buf := make([]keyed, len(ks))
	from, to := ks, buf
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		if (or^and)>>shift&0xffff == 0 {
			continue // every key has this digit
		}
		clear(count[:])
		for _, k := range from {
			count[rk(k)>>shift&0xffff]++
		}
		sum := 0
		for d, c := range count {
			count[d], sum = sum, sum+c
		}
		for _, k := range from {
			d := rk(k) >> shift & 0xffff
			to[count[d]] = k
			count[d]++
		}
		from, to = to, from
	}
	if &from[0] != &ks[0] {
		copy(ks, from)
	}
}
