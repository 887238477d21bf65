//go:build gnncuda

package dense

import (
	"fmt"
	"math"

	"github.com/gnngo/gnn/gpu/internal/cuda"
)

// Dtype selects the float32 or float64 kernel.
type Dtype int

// The dtypes: float32 and float64.
const (
	F32 Dtype = iota
	F64
)

func (t Dtype) suffix() string {
	if t == F32 {
		return "_f32"
	}
	return "_f64"
}

// launch runs kernel name+suffix over a grid for n work items.
func launch(c *cuda.Context, name string, t Dtype, n int64, args ...any) error {
	if n <= 0 {
		return nil
	}
	return c.Launch(name+t.suffix(), c.Grid(n, cuda.Threads), cuda.Dim3{X: cuda.Threads, Y: 1, Z: 1}, args...)
}

// serial runs kernel name+suffix on one thread.
func serial(c *cuda.Context, name string, t Dtype, args ...any) error {
	one := cuda.Dim3{X: 1, Y: 1, Z: 1}
	return c.Launch(name+t.suffix(), one, one, args...)
}

// MatMul mode: see MatMul.
const (
	Product = 0 // c (n x m) = a (n x k) b (k x m)
	TransB  = 1 // c (n x k) = a (n x m) b (k x m)ᵀ
	TransA  = 2 // c (k x m) = a (n x k)ᵀ b (n x m)
)

// Scratch returns device memory of the given number of bytes for the
// duration of a step (the first pass of a two-pass sum writes there).
type Scratch func(bytes int) (cuda.Ptr, error)

// MatMul computes the product of mode into c. TransA (a weight's
// gradient: a sum over the n rows) runs in two passes over blocks of rows
// when one thread per output element would leave the GPU idle; scratch
// then holds the blocks' partial products.
func MatMul(c *cuda.Context, t Dtype, out, a, b cuda.Ptr, n, k, m int, mode int, scratch Scratch) error {
	if n < 0 || k < 0 || m < 0 || mode < 0 || mode > 2 {
		return fmt.Errorf("dense: MatMul of sizes %d, %d, %d, mode %d", n, k, m, mode)
	}
	rows, cols := n, m
	switch mode {
	case TransB:
		// As a product with bᵀ, transposed first (k·m elements): the
		// kernel then reads b's rows along the warp, not down columns,
		// and sums the same products in the same order.
		if n > 0 && k > 0 && m > 0 {
			bt, err := scratch(k * m * t.size())
			if err != nil {
				return err
			}
			if err := launch(c, "gnn_dense_transpose", t, int64(k)*int64(m), bt, b, int64(k), int64(m)); err != nil {
				return err
			}
			return launch(c, "gnn_dense_matmul", t, int64(n)*int64(k), out, a, bt, int64(n), int64(m), int64(k), int32(Product))
		}
		cols = k
	case TransA:
		rows = k
		if blocks, per := RowBlocks(n, k*m); blocks > 1 {
			part, err := scratch(blocks * k * m * t.size())
			if err != nil {
				return err
			}
			if err := launch(c, "gnn_dense_matmul_ta_part", t, int64(blocks)*int64(k*m), part, a, b, int64(n), int64(k), int64(m), int64(per)); err != nil {
				return err
			}
			return launch(c, "gnn_dense_sum_parts", t, int64(k*m), out, part, int64(blocks), int64(k*m))
		}
	}
	return launch(c, "gnn_dense_matmul", t, int64(rows)*int64(cols), out, a, b, int64(n), int64(k), int64(m), int32(mode))
}

// sumThreads is about how many threads the first pass of a two-pass sum
// should run: a few per slot of a large GPU (132 multiprocessors of 2048).
const sumThreads = 1 << 19

// RowBlocks returns how a sum over n rows into outputs values is split:
// blocks of per rows (the last one shorter), enough blocks for about
// sumThreads threads, each of at least 64 rows; 1 block means one pass.
// It depends on n and outputs alone, so results are the same on every
// GPU and for every launch.
func RowBlocks(n, outputs int) (blocks, per int) {
	if n <= 0 || outputs <= 0 {
		return 1, max(n, 0)
	}
	want := min((sumThreads+outputs-1)/outputs, n/64)
	if want <= 1 {
		return 1, n
	}
	per = (n + want - 1) / want
	return (n + per - 1) / per, per
}

// size returns the bytes of one element of t.
func (t Dtype) size() int {
	if t == F32 {
		return 4
	}
	return 8
}

