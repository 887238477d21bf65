package rgcn

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// Relations is a homogeneous graph split by relation, in the compact form
// SegmentMatMul runs on: for each relation, the sorted IDs of the nodes it
// reads (sources of its edges) and writes (destinations), and a graph
// between those two lists holding the relation's edges in increasing
// edge-ID order, with their norms. A relation therefore costs memory and
// work in the rows it touches, not in the whole graph's node count. Build
// it with Group, and keep only some destinations with DstRange; it is
// immutable and may serve every layer of a model.
//
// Relations is an nn.Graph: its sources are the nodes whose features a
// layer reads, its destinations those it writes (all the nodes, or a
// DstRange of them).
type Relations struct {
	id             uint64
	numSrc, numDst int
	dstOff         int // destination v is source node dstOff+v (its self-loop row)
	numEdges       int
	rels           []relation
	hasNorm        bool
}

// relation is one relation in compact form.
type relation struct {
	src, dst []int32 // node IDs of the compact sources and destinations, increasing
	// srcRun and dstRun report whether src (dst) is a run of consecutive
	// IDs, whose rows SegmentMatMul reads or writes in place.
	srcRun, dstRun bool
	g              *graph.Graph // len(src) -> len(dst), the relation's edges in edge-ID order
	norm           *edgeNorms   // per edge of g; nil without norms
}

// edgeNorms holds a relation's norms, one per edge of its graph, in
// float64 with a float32 copy made on first use, or in float32 only
// (Relations.Float32). Relations that share a relation's edges (DstRange of
// a range that holds all of them) share its norms too.
type edgeNorms struct {
	f64            []float64
	f32            []float32
	only32         bool // made with f32 only; f64 is then a widened copy made on first use
	once32, once64 sync.Once
}

// float32s returns the norms in float32, rounding the float64 ones once.
func (n *edgeNorms) float32s() []float32 {
	n.once32.Do(func() {
		if n.f32 == nil {
			n.f32 = convert[float32](n.f64)
		}
	})
	return n.f32
}

// float64s returns the norms in float64: as given, or the float32 ones
// widened once when only those are kept.
func (n *edgeNorms) float64s() []float64 {
	n.once64.Do(func() {
		if n.f64 == nil {
			n.f64 = convert[float64](n.f32)
		}
	})
	return n.f64
}

// convert returns xs converted to D.
func convert[D, S num.Float](xs []S) []D {
	out := make([]D, len(xs))
	for k, v := range xs {
		out[k] = D(v)
	}
	return out
}

var relationsID atomic.Uint64

// Group splits g by the relation of each edge, etypes[e] in [0, numRels),
// with norm[e] the weight of edge e's message (nil for none). It returns an
// error naming the first edge at fault when g is nil or not homogeneous,
// numRels is not positive, etypes or norm do not have one entry per edge,
// a relation is out of range, or a norm is not finite.
func Group(g *graph.Graph, etypes []int32, numRels int, norm []float64) (*Relations, error) {
	if err := checkGroup(g, etypes, numRels, norm); err != nil {
		return nil, err
	}
	src, dst := g.COO()
	order, starts := byRelation(etypes, numRels)
	rel := newRelations(g.NumSrc(), g.NumDst(), 0, numRels, norm != nil)
	b := newBuilder(g.NumSrc(), g.NumDst())
	for r := range numRels {
		es := order[starts[r]:starts[r+1]]
		s, d := make([]int32, len(es)), make([]int32, len(es))
		var nr *edgeNorms
		if norm != nil {
			nr = &edgeNorms{f64: make([]float64, len(es))}
		}
		for k, e := range es {
			s[k], d[k] = src[e], dst[e]
			if nr != nil {
				nr.f64[k] = norm[e]
			}
		}
		if err := b.add(rel, r, s, d, nr); err != nil {
			return nil, err
		}
	}
	return rel, nil
}

func checkGroup(g *graph.Graph, etypes []int32, numRels int, norm []float64) error {
	if g == nil {
		return fmt.Errorf("rgcn: nil graph")
	}
	if !g.Homogeneous() {
		return fmt.Errorf("rgcn: graph has %d source and %d destination nodes; it must be homogeneous", g.NumSrc(), g.NumDst())
	}
	if numRels <= 0 {
		return fmt.Errorf("rgcn: %d relations; want at least 1", numRels)
	}
	if len(etypes) != g.NumEdges() {
		return fmt.Errorf("rgcn: %d relation IDs for %d edges", len(etypes), g.NumEdges())
	}
	if norm != nil && len(norm) != g.NumEdges() {
		return fmt.Errorf("rgcn: %d norms for %d edges", len(norm), g.NumEdges())
	}
	for e, r := range etypes {
		if r < 0 || int(r) >= numRels {
			return fmt.Errorf("rgcn: edge %d has relation %d but there are %d relations", e, r, numRels)
		}
		if norm != nil && (math.IsNaN(norm[e]) || math.IsInf(norm[e], 0)) {
			return fmt.Errorf("rgcn: edge %d has norm %v", e, norm[e])
		}
	}
	return nil
}

