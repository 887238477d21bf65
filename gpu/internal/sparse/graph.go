//go:build gnncuda

package sparse

import (
	"fmt"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/graph"
)

// view is a CSR view of a graph on the device, all int32: row pointers
// (rows+1), the other endpoint of each edge, and its edge ID.
type view struct {
	ptr, idx, eid cuda.Ptr
}

// storage is the device memory a graph shares with its reverse.
type storage struct {
	c        *cuda.Context
	ptrs     []cuda.Ptr
	freed    bool
	numEdges int
}

// Graph is a *graph.Graph on the device: its in-edge view (rows are
// destinations, as the host graph's CSC), its out-edge view (rows are
// sources, as its CSR, for gradients that walk out-edges), and the
// endpoints of every edge by edge ID (for SDDMM), as int32 arrays. Edges
// keep their IDs: per-edge data has the host graph's edge order.
type Graph struct {
	s              *storage
	host           *graph.Graph
	numSrc, numDst int
	in, out        view
	src, dst       cuda.Ptr
	reverse        *Graph
}

// Upload copies the structure of g to the device of c: 4·(NumSrc +
// NumDst + 2) + 32·NumEdges bytes of int32 arrays. Free releases them.
func Upload(c *cuda.Context, g *graph.Graph) (*Graph, error) {
	if c == nil || g == nil {
		return nil, fmt.Errorf("sparse: Upload of a nil context or graph")
	}
	s := &storage{c: c, numEdges: g.NumEdges()}
	d := &Graph{s: s, host: g, numSrc: g.NumSrc(), numDst: g.NumDst()}
	var err error
	if d.in, err = s.uploadView(g.CSC()); err != nil {
		s.free()
		return nil, fmt.Errorf("sparse: uploading the in-edges of %v: %w", g, err)
	}
	if d.out, err = s.uploadView(g.CSR()); err != nil {
		s.free()
		return nil, fmt.Errorf("sparse: uploading the out-edges of %v: %w", g, err)
	}
	src, dst := g.COO()
	if d.src, err = s.upload(src); err == nil {
		d.dst, err = s.upload(dst)
	}
	if err != nil {
		s.free()
		return nil, fmt.Errorf("sparse: uploading the edges of %v: %w", g, err)
	}
	return d, nil
}

func (s *storage) uploadView(v *graph.Compressed) (view, error) {
	ptr := make([]int32, len(v.Indptr))
	for i, p := range v.Indptr {
		ptr[i] = int32(p) // edges fit int32 (graph.MaxEdges)
	}
	var out view
	var err error
	if out.ptr, err = s.upload(ptr); err != nil {
		return out, err
	}
	if out.idx, err = s.upload(v.Indices); err != nil {
		return out, err
	}
	out.eid, err = s.upload(v.EIDs)
	return out, err
}

// upload copies x to new device memory owned by s.
func (s *storage) upload(x []int32) (cuda.Ptr, error) {
	p, err := s.c.Alloc(4 * len(x))
	if err != nil || len(x) == 0 {
		return p, err
	}
	s.ptrs = append(s.ptrs, p)
	return p, s.c.CopyToDevice(p, unsafe.Pointer(&x[0]), 4*len(x))
}

func (s *storage) free() error {
	if s.freed {
		return nil
	}
	s.freed = true
	var first error
	for _, p := range s.ptrs {
		if err := s.c.Free(p); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Free releases the graph's device memory, shared with its reverse; using
// either afterwards returns an error. Free is idempotent.
func (g *Graph) Free() error { return g.s.free() }

// Context returns the context the graph lives on.
func (g *Graph) Context() *cuda.Context { return g.s.c }

// Host returns the graph that was uploaded (or its reverse, for Reverse).
func (g *Graph) Host() *graph.Graph { return g.host }

// NumSrc returns the number of source nodes.
func (g *Graph) NumSrc() int { return g.numSrc }

// NumDst returns the number of destination nodes.
func (g *Graph) NumDst() int { return g.numDst }

// NumEdges returns the number of edges.
func (g *Graph) NumEdges() int { return g.s.numEdges }

// Reverse returns the graph with every edge reversed, keeping edge IDs,
// sharing g's device memory: O(1), no copy.
func (g *Graph) Reverse() *Graph {
	if g.reverse == nil {
		r := &Graph{s: g.s, host: g.host.Reverse(), numSrc: g.numDst, numDst: g.numSrc,
			in: g.out, out: g.in, src: g.dst, dst: g.src, reverse: g}
		g.reverse = r
	}
	return g.reverse
}

// live returns an error when g's memory was freed.
func (g *Graph) live() error {
	if g.s.freed {
		return fmt.Errorf("sparse: use of a freed device graph (%v)", g.host)
	}
	return nil
}

// InEdges returns the device arrays of the in-edge view: int32 row
// pointers (NumDst()+1), sources and edge IDs (NumEdges() each), for
// libraries that take a CSR matrix, such as cuSPARSE.
func (g *Graph) InEdges() (ptr, src, eid cuda.Ptr) { return g.in.ptr, g.in.idx, g.in.eid }
