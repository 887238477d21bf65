package link

import (
	"fmt"
	"math"
	"sync/atomic"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/values"
)

// MSE builds the mean squared error of the rows of pred (E x C: an edge
// head's regression outputs) listed in rows against target (E*C values,
// row-major): 1/(|rows| C) sum over listed rows r and columns c of
// (pred[r,c] - target[r*C+c])^2. rows nil means every row. target and rows
// are copied.
func MSE(pred *gorgonia.Node, target []float64, rows []int32) (*gorgonia.Node, error) {
	if pred == nil {
		return nil, fmt.Errorf("link: MSE of a nil node")
	}
	s := pred.Shape()
	if len(s) != 2 {
		return nil, fmt.Errorf("link: MSE: predictions %q have shape %v, want (edges, outputs)", pred.Name(), s)
	}
	if dt := pred.Dtype(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("link: MSE: predictions %q have dtype %v, want float32 or float64", pred.Name(), dt)
	}
	n, c := s[0], s[1]
	if len(target) != n*c {
		return nil, fmt.Errorf("link: MSE: %d targets for %d x %d predictions", len(target), n, c)
	}
	for i, t := range target {
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, fmt.Errorf("link: MSE: target %d is %v", i, t)
		}
	}
	if rows == nil {
		rows = make([]int32, n)
		for i := range rows {
			rows[i] = int32(i)
		}
	} else {
		rows = append([]int32(nil), rows...)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("link: MSE over no rows")
	}
	for i, r := range rows {
		if r < 0 || int(r) >= n {
			return nil, fmt.Errorf("link: MSE: rows[%d] = %d but the predictions have %d rows", i, r, n)
		}
	}
	op := &mseOp{n: n, c: c, target: append([]float64(nil), target...), rows: rows, id: mseIDs.Add(1)}
	return opkit.Apply("link", op, pred)
}

var mseIDs atomic.Uint64

// mseOp is MSE of an n x c input.
type mseOp struct {
	n, c   int
	target []float64
	rows   []int32
	id     uint64
}

func (op *mseOp) Name() string { return "mse" }

func (op *mseOp) Key() string { return fmt.Sprint(op.id) }

func (op *mseOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	return []tensor.Shape{{op.n, op.c}}, tensor.ScalarShape()
}

func (op *mseOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	x, err := floats(vals[0])
	if err != nil {
		return nil, fmt.Errorf("link: mse: %w", err)
	}
	var s float64
	for _, r := range op.rows {
		for j := int(r) * op.c; j < int(r+1)*op.c; j++ {
			d := x[j] - op.target[j]
			s += d * d
		}
	}
	loss := s / float64(len(op.rows)*op.c)
	if vals[0].Dtype() == tensor.Float32 {
		return gorgonia.NewF32(float32(loss)), nil
	}
	return gorgonia.NewF64(loss), nil
}

// Grad is one op of (pred, dloss): 2 (pred - target) / (|rows| C) on the
// listed rows, 0 elsewhere.
func (op *mseOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := opkit.Apply("link", &mseGradOp{fwd: op}, inputs[0], grad)
	return gorgonia.Nodes{d}, err
}

// mseGradOp is the gradient of fwd, taking (pred, dloss).
type mseGradOp struct{ fwd *mseOp }

func (op *mseGradOp) Name() string { return "dmse" }

func (op *mseGradOp) Key() string { return op.fwd.Key() }

func (op *mseGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	s := tensor.Shape{op.fwd.n, op.fwd.c}
	return []tensor.Shape{s, tensor.ScalarShape()}, s
}

func (op *mseGradOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	f := op.fwd
	x, err := floats(vals[0])
	if err != nil {
		return nil, fmt.Errorf("link: dmse: %w", err)
	}
	scale, err := values.Scalar(vals[1])
	if err != nil {
		return nil, fmt.Errorf("link: dmse: %w", err)
	}
	g := make([]float64, len(x))
	k := 2 * scale / float64(len(f.rows)*f.c)
	for _, r := range f.rows {
		for j := int(r) * f.c; j < int(r+1)*f.c; j++ {
			g[j] += k * (x[j] - f.target[j])
		}
	}
	if vals[0].Dtype() == tensor.Float32 {
		t, out := values.Alloc[float32]([]int{f.n, f.c})
		for i, v := range g {
			out[i] = float32(v)
		}
		return t, nil
	}
	t, out := values.Alloc[float64]([]int{f.n, f.c})
	copy(out, g)
	return t, nil
}

var (
	_ opkit.Forward = (*mseOp)(nil)
	_ opkit.Spec    = (*mseGradOp)(nil)
)
