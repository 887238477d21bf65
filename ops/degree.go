package ops

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/enum"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/device"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// Degree selects which degree ScaleByDegree reads.
type Degree uint8

// Degrees. InDegree scales destination-node rows, OutDegree source-node rows.
const (
	InDegree Degree = iota
	OutDegree
)

// String returns "in" or "out" (Degree(n) for another value).
func (d Degree) String() string { return enum.Name(d, "Degree", "in", "out") }

// ScaleByDegree multiplies row i of x by max(deg(i), 1)^power, where deg is
// the in-degree of destination node i (x has one row per destination) or the
// out-degree of source node i (one row per source). It is GraphConv's
// normalisation: power -0.5 on both sides gives D^-1/2 A D^-1/2, power -1
// on the in-degree gives the mean. Degrees are clamped to 1, so nodes without
// edges keep their row (DGL's convention). The op is linear in x and its own
// adjoint. Around a plain CopyUSum, NormalizedSum does both scalings and the
// sum in one op.
//
// x with no rows (a graph without nodes on that side) is an error: the
// result would be empty (see emptyResult).
func ScaleByDegree(g *graph.Graph, x *gorgonia.Node, deg Degree, power float64) (*gorgonia.Node, error) {
	if g == nil {
		return nil, fmt.Errorf("ops: ScaleByDegree on a nil graph")
	}
	if deg != InDegree && deg != OutDegree {
		return nil, fmt.Errorf("ops: ScaleByDegree: unknown degree %d", deg)
	}
	if math.IsNaN(power) || math.IsInf(power, 0) {
		return nil, fmt.Errorf("ops: ScaleByDegree: power %v is not finite", power)
	}
	t := V
	if deg == OutDegree {
		t = U
	}
	if t.Rows(g) == 0 {
		return nil, emptyResult("ScaleByDegree", targetName(t))
	}
	if _, err := checkOperand(g, x, t, "features"); err != nil {
		return nil, err
	}
	return apply(&degreeScaleOp{g: g, deg: deg, power: power, shape: x.Shape()}, x)
}

// degreeScaleOp scales rows by a power of the node degree.
type degreeScaleOp struct {
	g     *graph.Graph
	deg   Degree
	power float64
	shape tensor.Shape
}

func (op *degreeScaleOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{op.shape}, op.shape
}

func (op *degreeScaleOp) Name() string {
	return fmt.Sprintf("scale_by_%v_degree^%g", op.deg, op.power)
}

func (op *degreeScaleOp) Key() string { return fmt.Sprintf("g=%d,%v", op.g.ID(), op.shape) }

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

// DeviceDo scales the rows by the degree factors (uploaded once per graph,
// side, power and dtype, shared with NormalizedSum's), as DoInto.
func (op *degreeScaleOp) DeviceDo(b device.Backend, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, y, err := device.Prepare(b, vals, op.shape.Clone())
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
	return y, b.ScaleRows(y, x, f, op.shape.TotalSize()/n)
}

// DoInto computes the output into dst (opkit.Into).
func (op *degreeScaleOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return unaryInto(dst, op, vals, degreeScaleDo[float32], degreeScaleDo[float64])
}

func degreeScaleDo[T num.Float](dst *tensor.Dense, op *degreeScaleOp, x []T) (gorgonia.Value, error) {
	t, y := values.AllocInto[T](dst, op.shape)
	c := op.g.CSC()
	if op.deg == OutDegree {
		c = op.g.CSR()
	}
	n := c.NumRows()
	if n == 0 {
		return t, nil
	}
	scaleRows(y, x, degreeFactors[T](c, op.power), len(x)/n)
	return t, nil
}

// degreeFactors returns max(deg(r), 1)^power for every row r of c.
func degreeFactors[T num.Float](c *graph.Compressed, power float64) []T {
	f := make([]T, c.NumRows())
	parallel.For(len(f), 1024, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			f[r] = num.DegreeFactor[T](c.Indptr[r+1]-c.Indptr[r], power)
		}
	})
	return f
}

// scaleRows sets row r of y (rows of w elements) to row r of x times f[r].
func scaleRows[T num.Float](y, x, f []T, w int) {
	parallel.For(len(f), 1024, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			s := f[r]
			for k := r * w; k < (r+1)*w; k++ {
				y[k] = x[k] * s
			}
		}
	})
}

// Grad applies the op to the gradient: it is its own adjoint.
func (op *degreeScaleOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(op, grad)
	return gorgonia.Nodes{d}, err
}

var (
	_ opkit.Forward = (*degreeScaleOp)(nil)
	_ device.Spec   = (*degreeScaleOp)(nil)
)
