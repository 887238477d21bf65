package ops

import (
	"fmt"
	"math"
	"sync"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/ops/spmm"
)

// NormalizedSum builds GraphConv's normalised aggregation: for every
// destination node v, max(indeg(v), 1)^dstPower times the sum over its
// in-edges u -> v of max(outdeg(u), 1)^srcPower x[u]. Powers -0.5 and -0.5
// give D^-1/2 A D^-1/2 x (norm "both"), 0 and -1 the mean, -1 and 0 the
// source-side "left" norm. It is ScaleByDegree(OutDegree), CopyUSum and
// ScaleByDegree(InDegree) in one op: the source scaling goes to scratch
// that is dropped after the call, and the destination scaling is applied
// to each output row as soon as it is summed (spmm.ForwardScaled), so the
// chain keeps one N x F value per call instead of three. The op keeps its
// degree factors, one number per node and side, from its first call on.
// Its gradient is the same op on the reversed graph with the powers
// swapped.
func NormalizedSum(g *graph.Graph, x *gorgonia.Node, srcPower, dstPower float64) (*gorgonia.Node, error) {
	if g == nil {
		return nil, fmt.Errorf("ops: NormalizedSum on a nil graph")
	}
	if g.NumDst() == 0 {
		return nil, emptyResult("NormalizedSum", "destination nodes")
	}
	for _, p := range []float64{srcPower, dstPower} {
		if math.IsNaN(p) || math.IsInf(p, 0) {
			return nil, fmt.Errorf("ops: NormalizedSum: power %v is not finite", p)
		}
	}
	shape, err := checkOperand(g, x, U, "source features")
	if err != nil {
		return nil, err
	}
	return apply(newNormSumOp(g, srcPower, dstPower, shape), x)
}

// normSumOp is NormalizedSum; row is the feature shape of a node.
type normSumOp struct {
	g        *graph.Graph
	src, dst float64
	row      []int
	factors  *degreeCache
}

func newNormSumOp(g *graph.Graph, src, dst float64, row []int) *normSumOp {
	return &normSumOp{g: g, src: src, dst: dst, row: row, factors: new(degreeCache)}
}

// degreeCache holds an op's degree factors, source and destination side,
// as []float32 or []float64, computed on the first call: the graph does
// not change, and the op runs every epoch.
type degreeCache struct {
	mu       sync.Mutex
	src, dst any
}

// cachedFactors returns d's factors of c at power, the destination side's
// when dst is set, computing them on first use.
func cachedFactors[T num.Float](d *degreeCache, dst bool, c *graph.Compressed, power float64) []T {
	d.mu.Lock()
	defer d.mu.Unlock()
	slot := &d.src
	if dst {
		slot = &d.dst
	}
	if f, ok := (*slot).([]T); ok {
		return f
	}
	f := degreeFactors[T](c, power)
	*slot = f
	return f
}

func (op *normSumOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{withRows(op.g.NumSrc(), op.row)}, withRows(op.g.NumDst(), op.row)
}

func (op *normSumOp) Name() string {
	return fmt.Sprintf("normalized_sum(out^%g,in^%g)", op.src, op.dst)
}

func (op *normSumOp) Key() string { return fmt.Sprintf("g=%d,%v", op.g.ID(), op.row) }

// DoInto computes the output into dst (opkit.Into).
func (op *normSumOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return unaryInto(dst, op, vals, normSumDo[float32], normSumDo[float64])
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
// sums, as DoInto.
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

func normSumDo[T num.Float](dst *tensor.Dense, op *normSumOp, x []T) (gorgonia.Value, error) {
	_, outShape := op.Shapes()
	t, out := values.AllocInto[T](dst, outShape)
	w := bcast.Prod(op.row)
	u := x
	if op.src != 0 {
		u = parallel.Scratch[T](len(x))
		defer parallel.PutScratch(u)
		scaleRows(u, x, cachedFactors[T](op.factors, false, op.g.CSR(), op.src), w)
	}
	p := bcast.Same(op.row)
	if op.dst == 0 {
		spmm.Forward(out, op.g, spmm.CopyU, spmm.Sum, u, nil, p, nil)
	} else {
		spmm.ForwardScaled(out, op.g, spmm.CopyU, u, nil, p, cachedFactors[T](op.factors, true, op.g.CSC(), op.dst))
	}
	return t, nil
}

// Grad is the same sum on the reversed graph, the powers swapped.
func (op *normSumOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(newNormSumOp(op.g.Reverse(), op.dst, op.src, op.row), grad)
	return gorgonia.Nodes{d}, err
}

var (
	_ opkit.Forward = (*normSumOp)(nil)
	_ device.Spec   = (*normSumOp)(nil)
)
