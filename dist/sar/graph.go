package sar

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gnngo/gnn/dist/comm"
	"github.com/gnngo/gnn/dist/partition"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/enum"
)

// Mode selects how a Graph fetches the remote rows an aggregation needs.
type Mode uint8

const (
	// Sequential visits the shards one after another in ring order,
	// holding at most two remote shards' rows at a time (the one being
	// aggregated and the one being prefetched), and fetches them again in
	// the backward pass: SAR's sequential aggregation with
	// rematerialisation.
	Sequential Mode = iota
	// OneShot fetches every remote row a layer needs in one all-to-all
	// and keeps what the backward needs until it runs, as autograd would
	// on the whole partition graph: plain domain-parallel training (SAR's
	// mode 3, one-shot aggregation through a DistributedBlock), the
	// baseline. GATConv's attention (gat.Attention, see Aggregate) fetches
	// the projected rows into a Halo and runs the layer's single-process
	// ops on the worker's Block, which
	// keep the fetched rows and the (E, H, 1) attention for the backward,
	// and its backward fetches nothing; the linear aggregations need
	// nothing of the forward, as in Sequential.
	OneShot
)

func (m Mode) String() string {
	return enum.Name(m, "Mode", "sequential", "one-shot")
}

// Graph is one worker's share of a graph split across the ranks of a
// comm.Comm: the worker's nodes (its destinations, and the rows of every
// node feature it holds) and the edges coming into them, in one shard per
// source rank. The layers of nn/gcn, nn/gat, nn/sage, nn/gin, nn/tag and
// nn/appnp take it where they take a *graph.Graph (it implements
// nn.Sharded); their aggregations then
// run across all workers and give the single-process result on this
// worker's rows.
//
// Every rank must build the same model on its Graph, in the same order:
// the aggregations communicate, and are matched across ranks by the order
// in which they were built.
type Graph struct {
	c          comm.Comm
	rank, size int
	n          int // local nodes
	mode       Mode
	loops      bool
	shards     []shard   // shards[j]: edges from rank j's nodes into this rank's
	need       [][]int32 // need[j]: this rank's rows that rank j's shard from here reads, in its order
	nodes      []int64   // global ID of each local node
	inDeg      []int32   // global in-degree of each local node
	outDeg     []int32   // global out-degree of each local node
	id         uint64
	seq        atomic.Int64 // aggregations built so far (their communication tags)
	sent       atomic.Int64 // bytes sent by aggregations, for the record
	least      atomic.Int64 // the least those aggregations could have sent
	blockOnce  sync.Once
	block      *graph.Graph // Block, once built
	blockErr   error
	spare      spares // the aggregations' working buffers between runs (GATAggregate's)
	msgs       byteSpares
}

// shard is the edges from one rank's nodes into this rank's nodes as a
// bipartite graph from the distinct sources (in the order of src) to the
// local nodes; edge k is the shard's k-th edge.
type shard struct {
	g   *graph.Graph
	src []int32 // local index, on the source rank, of each source of g
	eid []int64 // global ID of each edge of g (nil when the partition has none)
}

var lastID atomic.Uint64

// Option configures New.
type Option func(*Graph) error

// WithMode sets how remote rows are fetched (default Sequential).
func WithMode(m Mode) Option {
	return func(g *Graph) error {
		if m > OneShot {
			return fmt.Errorf("sar: unknown mode %d", m)
		}
		g.mode = m
		return nil
	}
}

// WithSelfLoops adds a loop on every node, as graph.AddSelfLoops on the
// whole graph before it was split would (GCN's usual input): each loop is
// an edge of the node's own rank, after that rank's other edges, and adds
// one to the node's in- and out-degree.
func WithSelfLoops(on bool) Option {
	return func(g *Graph) error { g.loops = on; return nil }
}