// AddRows sets y[r,:] = x[r,:] + b over n rows of w.
func AddRows(c *cuda.Context, t Dtype, y, x, b cuda.Ptr, n, w int) error {
	return launch(c, "gnn_dense_add_rows", t, int64(n)*int64(w), y, x, b, int64(n), int64(w))
}

// SumRows sets s[j] to the sum over the n rows of x (width w) of x[r,j],
// in two passes over blocks of rows (RowBlocks) when there are many rows;
// scratch then holds the blocks' sums.
func SumRows(c *cuda.Context, t Dtype, s, x cuda.Ptr, n, w int, scratch Scratch) error {
	if blocks, per := RowBlocks(n, w); blocks > 1 {
		part, err := scratch(blocks * w * t.size())
		if err != nil {
			return err
		}
		if err := launch(c, "gnn_dense_sum_rows_part", t, int64(blocks)*int64(w), part, x, int64(n), int64(w), int64(per)); err != nil {
			return err
		}
		return launch(c, "gnn_dense_sum_parts", t, int64(w), s, part, int64(blocks), int64(w))
	}
	return launch(c, "gnn_dense_sum_rows", t, int64(w), s, x, int64(n), int64(w))
}

// Add sets y = a + b over n elements.
func Add(c *cuda.Context, t Dtype, y, a, b cuda.Ptr, n int) error {
	return launch(c, "gnn_dense_add", t, int64(n), y, a, b, int64(n))
}

// ScaleRows sets y[r,:] = x[r,:] * f[r] over n rows of w.
func ScaleRows(c *cuda.Context, t Dtype, y, x, f cuda.Ptr, n, w int) error {
	return launch(c, "gnn_dense_scale_rows", t, int64(n)*int64(w), y, x, f, int64(n), int64(w))
}

// GatherCols sets y[r,k] = x[r,idx[k]] over n rows, y's of m elements
// (idx: m int32) and x's of w.
func GatherCols(c *cuda.Context, t Dtype, y, x, idx cuda.Ptr, n, m, w int) error {
	return launch(c, "gnn_dense_gather_cols", t, int64(n)*int64(m), y, x, idx, int64(n), int64(m), int64(w))
}

// SumCols sets y[r,j] = the sum, in order from 0, of x[r,idx[t]] for t in
// [ptr[j], ptr[j+1]) over n rows, y's of m elements (ptr: m+1 int32) and
// x's of w.
func SumCols(c *cuda.Context, t Dtype, y, x, ptr, idx cuda.Ptr, n, m, w int) error {
	return launch(c, "gnn_dense_sum_cols", t, int64(n)*int64(m), y, x, ptr, idx, int64(n), int64(m), int64(w))
}

// Activation functions of Activate.
const (
	ReLU = 0
	ELU  = 1
)

// Activate sets y = fn(x) over n elements.
func Activate(c *cuda.Context, t Dtype, fn int, y, x cuda.Ptr, n int) error {
	return launch(c, "gnn_dense_activate", t, int64(n), y, x, int64(n), int32(fn))
}

// ActivateGrad sets dx from dy and at (the output for ReLU, the input for
// ELU) over n elements.
func ActivateGrad(c *cuda.Context, t Dtype, fn int, dx, at, dy cuda.Ptr, n int) error {
	return launch(c, "gnn_dense_activate_grad", t, int64(n), dx, at, dy, int64(n), int32(fn))
}

// Dropout applies package nn's mask of (seed, step) with probability p
// to n elements, or copies them when training is false.
func Dropout(c *cuda.Context, t Dtype, y, x cuda.Ptr, n int, p float64, seed, step uint64, training bool) error {
	if !(p >= 0 && p < 1) {
		return fmt.Errorf("dense: dropout probability %v", p)
	}
	threshold := uint64(math.Round(p * (1 << 16)))
	tr := int32(0)
	items := int64(n)
	if training {
		tr, items = 1, (int64(n)+3)/4
	}
	return launch(c, "gnn_dense_dropout", t, items, y, x, int64(n), threshold, 1/(1-p), seed, step, tr)
}

// CrossEntropy sets terms[i] (float64) to the cross-entropy term of node
// nodes[i] (int32) with labels (int32) of logits (rows of c), times inv.
func CrossEntropy(c *cuda.Context, t Dtype, terms, logits, labels, nodes cuda.Ptr, count, classes int, inv float64) error {
	return launch(c, "gnn_dense_xent", t, int64(count), terms, logits, labels, nodes, int64(count), int64(classes), inv)
}

