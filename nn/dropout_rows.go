package nn

import (
	"fmt"
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// DropoutRows is Dropout of x whose row i is row rows[i] of a larger
// tensor X (the rest of its shape the same): each element gets the mask
// element it would get in Dropout of X, for the same seed and step. A
// worker holding some of a graph's nodes (dist/sar) draws with it the masks
// of one process holding them all. rows must have x's first dimension.
func DropoutRows(x *gorgonia.Node, p float64, seed uint64, mode *Mode, rows []int64) (*gorgonia.Node, error) {
	if x != nil && (x.Shape().Dims() == 0 || x.Shape()[0] != len(rows)) {
		return nil, fmt.Errorf("nn: DropoutRows of %q (shape %v) with %d row IDs", x.Name(), x.Shape(), len(rows))
	}
	for i, r := range rows {
		if r < 0 {
			return nil, fmt.Errorf("nn: DropoutRows: row ID %d (entry %d) is negative", r, i)
		}
	}
	if err := checkDropout(x, p, mode); err != nil {
		return nil, err
	}
	if p == 0 {
		return x, nil
	}
	return apply(&rowDropoutOp{dropMask: maskOf(x, p, seed, mode), rows: rows}, x)
}

// rowDropoutOp is DropoutRows: linear and self-adjoint, like dropoutOp.
type rowDropoutOp struct {
	dropMask
	rows []int64
}

func (op *rowDropoutOp) Name() string { return fmt.Sprintf("dropout_rows(p=%g)", op.p) }

func (op *rowDropoutOp) Key() string { return fmt.Sprintf("%s,rows=%p", op.dropMask.Key(), op.rows) }

func (op *rowDropoutOp) Do(vals []gorgonia.Value) (gorgonia.Value, error) {
	t, err := values.Dense(vals[0])
	if err != nil {
		return nil, fmt.Errorf("nn: dropout: %w", err)
	}
	out := tensor.New(tensor.WithShape(t.Shape().Clone()...), tensor.Of(t.Dtype()))
	w := op.shape.TotalSize() / max(op.shape[0], 1)
	step, training := op.mode.Step(), op.mode.Training()
	switch x := t.Data().(type) {
	case []float32:
		maskRows(out.Data().([]float32), x[:t.Shape().TotalSize()], w, op.rows, op.p, op.seed, step, training)
	case []float64:
		maskRows(out.Data().([]float64), x[:t.Shape().TotalSize()], w, op.rows, op.p, op.seed, step, training)
	default:
		return nil, fmt.Errorf("nn: dropout of %T data", x)
	}
	return out, nil
}

// Grad applies the same mask to the gradient.
func (op *rowDropoutOp) Grad(_ gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	d, err := apply(op, grad)
	return gorgonia.Nodes{d}, err
}

func maskRows[T float32 | float64](y, x []T, w int, rows []int64, p float64, seed, step uint64, training bool) {
	if !training {
		copy(y, x)
		return
	}
	m := NewMask(p, seed, step)
	scale := T(m.Scale())
	parallel.For(len(rows), 1<<12/max(w, 1)+1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			base := uint64(rows[i]) * uint64(w)
			for c := range w {
				k := i*w + c
				y[k] = zeroUnless(x[k]*scale, m.bits(base+uint64(c)))
			}
		}
	})
}

// Mask is Dropout's mask for one seed and step, element by element: Kept(i)
// reports whether element i of the flattened tensor is kept. Code that
// applies dropout to part of a tensor (a shard of a graph's edges, say)
// draws with it the mask a whole-tensor Dropout would.
type Mask struct {
	threshold  uint64
	seed, step uint64
	p          float64
}

// NewMask returns the mask of Dropout with probability p, seed and step.
func NewMask(p float64, seed, step uint64) Mask {
	return Mask{threshold: uint64(math.Round(p * (1 << 16))), seed: seed, step: step, p: p}
}

// Scale is what kept elements are multiplied by: 1/(1-p).
func (m Mask) Scale() float64 { return 1 / (1 - m.p) }

// Kept reports whether element i is kept.
func (m Mask) Kept(i uint64) bool { return m.bits(i) != 0 }

// bits is all ones when element i is kept and 0 when it is dropped, the
// draw of applyMask: one hash gives four consecutive elements 16 bits each.
func (m Mask) bits(i uint64) uint64 {
	h := mix(m.seed, m.step, i/4) >> (16 * (i % 4))
	return (h&0xffff-m.threshold)>>63 - 1
}

var _ opkit.Forward = (*rowDropoutOp)(nil)
