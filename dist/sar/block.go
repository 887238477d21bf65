package sar

import (
	"fmt"
	"unsafe"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
)

// Block returns this worker's in-edges as one graph, SAR's
// DistributedBlock: the N shards combined, for running single-process ops
// on the whole partition at once. Its destinations are the worker's nodes;
// its sources are the worker's nodes (the first NumDst sources, as on a
// sampling block) followed by the remote sources of every other rank's
// shard, rank by rank in rank order, each shard's in the order its owner
// sends them. Its edges are the worker's edges in EdgeIDs order. Halo gives
// a feature tensor the rows of those sources.
//
// The block is built on first use and kept: it holds a second copy of the
// worker's edges, next to the shards.
func (g *Graph) Block() (*graph.Graph, error) {
	g.blockOnce.Do(func() { g.block, g.blockErr = g.buildBlock() })
	return g.block, g.blockErr
}

// OneShotBlock returns Block in OneShot mode, and nil in Sequential mode:
// in OneShot mode Aggregate runs gat.Attention's single-process ops on the
// Block, with the projected features extended by Halo.
func (g *Graph) OneShotBlock() (*graph.Graph, error) {
	if g.mode != OneShot {
		return nil, nil
	}
	return g.Block()
}

// haloOffsets returns the first source of rank j's rows in the block, for
// every rank j other than this one, and the block's source count.
func (g *Graph) haloOffsets() (off []int, total int) {
	off = make([]int, g.size)
	total = g.n
	for j, s := range g.shards {
		if j == g.rank {
			continue
		}
		off[j] = total
		total += len(s.src)
	}
	return off, total
}

func (g *Graph) buildBlock() (*graph.Graph, error) {
	off, total := g.haloOffsets()
	e := g.NumEdges()
	src, dst := make([]int32, 0, e), make([]int32, 0, e)
	for j, s := range g.shards {
		ss, sd := s.g.COO()
		for _, u := range ss {
			if j == g.rank {
				u = s.src[u] // this rank's own rows come first
			} else {
				u += int32(off[j])
			}
			src = append(src, u)
		}
		dst = append(dst, sd...)
	}
	b, err := graph.FromCOO(total, g.n, src, dst)
	if err != nil {
		return nil, fmt.Errorf("sar: rank %d: building the block: %w", g.rank, err)
	}
	return b, nil
}

// Halo returns x, which has one row per local node, followed by the rows of
// the Block's remote sources, fetched from their owners in one all-to-all:
// the input of a single-process op on the Block. Its gradient sends the
// gradients of the fetched rows back to their owners in one all-to-all and
// adds them to those of x's rows. Halo is collective: every rank must call
// it, in the same order, and its gradient runs on every rank whose
// expression graph uses its result.
func (g *Graph) Halo(x *gorgonia.Node) (*gorgonia.Node, error) {
	row, err := g.rows(x, "features")
	if err != nil {
		return nil, err
	}
	_, total := g.haloOffsets()
	return apply(&haloOp{g: g, row: row, total: total, tag: g.nextTags()}, x)
}

// haloOp is Halo; its backward is haloGradOp.
type haloOp struct {
	g     *Graph
	row   []int
	total int // the block's sources
	tag   int
}

func (op *haloOp) in() tensor.Shape  { return append(tensor.Shape{op.g.n}, op.row...) }
func (op *haloOp) out() tensor.Shape { return append(tensor.Shape{op.total}, op.row...) }

func (op *haloOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.in()}, op.out()
}

func (op *haloOp) Name() string { return "sar_halo" }

func (op *haloOp) Key() string { return fmt.Sprintf("g=%d,tag=%d,%v", op.g.id, op.tag, op.row) }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *haloOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return haloDo[float32](op, vals[0], dst) },
		func() (gorgonia.Value, error) { return haloDo[float64](op, vals[0], dst) })
}

// Grad is one op of the output gradient.
func (op *haloOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(&haloGradOp{fwd: op}, grad)
	return gorgonia.Nodes{d}, err
}

// haloGradOp is the backward of fwd, taking the output gradient.
type haloGradOp struct{ fwd *haloOp }

func (op *haloGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.fwd.out()}, op.fwd.in()
}

func (op *haloGradOp) Name() string { return "d" + op.fwd.Name() }

func (op *haloGradOp) Key() string { return op.fwd.Key() }

// DoInto computes the result into dst when it fits (opkit.Into).
func (op *haloGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return haloGradDo[float32](op.fwd, vals[0], dst) },
		func() (gorgonia.Value, error) { return haloGradDo[float64](op.fwd, vals[0], dst) })
}

func haloDo[T num.Float](op *haloOp, v gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	x, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	g, w := op.g, bcast.Prod(op.row)
	var zero T
	g.account(1, w, 0, int(unsafe.Sizeof(zero)))
	t, out := values.AllocInto[T](dst, op.out())
	copy(out, x)
	send := make([][]byte, g.size)
	for j := range send {
		if j != g.rank {
			p := pass[T]{x: x, xw: w}
			send[j] = encode(p.rowsOf(g.need[j]))
			g.sent.Add(int64(len(send[j])))
		}
	}
	all, err := g.c.AllToAllV(send)
	if err != nil {
		return nil, fmt.Errorf("sar: rank %d: fetching the halo rows: %w", g.rank, err)
	}
	off, _ := g.haloOffsets()
	for j, b := range all {
		if j == g.rank {
			continue
		}
		rows, err := decode[T](b)
		if err != nil {
			return nil, fmt.Errorf("sar: rank %d: halo rows from rank %d: %w", g.rank, j, err)
		}
		if want := len(g.shards[j].src) * w; len(rows) != want {
			return nil, fmt.Errorf("sar: rank %d: rank %d sent %d halo values, want %d", g.rank, j, len(rows), want)
		}
		copy(out[off[j]*w:], rows)
	}
	return t, nil
}

func haloGradDo[T num.Float](op *haloOp, v gorgonia.Value, dst *tensor.Dense) (gorgonia.Value, error) {
	grad, err := values.Data[T](v)
	if err != nil {
		return nil, err
	}
	g, w := op.g, bcast.Prod(op.row)
	var zero T
	g.account(0, 0, w, int(unsafe.Sizeof(zero)))
	t, dx := values.AllocInto[T](dst, op.in())
	copy(dx, grad[:g.n*w])
	off, _ := g.haloOffsets()
	send := make([][]byte, g.size)
	for j := range send {
		if j != g.rank {
			send[j] = encode(grad[off[j]*w : (off[j]+len(g.shards[j].src))*w])
			g.sent.Add(int64(len(send[j])))
		}
	}
	back, err := g.c.AllToAllV(send)
	if err != nil {
		return nil, fmt.Errorf("sar: rank %d: returning the halo gradients: %w", g.rank, err)
	}
	for j, b := range back {
		if j == g.rank {
			continue
		}
		rows, err := decode[T](b)
		if err != nil {
			return nil, fmt.Errorf("sar: rank %d: halo gradients from rank %d: %w", g.rank, j, err)
		}
		if want := len(g.need[j]) * w; len(rows) != want {
			return nil, fmt.Errorf("sar: rank %d: rank %d returned %d halo gradient values, want %d", g.rank, j, len(rows), want)
		}
		scatterAdd(dx, g.need[j], rows, w)
	}
	return t, nil
}

var (
	_ opkit.Forward = (*haloOp)(nil)
	_ opkit.Spec    = (*haloGradOp)(nil)
	_ opkit.Into    = (*haloOp)(nil)
	_ opkit.Into    = (*haloGradOp)(nil)
)