// CrossEntropyGrad adds the gradient rows of the listed nodes, times
// scale, to g; serial runs one thread (a node listed twice).
func CrossEntropyGrad(c *cuda.Context, t Dtype, g, logits, labels, nodes cuda.Ptr, count, classes int, scale float64, serialRows bool) error {
	args := []any{g, logits, labels, nodes, int64(count), int64(classes), scale}
	if count == 0 {
		return nil
	}
	if serialRows {
		return serial(c, "gnn_dense_xent_grad", t, args...)
	}
	return launch(c, "gnn_dense_xent_grad", t, int64(count), args...)
}

// SumChunk is the number of elements each partial sum of Sum covers.
const SumChunk = 4096

// Sum sets partial[b] (float64) to the sum of x's elements [b*SumChunk,
// (b+1)*SumChunk) over n elements: ceil(n/SumChunk) partials.
func Sum(c *cuda.Context, t Dtype, partial, x cuda.Ptr, n int) error {
	return launch(c, "gnn_dense_sum", t, (int64(n)+SumChunk-1)/SumChunk, partial, x, int64(n), int64(SumChunk))
}

// MeanHeads sets y (n, f) to the mean over h heads of x (n, h*f) or, with
// grad, x to y/h for every head.
func MeanHeads(c *cuda.Context, t Dtype, y, x cuda.Ptr, n, h, f int, grad bool) error {
	g, items := int32(0), int64(n)*int64(f)
	if grad {
		g, items = 1, int64(n)*int64(h)*int64(f)
	}
	return launch(c, "gnn_dense_mean_heads", t, items, y, x, int64(n), int64(h), int64(f), g)
}

// HeadDot modes.
const (
	HeadFwd = 0 // out (n, h) = Σf p (n, h, f) q (h, f)
	HeadDZ  = 1 // out (n, h, f) = q (n, h) p (h, f)
	HeadDA  = 2 // out (h, f) = Σn q (n, h) p (n, h, f)
)

// HeadDot computes the attention head scores of mode. HeadDA (a sum over
// the n nodes) runs in two passes over blocks of rows when there are many
// nodes (RowBlocks); scratch then holds the blocks' sums.
func HeadDot(c *cuda.Context, t Dtype, out, p, q cuda.Ptr, n, h, f int, mode int, scratch Scratch) error {
	items := []int64{int64(n) * int64(h), int64(n) * int64(h) * int64(f), int64(h) * int64(f)}
	if mode < 0 || mode > 2 {
		return fmt.Errorf("dense: HeadDot mode %d", mode)
	}
	if blocks, per := RowBlocks(n, h*f); mode == HeadDA && blocks > 1 {
		part, err := scratch(blocks * h * f * t.size())
		if err != nil {
			return err
		}
		if err := launch(c, "gnn_dense_head_dot_part", t, int64(blocks)*int64(h*f), part, p, q, int64(n), int64(h), int64(f), int64(per)); err != nil {
			return err
		}
		return launch(c, "gnn_dense_sum_parts", t, int64(h*f), out, part, int64(blocks), int64(h*f))
	}
	return launch(c, "gnn_dense_head_dot", t, items[mode], out, p, q, int64(n), int64(h), int64(f), int32(mode))
}

// Accuracy sets correct[i] (float64) to 1 when row nodes[i] of logits
// (rows of classes) has its largest entry, the first on ties, at its label.
func Accuracy(c *cuda.Context, t Dtype, correct, logits, labels, nodes cuda.Ptr, count, classes int) error {
	return launch(c, "gnn_dense_accuracy", t, int64(count), correct, logits, labels, nodes, int64(count), int64(classes))
}

// AdamHyper holds one Adam step's constants, as the values of the
// parameters' type that Gorgonia's AdamSolver computes, widened to float64.
type AdamHyper struct {
	UseL2                                       bool
	L2, OmB1, OmB2, B1, B2, C1, C2, NegEta, Eps float64
}

// Adam runs one step of Gorgonia's AdamSolver on n parameters.
func Adam(c *cuda.Context, t Dtype, w, g, m, v cuda.Ptr, n int, h AdamHyper) error {
	l2 := int32(0)
	if h.UseL2 {
		l2 = 1
	}
	return launch(c, "gnn_dense_adam", t, int64(n), w, g, m, v, int64(n), l2, h.L2, h.OmB1, h.OmB2, h.B1, h.B2, h.C1, h.C2, h.NegEta, h.Eps)
}