// byRelation returns the edge IDs sorted by relation, stably (a counting
// sort), and where each relation's run starts (numRels+1 entries).
func byRelation(etypes []int32, numRels int) (order []int32, starts []int) {
	starts = make([]int, numRels+1)
	for _, r := range etypes {
		starts[r+1]++
	}
	for r := range numRels {
		starts[r+1] += starts[r]
	}
	next := slices.Clone(starts[:numRels])
	order = make([]int32, len(etypes))
	for e, r := range etypes {
		order[next[r]] = int32(e)
		next[r]++
	}
	return order, starts
}

func newRelations(numSrc, numDst, dstOff, numRels int, hasNorm bool) *Relations {
	return &Relations{id: relationsID.Add(1), numSrc: numSrc, numDst: numDst, dstOff: dstOff,
		rels: make([]relation, numRels), hasNorm: hasNorm}
}

// builder turns a relation's edges into compact form; its maps from node
// IDs to compact IDs are shared by all relations and reset after each.
type builder struct {
	srcMap, dstMap []int32
}

func newBuilder(numSrc, numDst int) *builder {
	b := &builder{srcMap: make([]int32, numSrc), dstMap: make([]int32, numDst)}
	for i := range b.srcMap {
		b.srcMap[i] = -1
	}
	for i := range b.dstMap {
		b.dstMap[i] = -1
	}
	return b
}

// add stores relation r of rel from its edges src[k] -> dst[k] (node IDs)
// with norms norm (nil for none); it takes over src, dst and norm.
func (b *builder) add(rel *Relations, r int, src, dst []int32, norm *edgeNorms) error {
	us, ud := compactIDs(src, b.srcMap), compactIDs(dst, b.dstMap)
	for k := range src {
		src[k], dst[k] = b.srcMap[src[k]], b.dstMap[dst[k]]
	}
	for _, v := range us {
		b.srcMap[v] = -1
	}
	for _, v := range ud {
		b.dstMap[v] = -1
	}
	g, err := graph.FromCOO(len(us), len(ud), src, dst)
	if err != nil {
		return fmt.Errorf("rgcn: relation %d: %w", r, err)
	}
	rel.rels[r] = relation{src: us, dst: ud, srcRun: isRun(us), dstRun: isRun(ud), g: g, norm: norm}
	rel.numEdges += len(src)
	return nil
}

// compactIDs returns the distinct IDs of ids in increasing order and sets
// m[id] to each one's position. When they fill at least half of the run
// from the least to the greatest, it returns that whole run instead: rows
// read or written in place cost less than gathering or scattering most of
// them (on 50k nodes with random relations, gathering the distinct 72%
// took longer than the products it saved).
func compactIDs(ids []int32, m []int32) []int32 {
	u := slices.Clone(ids)
	slices.Sort(u)
	u = slices.Clip(slices.Compact(u))
	if n := len(u); n > 0 && 2*n >= int(u[n-1]-u[0])+1 && !isRun(u) {
		lo := u[0]
		u = make([]int32, int(u[n-1]-lo)+1)
		for k := range u {
			u[k] = lo + int32(k)
		}
	}
	for k, v := range u {
		m[v] = int32(k)
	}
	return u
}

func isRun(ids []int32) bool {
	return len(ids) == 0 || int(ids[len(ids)-1]-ids[0]) == len(ids)-1
}