// New builds this worker's Graph from its partition p (p.Rank must be
// c.Rank() and p.Parts c.Size()). It is collective: every rank calls it,
// and the ranks exchange which of their rows the others' shards read.
//
// The Graph keeps p.Nodes (global IDs, for dropout masks equal to one
// process's) and copies what it needs of p.Shards, which the caller may
// drop afterwards (p.Shards = nil) to free their memory.
func New(p *partition.Part, c comm.Comm, opts ...Option) (*Graph, error) {
	if p == nil || c == nil {
		return nil, fmt.Errorf("sar: New needs a partition and a comm")
	}
	if p.Rank != c.Rank() || p.Parts != c.Size() {
		return nil, fmt.Errorf("sar: partition %d of %d given to rank %d of %d", p.Rank, p.Parts, c.Rank(), c.Size())
	}
	g := &Graph{c: c, rank: c.Rank(), size: c.Size(), n: len(p.Nodes), id: lastID.Add(1)}
	for _, o := range opts {
		if err := o(g); err != nil {
			return nil, err
		}
	}
	if len(p.InDeg) != g.n || len(p.OutDeg) != g.n {
		return nil, fmt.Errorf("sar: partition %d has %d nodes but %d in-degrees and %d out-degrees", p.Rank, g.n, len(p.InDeg), len(p.OutDeg))
	}
	if len(p.Shards) != g.size {
		return nil, fmt.Errorf("sar: partition %d has %d shards, want one per rank (%d)", p.Rank, len(p.Shards), g.size)
	}
	g.inDeg, g.outDeg = slices.Clone(p.InDeg), slices.Clone(p.OutDeg)
	g.nodes = p.Nodes
	g.shards = make([]shard, g.size)
	send := make([][]byte, g.size)
	for j, s := range p.Shards {
		if j == g.rank && g.loops {
			s = withLoops(s, p.Nodes, p.NumGlobalEdges)
			for v := range g.n {
				g.inDeg[v]++
				g.outDeg[v]++
			}
		}
		sh, err := newShard(g.n, j, &s)
		if err != nil {
			return nil, fmt.Errorf("sar: partition %d: %w", p.Rank, err)
		}
		g.shards[j] = sh
		send[j] = comm.Int32sToBytes(sh.src)
	}
	recv, err := c.AllToAllV(send)
	if err != nil {
		return nil, fmt.Errorf("sar: rank %d: exchanging the rows each shard reads: %w", g.rank, err)
	}
	g.need = make([][]int32, g.size)
	for j, b := range recv {
		need, err := comm.BytesToInt32s(b)
		if err != nil {
			return nil, fmt.Errorf("sar: rank %d: the rows rank %d's shard reads: %w", g.rank, j, err)
		}
		for i, v := range need {
			if v < 0 || int(v) >= g.n {
				return nil, fmt.Errorf("sar: rank %d's shard from rank %d reads row %d (entry %d), but rank %d has %d nodes", j, g.rank, v, i, g.rank, g.n)
			}
		}
		g.need[j] = need
	}
	return g, nil
}

// withLoops returns s, a rank's shard from itself, with a loop on each of
// its nodes after its edges; the loop on global node u gets edge ID e+u, as
// graph.AddSelfLoops numbers it on the whole graph of e edges.
func withLoops(s partition.Shard, nodes []int64, e int64) partition.Shard {
	n := len(nodes)
	src := append(slices.Clone(s.Src), make([]int32, n)...)
	dst := append(slices.Clone(s.Dst), make([]int32, n)...)
	var eid []int64
	if len(s.EID) == len(s.Src) {
		eid = append(slices.Clone(s.EID), make([]int64, n)...)
	}
	for v := range n {
		src[len(s.Src)+v], dst[len(s.Dst)+v] = int32(v), int32(v)
		if eid != nil {
			eid[len(s.EID)+v] = e + nodes[v]
		}
	}
	s.Src, s.Dst, s.EID = src, dst, eid
	return s
}

