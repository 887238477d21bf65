//go:build gnncuda

package gpu

import (
	"fmt"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/gpu/internal/sparse"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/ops/edgesoftmax"
	"github.com/gnngo/gnn/ops/sddmm"
	"github.com/gnngo/gnn/ops/spmm"
)

// placedGraph is a graph's structure on the device.
type placedGraph = sparse.Graph

// graph returns g's structure on the device, uploading it on first use;
// its reverse shares the upload.
func (d *Device) graph(g *graph.Graph) (*placedGraph, error) {
	if g == nil {
		return nil, fmt.Errorf("gpu: nil graph")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("gpu: device is closed")
	}
	if pg, ok := d.graphs[g.ID()]; ok {
		return pg, nil
	}
	pg, err := sparse.Upload(d.c, g)
	if err != nil {
		return nil, fmt.Errorf("gpu: %w", err)
	}
	d.graphs[g.ID()] = pg
	d.graphs[g.Reverse().ID()] = pg.Reverse()
	return pg, nil
}

// buf returns a device tensor as a kernel buffer; nil gives the empty one.
func buf(t *tensor.Dense) sparse.Buf {
	if t == nil {
		return sparse.Buf{}
	}
	return sparse.Buf{Ptr: ptr(t), Len: t.Shape().TotalSize()}
}

// operands checks the dtypes of the non-nil tensors and returns whether
// they are float32.
func operands(ts ...*tensor.Dense) (single bool, err error) {
	var nn []*tensor.Dense
	for _, t := range ts {
		if t != nil {
			nn = append(nn, t)
		}
	}
	dt, err := dtype(nn...)
	return dt == 0, err
}

// prepare checks the operands' dtypes and returns g on the device and
// whether the operands are float32.
func (b backend) prepare(g *graph.Graph, ts ...*tensor.Dense) (*placedGraph, bool, error) {
	single, err := operands(ts...)
	if err != nil {
		return nil, false, err
	}
	pg, err := b.d.graph(g)
	return pg, single, err
}

func (b backend) SpMM(out *tensor.Dense, g *graph.Graph, op spmm.Op, red spmm.Reduce, u, e *tensor.Dense, p bcast.Plan) error {
	pg, single, err := b.prepare(g, out, u, e)
	if err != nil {
		return err
	}
	if single {
		return sparse.SpMM[float32](pg, buf(out), op, red, buf(u), buf(e), p, sparse.Buf{})
	}
	return sparse.SpMM[float64](pg, buf(out), op, red, buf(u), buf(e), p, sparse.Buf{})
}

func (b backend) SpMMArgBackward(du, de *tensor.Dense, g *graph.Graph, op spmm.Op, red spmm.Reduce, u, e *tensor.Dense, p bcast.Plan, dOut *tensor.Dense) error {
	if red != spmm.Max && red != spmm.Min {
		return fmt.Errorf("gpu: SpMMArgBackward of a %v reduction", red)
	}
	pg, single, err := b.prepare(g, du, de, u, e, dOut)
	if err != nil {
		return err
	}
	// Scratch of the step: the recomputed output and the winning edges
	// (int64), which only the backward kernels read.
	n := g.NumDst() * p.OutLen
	if n == 0 { // no destinations: no gradient
		for _, t := range []*tensor.Dense{du, de} {
			if t != nil {
				if err := b.d.c.Zero(ptr(t), bytesOf(t)); err != nil {
					return err
				}
			}
		}
		return nil
	}
	size := int(dOut.Dtype().Size())
	scratch, err := b.d.alloc(n*size, false)
	if err != nil {
		return err
	}
	arg, err := b.d.alloc(n*8, false)
	if err != nil {
		return err
	}
	out, argBuf := sparse.Buf{Ptr: scratch, Len: n}, sparse.Buf{Ptr: arg, Len: n}
	if single {
		if err := sparse.SpMM[float32](pg, out, op, red, buf(u), buf(e), p, argBuf); err != nil {
			return err
		}
		return sparse.SpMMBackward[float32](pg, buf(du), buf(de), op, red, buf(u), buf(e), p, argBuf, buf(dOut))
	}
	if err := sparse.SpMM[float64](pg, out, op, red, buf(u), buf(e), p, argBuf); err != nil {
		return err
	}
	return sparse.SpMMBackward[float64](pg, buf(du), buf(de), op, red, buf(u), buf(e), p, argBuf, buf(dOut))
}

func (b backend) SDDMM(out *tensor.Dense, g *graph.Graph, op sddmm.Op, lhs *tensor.Dense, lt sddmm.Target, rhs *tensor.Dense, rt sddmm.Target, p bcast.Plan) error {
	pg, single, err := b.prepare(g, out, lhs, rhs)
	if err != nil {
		return err
	}
	if single {
		return sparse.SDDMM[float32](pg, buf(out), op, buf(lhs), lt, buf(rhs), rt, p)
	}
	return sparse.SDDMM[float64](pg, buf(out), op, buf(lhs), lt, buf(rhs), rt, p)
}

func (b backend) EdgeSoftmax(out *tensor.Dense, g *graph.Graph, norm edgesoftmax.Norm, score *tensor.Dense, width int) error {
	pg, single, err := b.prepare(g, out, score)
	if err != nil {
		return err
	}
	if single {
		return sparse.EdgeSoftmax[float32](pg, buf(out), norm, buf(score), width)
	}
	return sparse.EdgeSoftmax[float64](pg, buf(out), norm, buf(score), width)
}

func (b backend) EdgeSoftmaxBackward(ds *tensor.Dense, g *graph.Graph, norm edgesoftmax.Norm, y, dy *tensor.Dense, width int) error {
	pg, single, err := b.prepare(g, ds, y, dy)
	if err != nil {
		return err
	}
	if single {
		return sparse.EdgeSoftmaxBackward[float32](pg, buf(ds), norm, buf(y), buf(dy), width)
	}
	return sparse.EdgeSoftmaxBackward[float64](pg, buf(ds), norm, buf(y), buf(dy), width)
}

func (b backend) Attention(out *tensor.Dense, g *graph.Graph, el, er *tensor.Dense, slope float64, width int) error {
	pg, single, err := b.prepare(g, out, el, er)
	if err != nil {
		return err
	}
	if single {
		return sparse.Attention[float32](pg, buf(out), buf(el), buf(er), slope, width)
	}
	return sparse.Attention[float64](pg, buf(out), buf(el), buf(er), slope, width)
}

func (b backend) AttentionBackward(ds *tensor.Dense, g *graph.Graph, el, er *tensor.Dense, slope float64, y, dy *tensor.Dense, width int) error {
	pg, single, err := b.prepare(g, ds, el, er, y, dy)
	if err != nil {
		return err
	}
	if single {
		return sparse.AttentionBackward[float32](pg, buf(ds), buf(el), buf(er), slope, buf(y), buf(dy), width)
	}
	return sparse.AttentionBackward[float64](pg, buf(ds), buf(el), buf(er), slope, buf(y), buf(dy), width)
}