// DstRange returns the relations restricted to the destinations lo to
// hi-1, numbered from 0: a layer over them writes hi-lo rows (a node
// type's, say, in the last layer of a model that classifies one type) and
// takes the self-loop term of destination v from source row lo+v. It
// returns an error when the range is empty or out of bounds.
func (r *Relations) DstRange(lo, hi int) (*Relations, error) {
	if lo < 0 || hi > r.numDst || lo >= hi {
		return nil, fmt.Errorf("rgcn: destination range [%d, %d) is empty or outside [0, %d)", lo, hi, r.numDst)
	}
	out := newRelations(r.numSrc, hi-lo, r.dstOff+lo, len(r.rels), r.hasNorm)
	b := newBuilder(r.numSrc, hi-lo)
	for i := range r.rels {
		rl := &r.rels[i]
		cs, cd := rl.g.COO()
		// The edges in the range are counted first and their lists made
		// at that size: growing them by appending left 180 MB of garbage
		// on a tenth of ogbn-mag.
		n := 0
		for _, c := range cd {
			if v := int(rl.dst[c]); v >= lo && v < hi {
				n++
			}
		}
		if n > 0 && n == len(cd) {
			// Every edge is in the range (a relation into the range's
			// node type): the compact form is the same but for the
			// destinations' numbering, so the range shares the edges,
			// their graph's indexes and the norms instead of copying
			// them (on ogbn-mag, the last layer's relations).
			out.rels[i] = rl.shifted(lo)
			out.numEdges += n
			continue
		}
		s, d := make([]int32, 0, n), make([]int32, 0, n)
		var nr *edgeNorms
		if rl.norm != nil {
			// The range keeps the precision rl keeps.
			nr = &edgeNorms{}
			if rl.norm.only32 {
				nr.f32, nr.only32 = make([]float32, 0, n), true
			} else {
				nr.f64 = make([]float64, 0, n)
			}
		}
		for k := range cs {
			v := int(rl.dst[cd[k]])
			if v < lo || v >= hi {
				continue
			}
			s, d = append(s, rl.src[cs[k]]), append(d, int32(v-lo))
			switch {
			case nr == nil:
			case nr.only32:
				nr.f32 = append(nr.f32, rl.norm.f32[k])
			default:
				nr.f64 = append(nr.f64, rl.norm.f64[k])
			}
		}
		if err := b.add(out, i, s, d, nr); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// shifted returns rl with its destinations renumbered from lo, sharing
// everything else.
func (rl *relation) shifted(lo int) relation {
	d := make([]int32, len(rl.dst))
	for k, v := range rl.dst {
		d[k] = v - int32(lo)
	}
	c := *rl
	c.dst = d
	return c
}

// Float32 returns r with its norms kept in float32 only, as a float32
// layer reads them (the same bits: each norm rounded once), sharing r's
// graphs; r's float64 norms can then be dropped with r. A float64 layer
// over the result reads the float32 norms widened. Without norms it
// returns r.
func (r *Relations) Float32() *Relations {
	if !r.hasNorm {
		return r
	}
	out := newRelations(r.numSrc, r.numDst, r.dstOff, len(r.rels), true)
	out.numEdges = r.numEdges
	for i := range r.rels {
		rl := r.rels[i]
		if rl.norm != nil {
			rl.norm = &edgeNorms{f32: rl.norm.float32s(), only32: true}
		}
		out.rels[i] = rl
	}
	return out
}

// RightNorm returns DGL's usual R-GCN norm for each edge of g: 1 over the
// number of in-edges of its destination that share its relation.
func RightNorm(g *graph.Graph, etypes []int32, numRels int) ([]float64, error) {
	if err := checkGroup(g, etypes, numRels, nil); err != nil {
		return nil, err
	}
	_, dst := g.COO()
	order, starts := byRelation(etypes, numRels)
	deg := make([]int32, g.NumDst())
	norm := make([]float64, g.NumEdges())
	for r := range numRels {
		es := order[starts[r]:starts[r+1]]
		for _, e := range es {
			deg[dst[e]]++
		}
		for _, e := range es {
			norm[e] = 1 / float64(deg[dst[e]])
		}
		for _, e := range es {
			deg[dst[e]] = 0
		}
	}
	return norm, nil
}

// NumRelations returns the number of relations.
func (r *Relations) NumRelations() int { return len(r.rels) }

// NumNodes returns the number of source nodes (of the whole graph).
func (r *Relations) NumNodes() int { return r.numSrc }

// NumSrc returns the number of nodes whose features a layer reads.
func (r *Relations) NumSrc() int { return r.numSrc }

// NumDst returns the number of nodes a layer writes: NumSrc, or the size
// of a DstRange.
func (r *Relations) NumDst() int { return r.numDst }

// DstOffset returns the source node of destination 0 (lo of DstRange).
func (r *Relations) DstOffset() int { return r.dstOff }

// NumEdges returns the number of edges over all relations.
func (r *Relations) NumEdges() int { return r.numEdges }

// ZeroInDegree returns the destinations with no in-edge in any relation.
func (r *Relations) ZeroInDegree() []int32 {
	has := make([]bool, r.numDst)
	for i := range r.rels {
		for _, v := range r.rels[i].dst {
			has[v] = true
		}
	}
	var zs []int32
	for v, h := range has {
		if !h {
			zs = append(zs, int32(v))
		}
	}
	return zs
}

// Graph returns relation i's graph over all the source and destination
// nodes, with its edges in edge-ID order (built on each call, from the
// compact form).
func (r *Relations) Graph(i int) *graph.Graph {
	rl := &r.rels[i]
	cs, cd := rl.g.COO()
	s, d := make([]int32, len(cs)), make([]int32, len(cd))
	for k := range cs {
		s[k], d[k] = rl.src[cs[k]], rl.dst[cd[k]]
	}
	g, err := graph.FromCOO(r.numSrc, r.numDst, s, d)
	if err != nil {
		panic(fmt.Sprintf("rgcn: relation %d: %v", i, err)) // the compact form was checked when built
	}
	return g
}

// Touched returns how many sources relation i reads and how many
// destinations it writes: the rows of its dense products.
func (r *Relations) Touched(i int) (src, dst int) { return len(r.rels[i].src), len(r.rels[i].dst) }

// norms returns rl's norms in T, nil without norms.
func norms[T num.Float](rl *relation) []T {
	if rl.norm == nil {
		return nil
	}
	var zero T
	if _, ok := any(zero).(float32); ok {
		return any(rl.norm.float32s()).([]T)
	}
	return any(rl.norm.float64s()).([]T)
}