// newShard builds the shard of the edges in s, whose destinations are
// among n local nodes.
func newShard(n, j int, s *partition.Shard) (shard, error) {
	if len(s.Src) != len(s.Dst) {
		return shard{}, fmt.Errorf("shard from rank %d has %d sources and %d destinations", j, len(s.Src), len(s.Dst))
	}
	src := slices.Clone(s.Src)
	slices.Sort(src)
	src = slices.Compact(src)
	if len(src) > 0 && src[0] < 0 {
		return shard{}, fmt.Errorf("shard from rank %d has source %d", j, src[0])
	}
	compact := make([]int32, len(s.Src))
	for e, u := range s.Src {
		i, _ := slices.BinarySearch(src, u)
		compact[e] = int32(i)
	}
	for e, v := range s.Dst {
		if v < 0 || int(v) >= n {
			return shard{}, fmt.Errorf("shard from rank %d: edge %d has destination %d but the partition has %d nodes", j, e, v, n)
		}
	}
	bg, err := graph.FromCOO(len(src), n, compact, s.Dst)
	if err != nil {
		return shard{}, fmt.Errorf("shard from rank %d: %w", j, err)
	}
	sh := shard{g: bg, src: src}
	if len(s.EID) == len(s.Src) {
		// A copy: the partition's arrays may share one buffer read from
		// disk, which the caller can then free whole.
		sh.eid = slices.Clone(s.EID)
	}
	return sh, nil
}

// Comm returns the comm the graph was built on.
func (g *Graph) Comm() comm.Comm { return g.c }

// Mode returns how the graph fetches remote rows.
func (g *Graph) Mode() Mode { return g.mode }

// NumSrc returns the number of this worker's nodes: the rows of the
// features a layer takes.
func (g *Graph) NumSrc() int { return g.n }

// NumDst returns the number of this worker's nodes: the rows of a layer's
// output.
func (g *Graph) NumDst() int { return g.n }

// NumEdges returns the number of edges coming into this worker's nodes.
func (g *Graph) NumEdges() int {
	e := 0
	for _, s := range g.shards {
		e += s.g.NumEdges()
	}
	return e
}

// ZeroInDegree returns this worker's nodes with no in-edges in the whole
// graph, in increasing order.
func (g *Graph) ZeroInDegree() []int32 {
	var z []int32
	for v, d := range g.inDeg {
		if d == 0 {
			z = append(z, int32(v))
		}
	}
	return z
}

// InDegrees returns the in-degree, in the whole graph (with the loops of
// WithSelfLoops), of each of this worker's nodes.
func (g *Graph) InDegrees() []int64 {
	d := make([]int64, g.n)
	for v, k := range g.inDeg {
		d[v] = int64(k)
	}
	return d
}

// NodeIDs returns the global IDs of this worker's nodes, increasing: row i
// of a layer's input is node NodeIDs()[i] of the whole graph.
func (g *Graph) NodeIDs() []int64 { return g.nodes }

// BytesSent returns the bytes this worker's aggregations have sent to
// other ranks so far (features forward, features and gradients backward).
func (g *Graph) BytesSent() int64 { return g.sent.Load() }

// LeastBytes returns the least this worker's aggregations so far could
// have sent, the reference BytesSent is measured against: every row
// another rank reads sent once per aggregation in the forward and once
// more in the backward where the backward needs the rows again
// (GATAggregate's rematerialisation), and every gradient row returned
// once; payload only, without message headers.
func (g *Graph) LeastBytes() int64 { return g.least.Load() }

// account adds to LeastBytes the sends of rows of fetch elements for the
// other ranks, times fetches, plus gradient rows of grad elements, each
// elem bytes.
func (g *Graph) account(fetches, fetch, grad, elem int) {
	var out, back int64
	for j := range g.size {
		if j != g.rank {
			out += int64(len(g.need[j]))
			back += int64(len(g.shards[j].src))
		}
	}
	g.least.Add((out*int64(fetches*fetch) + back*int64(grad)) * int64(elem))
}

// nextTags reserves the communication tags of one aggregation op and its
// backward: every rank builds its ops in the same order, so the k-th op
// gets the same tags everywhere.
func (g *Graph) nextTags() int {
	const perOp, limit = 8, 32000 // MPI guarantees tags up to 32767
	return int(g.seq.Add(1)*perOp) % limit
}
