package partition

import (
	"fmt"
	"sort"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
)

// Part is what one rank holds: its nodes and the edges incoming to them,
// grouped in one shard per source rank.
type Part struct {
	Rank, Parts    int
	NumGlobalNodes int
	NumGlobalEdges int64

	// Nodes holds the global IDs of the nodes this rank owns, increasing:
	// the local ID of Nodes[i] is i.
	Nodes []int64
	// InDeg and OutDeg are the GLOBAL in- and out-degrees of the owned nodes
	// (over the whole graph, self-loops and parallel edges counted as given).
	InDeg, OutDeg []int32
	// Shards has Parts entries: Shards[j] holds the edges whose source rank j
	// owns and whose destination this rank owns.
	Shards []Shard

	// The dataset fields, set by SplitDataset (zero after Split).

	// Features holds the owned nodes' rows, in local order (dense or CSR as
	// the dataset's were); nil when there are none.
	Features *dataset.Features
	// Labels holds the owned nodes' classes, in local order.
	Labels     []int32
	NumClasses int
	// Train, Val and Test hold the LOCAL IDs of the owned nodes in each
	// split, increasing (the dataset's lists restricted to this rank).
	Train, Val, Test []int32
	// Name is the dataset's name.
	Name string
}

// Shard is the set of edges from the nodes of one rank into this rank's
// nodes, in increasing global edge-ID order.
type Shard struct {
	SrcRank int
	Src     []int32 // local ID of the source in rank SrcRank's Nodes
	Dst     []int32 // local ID of the destination in this rank's Nodes
	EID     []int64 // global edge IDs (edge order of the input graph)
}

// NumNodes returns the number of nodes this rank owns.
func (p *Part) NumNodes() int { return len(p.Nodes) }

// NumEdges returns the number of edges incoming to this rank's nodes.
func (p *Part) NumEdges() int {
	n := 0
	for _, s := range p.Shards {
		n += len(s.Src)
	}
	return n
}

// LocalID returns the local ID of global node v when this rank owns it.
func (p *Part) LocalID(v int64) (int32, bool) {
	i := sort.Search(len(p.Nodes), func(i int) bool { return p.Nodes[i] >= v })
	if i < len(p.Nodes) && p.Nodes[i] == v {
		return int32(i), true
	}
	return 0, false
}

// Split divides g by owner (owner[v] is the rank that owns node v, in
// [0, parts)) into one Part per rank. g must be homogeneous. Each rank's
// nodes keep their global order; each shard keeps the global edge order.
func Split(g *graph.Graph, owner []int32, parts int) ([]*Part, error) {
	if g == nil {
		return nil, fmt.Errorf("partition: Split of a nil graph")
	}
	if !g.Homogeneous() {
		return nil, fmt.Errorf("partition: Split needs a homogeneous graph, got %d source and %d destination nodes", g.NumSrc(), g.NumDst())
	}
	n := g.NumNodes()
	if err := CheckOwner(owner, n, parts); err != nil {
		return nil, err
	}
	// Local IDs: position among the owner's nodes in global order.
	local := make([]int32, n)
	count := make([]int, parts)
	for v, o := range owner {
		local[v] = int32(count[o])
		count[o]++
	}
	out := make([]*Part, parts)
	for r := range parts {
		out[r] = &Part{
			Rank: r, Parts: parts, NumGlobalNodes: n, NumGlobalEdges: int64(g.NumEdges()),
			Nodes:  make([]int64, 0, count[r]),
			InDeg:  make([]int32, count[r]),
			OutDeg: make([]int32, count[r]),
			Shards: make([]Shard, parts),
		}
	}
	for v, o := range owner {
		out[o].Nodes = append(out[o].Nodes, int64(v))
	}
	src, dst := g.COO()
	// Degrees and shard sizes in one pass, then fill.
	size := make([]int, parts*parts) // [dstRank*parts + srcRank]
	for e := range src {
		u, v := src[e], dst[e]
		ou, ov := owner[u], owner[v]
		out[ou].OutDeg[local[u]]++
		out[ov].InDeg[local[v]]++
		size[int(ov)*parts+int(ou)]++
	}
	for r, p := range out {
		for j := range parts {
			k := size[r*parts+j]
			p.Shards[j] = Shard{SrcRank: j, Src: make([]int32, 0, k), Dst: make([]int32, 0, k), EID: make([]int64, 0, k)}
		}
	}
	for e := range src {
		u, v := src[e], dst[e]
		s := &out[owner[v]].Shards[owner[u]]
		s.Src = append(s.Src, local[u])
		s.Dst = append(s.Dst, local[v])
		s.EID = append(s.EID, int64(e))
	}
	return out, nil
}

