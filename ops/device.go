package ops

import (
	"fmt"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/device"
	"github.com/gnngo/gnn/ops/spmm"
)

// The device implementations of this package's ops: each runs when an
// input is on the device (see package internal/device) with the backend's
// sparse kernels, on the same graph, shapes and broadcasting plan as Do.

func (op *spmmOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	var u, e *tensor.Dense
	switch op.op {
	case spmm.CopyU:
		u = in[0]
	case spmm.CopyE:
		e = in[0]
	default:
		u, e = in[0], in[1]
	}
	out, err := b.Alloc(in[0].Dtype(), withRows(op.g.NumDst(), op.plan.Out))
	if err != nil {
		return nil, err
	}
	return out, b.SpMM(out, op.g, op.op, op.red, u, e, op.plan)
}

// DeviceDo recomputes the winning edges of the Max or Min forward on the
// device and routes the output gradient through them, as Do.
func (op *spmmArgGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	var u, e *tensor.Dense
	switch f.op {
	case spmm.CopyU:
		u = in[0]
	case spmm.CopyE:
		e = in[0]
	default:
		u, e = in[0], in[1]
	}
	_, shape := op.Shapes()
	d, err := b.Alloc(in[0].Dtype(), shape)
	if err != nil {
		return nil, err
	}
	var du, de *tensor.Dense
	if op.wrt == 0 && f.op != spmm.CopyE {
		du = d
	} else {
		de = d
	}
	return d, b.SpMMArgBackward(du, de, f.g, f.op, f.red, u, e, f.plan, in[len(in)-1])
}

func (op *sddmmOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	var rhs *tensor.Dense
	if len(in) > 1 {
		rhs = in[1]
	}
	out, err := b.Alloc(in[0].Dtype(), withRows(op.g.NumEdges(), op.outShape()))
	if err != nil {
		return nil, err
	}
	return out, b.SDDMM(out, op.g, op.op, in[0], op.lt, rhs, op.rt, op.plan)
}

// degreeKey names the device copy of g's degree factors max(deg, 1)^power
// of one side (in-degrees for dst, out-degrees otherwise) and dtype: the
// ops that scale by degrees share it.
func degreeKey(g *graph.Graph, dst bool, power float64, dt tensor.Dtype) string {
	side := "src"
	if dst {
		side = "dst"
	}
	return fmt.Sprintf("ops.degree/g=%d/%s/%v/%v", g.ID(), side, power, dt)
}

// deviceFactors returns op's degree factors (the destination side's when
// dst is set) on the device, uploaded once per graph, side, power and dtype.
func (op *normSumOp) deviceFactors(b device.Backend, dt tensor.Dtype, dst bool) (*tensor.Dense, error) {
	rows, power := op.g.NumSrc(), op.src
	if dst {
		rows, power = op.g.NumDst(), op.dst
	}
	return b.Cached(degreeKey(op.g, dst, power, dt), tensor.Shape{rows}, func() any {
		if dt == tensor.Float32 {
			if dst {
				return cachedFactors[float32](op.factors, true, op.g.CSC(), op.dst)
			}
			return cachedFactors[float32](op.factors, false, op.g.CSR(), op.src)
		}
		if dst {
			return cachedFactors[float64](op.factors, true, op.g.CSC(), op.dst)
		}
		return cachedFactors[float64](op.factors, false, op.g.CSR(), op.src)
	})
}