// CheckOwner reports an owner array that does not assign each of n nodes to
// a rank in [0, parts).
func CheckOwner(owner []int32, n, parts int) error {
	if parts < 1 {
		return fmt.Errorf("partition: %d parts; need at least 1", parts)
	}
	if len(owner) != n {
		return fmt.Errorf("partition: owner has %d entries for %d nodes", len(owner), n)
	}
	for v, o := range owner {
		if o < 0 || int(o) >= parts {
			return fmt.Errorf("partition: node %d has owner %d, outside [0, %d)", v, o, parts)
		}
	}
	return nil
}

// SplitDataset is Split for a node-classification dataset: each Part also
// gets its nodes' feature rows, labels and train, validation and test
// nodes (as local IDs).
func SplitDataset(ds *dataset.Dataset, owner []int32, parts int) ([]*Part, error) {
	if ds == nil || ds.Graph == nil {
		return nil, fmt.Errorf("partition: SplitDataset of a dataset without a graph")
	}
	n := ds.Graph.NumNodes()
	if ds.Features != nil && ds.Features.Rows != n {
		return nil, fmt.Errorf("partition: dataset %q has %d feature rows for %d nodes", ds.Name, ds.Features.Rows, n)
	}
	if ds.Labels != nil && len(ds.Labels) != n {
		return nil, fmt.Errorf("partition: dataset %q has %d labels for %d nodes", ds.Name, len(ds.Labels), n)
	}
	out, err := Split(ds.Graph, owner, parts)
	if err != nil {
		return nil, err
	}
	for _, p := range out {
		p.Name, p.NumClasses = ds.Name, ds.NumClasses
		if ds.Features != nil {
			p.Features = rowsOf(ds.Features, p.Nodes)
		}
		if ds.Labels != nil {
			p.Labels = make([]int32, len(p.Nodes))
			for i, v := range p.Nodes {
				p.Labels[i] = ds.Labels[v]
			}
		}
	}
	splits := []struct {
		name string
		ids  []int32
		set  func(p *Part, ids []int32)
	}{
		{"train", ds.Train, func(p *Part, ids []int32) { p.Train = ids }},
		{"val", ds.Val, func(p *Part, ids []int32) { p.Val = ids }},
		{"test", ds.Test, func(p *Part, ids []int32) { p.Test = ids }},
	}
	for _, s := range splits {
		local := make([][]int32, parts)
		for i, v := range s.ids {
			if v < 0 || int(v) >= n {
				return nil, fmt.Errorf("partition: dataset %q: %s node %d (position %d) is outside [0, %d)", ds.Name, s.name, v, i, n)
			}
			o := owner[v]
			l, _ := out[o].LocalID(int64(v))
			local[o] = append(local[o], l)
		}
		for r, p := range out {
			sort.Slice(local[r], func(a, b int) bool { return local[r][a] < local[r][b] })
			s.set(p, local[r])
		}
	}
	return out, nil
}

// rowsOf copies the given rows of f, in order, keeping its layout.
func rowsOf(f *dataset.Features, rows []int64) *dataset.Features {
	out := &dataset.Features{Rows: len(rows), Cols: f.Cols}
	if !f.IsSparse() {
		out.Dense = make([]float32, 0, len(rows)*f.Cols)
		for _, r := range rows {
			out.Dense = append(out.Dense, f.Dense[int(r)*f.Cols:(int(r)+1)*f.Cols]...)
		}
		return out
	}
	out.Indptr = make([]int64, 1, len(rows)+1)
	for _, r := range rows {
		lo, hi := f.Indptr[r], f.Indptr[r+1]
		out.Indices = append(out.Indices, f.Indices[lo:hi]...)
		out.Values = append(out.Values, f.Values[lo:hi]...)
		out.Indptr = append(out.Indptr, int64(len(out.Values)))
	}
	if out.Values == nil {
		out.Values = []float32{}
	}
	return out
}