// DeviceDo scales the source rows, sums them over in-edges and scales the
// sums, as Do.
func (op *normSumOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	x, dt, w := in[0], in[0].Dtype(), bcast.Prod(op.row)
	u := x
	if op.src != 0 {
		f, err := op.deviceFactors(b, dt, false)
		if err != nil {
			return nil, err
		}
		if u, err = b.Alloc(dt, x.Shape().Clone()); err != nil {
			return nil, err
		}
		if err := b.ScaleRows(u, x, f, w); err != nil {
			return nil, err
		}
	}
	out, err := b.Alloc(dt, withRows(op.g.NumDst(), op.row))
	if err != nil {
		return nil, err
	}
	if err := b.SpMM(out, op.g, spmm.CopyU, spmm.Sum, u, nil, bcast.Same(op.row)); err != nil {
		return nil, err
	}
	if op.dst != 0 {
		f, err := op.deviceFactors(b, dt, true)
		if err != nil {
			return nil, err
		}
		if err := b.ScaleRows(out, out, f, w); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (op *edgeSoftmaxOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, out, err := device.Prepare(b, vals, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return out, b.EdgeSoftmax(out, op.g, op.norm, in[0], bcast.Prod(op.shape[1:]))
}

func (op *edgeSoftmaxGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	f := op.fwd
	in, ds, err := device.Prepare(b, vals, f.shape.Clone())
	if err != nil {
		return nil, err
	}
	return ds, b.EdgeSoftmaxBackward(ds, f.g, f.norm, in[0], in[1], bcast.Prod(f.shape[1:]))
}

// DeviceDo scales the rows by the degree factors (uploaded once per graph,
// side, power and dtype, shared with NormalizedSum's), as Do.
func (op *degreeScaleOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	x, dt, dst := in[0], in[0].Dtype(), op.deg == InDegree
	c := op.g.CSR()
	if dst {
		c = op.g.CSC()
	}
	n := c.NumRows()
	f, err := b.Cached(degreeKey(op.g, dst, op.power, dt), tensor.Shape{n}, func() any {
		if dt == tensor.Float32 {
			return degreeFactors[float32](c, op.power)
		}
		return degreeFactors[float64](c, op.power)
	})
	if err != nil {
		return nil, err
	}
	y, err := b.Alloc(dt, op.shape.Clone())
	if err != nil {
		return nil, err
	}
	return y, b.ScaleRows(y, x, f, op.shape.TotalSize()/n)
}

// DeviceDo expands or sums rows on the device, as Do: the expansion
// gathers the narrow element of every wide one (op.off, uploaded once per
// pair of shapes); the sum adds, for every narrow element, the wide ones
// that read it, in increasing order as Do does (their lists uploaded once).
func (op *broadcastOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := device.Inputs(b, vals)
	if err != nil {
		return nil, err
	}
	x, dt := in[0], in[0].Dtype()
	w, n := bcast.Prod(op.wide), bcast.Prod(op.narrow)
	key := fmt.Sprintf("ops.broadcast/wide=%v/narrow=%v", op.wide, op.narrow)
	y, err := b.Alloc(dt, op.out())
	if err != nil {
		return nil, err
	}
	if !op.sum {
		idx, err := b.Cached(key+"/gather", tensor.Shape{w}, func() any {
			idx := make([]int32, w)
			for k, o := range op.off {
				idx[k] = int32(o)
			}
			return idx
		})
		if err != nil {
			return nil, err
		}
		return y, b.GatherCols(y, x, idx, op.rows, n)
	}
	// The wide elements of each narrow one, in increasing order: a CSR
	// of the inverse of op.off.
	inverse := func() (ptr, idx []int32) {
		ptr, idx = make([]int32, n+1), make([]int32, w)
		for _, o := range op.off {
			ptr[o+1]++
		}
		for j := range n {
			ptr[j+1] += ptr[j]
		}
		next := append([]int32{}, ptr[:n]...)
		for k, o := range op.off {
			idx[next[o]] = int32(k)
			next[o]++
		}
		return ptr, idx
	}
	ptr, err := b.Cached(key+"/ptr", tensor.Shape{n + 1}, func() any { p, _ := inverse(); return p })
	if err != nil {
		return nil, err
	}
	idx, err := b.Cached(key+"/idx", tensor.Shape{w}, func() any { _, i := inverse(); return i })
	if err != nil {
		return nil, err
	}
	return y, b.SumCols(y, x, ptr, idx, op.rows, w)
}

func (op *attentionOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	_, shape := op.Shapes()
	in, out, err := device.Prepare(b, vals, shape)
	if err != nil {
		return nil, err
	}
	return out, b.Attention(out, op.g, in[0], in[1], op.slope, bcast.Prod(op.feat))
}

func (op *attentionGradOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	_, shape := op.Shapes()
	in, ds, err := device.Prepare(b, vals, shape)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	return ds, b.AttentionBackward(ds, f.g, in[0], in[1], f.slope, in[2], in[3], bcast.Prod(f.feat))
}

var (
	_ device.Spec = (*spmmOp)(nil)
	_ device.Spec = (*spmmArgGradOp)(nil)
	_ device.Spec = (*sddmmOp)(nil)
	_ device.Spec = (*normSumOp)(nil)
	_ device.Spec = (*edgeSoftmaxOp)(nil)
	_ device.Spec = (*edgeSoftmaxGradOp)(nil)
	_ device.Spec = (*degreeScaleOp)(nil)
	_ device.Spec = (*broadcastOp)(nil)
	_ device.Spec = (*attentionOp)(nil)
	_ device.Spec = (*attentionGradOp)(nil)
)
