package nn

import (
	"fmt"
	"math"
	"sync"
	"unsafe"
	"weak"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
)

// BatchNorm normalises every column of x (N, F) over its N rows and scales
// it: y[i][j] = (x[i][j] - mean_j) / sqrt(var_j + eps) * gamma[j], with the
// column's mean and biased variance (divided by N), as PyTorch's
// BatchNorm1d normalises in training. gamma has shape (F); add the shift
// with AddBias. eps must be positive and finite.
//
// The statistics are always those of the rows given, in training and
// evaluation alike: there are no running averages. That suits full-batch
// training, where evaluation runs on the same rows (graph classification
// over one graph.Batched of all graphs), and differs from BatchNorm1d's
// evaluation mode. Column sums are added in a fixed order, so results do
// not depend on GOMAXPROCS.
func BatchNorm(x, gamma *gorgonia.Node, eps float64) (*gorgonia.Node, error) {
	op, err := newBatchNormOp("BatchNorm", x, gamma, eps)
	if err != nil {
		return nil, err
	}
	return apply(op, x, gamma)
}

// newBatchNormOp checks the arguments of BatchNorm (or of fn, which calls
// it so) and returns its op.
func newBatchNormOp(fn string, x, gamma *gorgonia.Node, eps float64) (*batchNormOp, error) {
	if x == nil || gamma == nil {
		return nil, fmt.Errorf("nn: %s of a nil node", fn)
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("nn: %s: eps %v is not positive and finite", fn, eps)
	}
	xs, gs := x.Shape(), gamma.Shape()
	if len(xs) != 2 || xs[0] < 1 {
		return nil, fmt.Errorf("nn: %s: %q has shape %v, want (N, F) with N >= 1", fn, x.Name(), xs)
	}
	if !gs.Eq(tensor.Shape{xs[1]}) {
		return nil, fmt.Errorf("nn: %s: scale %q has shape %v, want (%d)", fn, gamma.Name(), gs, xs[1])
	}
	if x.Dtype() != gamma.Dtype() || (x.Dtype() != tensor.Float32 && x.Dtype() != tensor.Float64) {
		return nil, fmt.Errorf("nn: %s: dtypes %v (%q) and %v (%q); want both float32 or both float64", fn, x.Dtype(), x.Name(), gamma.Dtype(), gamma.Name())
	}
	op := &batchNormOp{n: xs[0], f: xs[1], eps: eps, cache: new(bnCache)}
	if mb, ok := specOf[*matMulBiasOp](x); ok {
		// The linear layer before sums x's columns as it writes x.
		if mb.means == nil {
			mb.means = new(sumsCache)
		}
		op.cache.means = mb.means
	}
	return op, nil
}

// What batchNormDo computes.
const (
	bnForward = iota // (x, gamma) -> y
	bnDX             // (x, gamma, dy) -> dx
	bnDGamma         // (x, dy) -> dgamma
)

// batchNormOp is the batch normalisation of an (n, f) matrix.
type batchNormOp struct {
	n, f  int
	eps   float64
	cache *bnCache // shared with its backward ops
}

// bnCache hands what the forward computed to the backward ops of the same
// run, which would otherwise compute it again: the column statistics of x
// (two passes over it) and, between the dx and dgamma ops, the column
// sums of dy and dy x (one pass over both). The values are those the ops
// would compute, so results are unchanged.
//
// The statistics are kept with the x they were computed from, by a weak
// pointer to its backing array: it does not keep x alive (a machine that
// frees values when their last reader is done frees it as it would), and
// another array allocated at the same address does not match. The forward
// runs before the backward ops in any run that has them (they consume the
// gradient of its output), so the backward ops find the statistics of the
// x they are given; a backward op given another x computes them itself.
// The dy sums are kept for one forward (gen counts the forwards) and one
// dy array, weakly too.
type bnCache struct {
	mu   sync.Mutex
	gen  uint64
	x    any // weak.Pointer to the backing array of the forward's x; nil: none
	xLen int
	// mean and inv are columnStats of x.
	mean, inv []float64
	// sdy and sdyx are dySums of x and the dy of weak pointer dy, for
	// forward gen dyGen.
	dyGen     uint64
	dy        any
	sdy, sdyx []float64
	// statsHits and sumsHits count the uses of the cache, for tests.
	statsHits, sumsHits int
	// means, when not nil, has the column sums of x from the op that
	// wrote it (a MatMulBias), for columnStats.
	means *sumsCache
}

// stats returns the column statistics of x, from the cache when the
// forward computed them for x, else computed now; a forward (fwd) always
// computes them and keeps them for its backward ops.
func stats[T num.Float](c *bnCache, x []T, n, f int, eps float64, fwd bool) (mean, inv []float64, gen uint64) {
	p := any(weak.Make(unsafe.SliceData(x)))
	c.mu.Lock()
	if !fwd && c.x == p && c.xLen == len(x) {
		mean, inv, gen = c.mean, c.inv, c.gen
		c.statsHits++
		c.mu.Unlock()
		return mean, inv, gen
	}
	c.mu.Unlock()
	colSums, _ := takeSums[[]float64](c.means, x)
	mean, inv = columnStatsFrom(x, n, f, eps, colSums)
	if !fwd {
		return mean, inv, 0
	}
	c.mu.Lock()
	c.gen++
	c.x, c.xLen, c.mean, c.inv = p, len(x), mean, inv
	gen = c.gen
	c.mu.Unlock()
	return mean, inv, gen
}

// sums returns dySums(x, dy), from the cache when the other backward op
// of the same forward computed them for the same dy, else computed now
// and kept. gen is the forward the statistics came from; 0 (statistics
// computed by the backward op itself) neither reads nor keeps the cache.
func sums[T num.Float](c *bnCache, gen uint64, x, dy []T, n, f int) (sdy, sdyx []float64) {
	p := any(weak.Make(unsafe.SliceData(dy)))
	if gen != 0 {
		c.mu.Lock()
		if c.dyGen == gen && c.dy == p {
			sdy, sdyx = c.sdy, c.sdyx
			c.sumsHits++
			c.mu.Unlock()
			return sdy, sdyx
		}
		c.mu.Unlock()
	}
	sdy, sdyx = dySums(x, dy, n, f)
	if gen != 0 {
		c.mu.Lock()
		if c.gen == gen {
			c.dyGen, c.dy, c.sdy, c.sdyx = gen, p, sdy, sdyx
		}
		c.mu.Unlock()
	}
	return sdy, sdyx
}

func (op *batchNormOp) shapes(kind int) (in []tensor.Shape, out tensor.Shape) {
	x, v := tensor.Shape{op.n, op.f}, tensor.Shape{op.f}
	switch kind {
	case bnDX:
		return []tensor.Shape{x, v, x}, x
	case bnDGamma:
		return []tensor.Shape{x, x}, v
	}
	return []tensor.Shape{x, v}, x
}

func (op *batchNormOp) Name() string {
	return fmt.Sprintf("batch_norm(%d,%d,eps=%g)", op.n, op.f, op.eps)
}

func (op *batchNormOp) Key() string { return "" }

func (op *batchNormOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.shapes(bnForward) }

// DoInto computes the output, into dst when it fits (see values.OverInto).
func (op *batchNormOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return batchNormDo[float32](dst, op, bnForward, nil, vals) },
		func() (gorgonia.Value, error) { return batchNormDo[float64](dst, op, bnForward, nil, vals) })
}

// Grad gives x and gamma their gradients, two backward ops that recompute
// the column statistics from x.
func (op *batchNormOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	dx, err := apply(&batchNormGradOp{fwd: op, kind: bnDX}, inputs[0], inputs[1], grad)
	if err != nil {
		return nil, err
	}
	dg, err := apply(&batchNormGradOp{fwd: op, kind: bnDGamma}, inputs[0], grad)
	if err != nil {
		return nil, err
	}
	return gorgonia.Nodes{dx, dg}, nil
}

// batchNormGradOp is a gradient of fwd: dx (bnDX) or dgamma (bnDGamma).
// A dx with sums also sums the columns of what it writes, for the bias
// gradient that reads it (sumsCache).
type batchNormGradOp struct {
	fwd  *batchNormOp
	kind int
	sums *sumsCache // may be nil
}

// colSums returns the cache of the column sums of op's output, made on
// the first call.
func (op *batchNormGradOp) colSums() *sumsCache {
	if op.sums == nil {
		op.sums = new(sumsCache)
	}
	return op.sums
}

func (op *batchNormGradOp) Name() string {
	return fmt.Sprintf("%s(%d,%d,eps=%g)", [...]string{"", "batch_norm_dx", "batch_norm_dgamma"}[op.kind], op.fwd.n, op.fwd.f, op.fwd.eps)
}

func (op *batchNormGradOp) Key() string { return "" }

func (op *batchNormGradOp) Shapes() ([]tensor.Shape, tensor.Shape) { return op.fwd.shapes(op.kind) }

// DoInto computes the output, into dst when it fits (see values.OverInto).
func (op *batchNormGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return batchNormDo[float32](dst, op.fwd, op.kind, op.sums, vals) },
		func() (gorgonia.Value, error) { return batchNormDo[float64](dst, op.fwd, op.kind, op.sums, vals) })
}

// batchNormDo computes what kind says into dst when it fits; every kind
// writes every element of its output.
func batchNormDo[T num.Float](dst *tensor.Dense, op *batchNormOp, kind int, colSums *sumsCache, vals []gorgonia.Value) (gorgonia.Value, error) {
	in, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	x, n, f := in[0], op.n, op.f
	mean, inv, gen := stats(op.cache, x, n, f, op.eps, kind == bnForward)
	m := make([]T, f)
	for j, v := range mean {
		m[j] = T(v)
	}
	// Each output is, per column, a function of x - mean and dy:
	// y = a (x - mean) with a = gamma inv; dgamma = inv (sum dy x - mean
	// sum dy); dx = gamma inv (dy - mean(dy) - xhat mean(dy xhat)).
	switch kind {
	case bnForward:
		gamma := in[1]
		a := make([]T, f)
		for j := range f {
			a[j] = T(inv[j] * float64(gamma[j]))
		}
		t, y := values.OverInto[T](dst, tensor.Shape{n, f})
		affineRows(y, nil, x, m, nil, a, make([]T, f), n, f)
		return t, nil
	case bnDGamma:
		sdy, sdyx := sums(op.cache, gen, x, in[1], n, f)
		t, dg := values.OverInto[T](dst, tensor.Shape{f})
		for j := range f {
			dg[j] = T(inv[j] * (sdyx[j] - mean[j]*sdy[j]))
		}
		return t, nil
	}
	gamma, dy := in[1], in[2]
	sdy, sdyx := sums(op.cache, gen, x, dy, n, f)
	// dx = c (dy - sdy/n - xhat sxhat/n), xhat = (x - mean) inv, sxhat =
	// sum dy xhat = inv (sdyx - mean sdy): dx = ca dy + cb (x - mean) + cc.
	ca, cb, cc := make([]T, f), make([]T, f), make([]T, f)
	for j := range f {
		c := float64(gamma[j]) * inv[j]
		ca[j] = T(c)
		cb[j] = T(-c * inv[j] * inv[j] * (sdyx[j] - mean[j]*sdy[j]) / float64(n))
		cc[j] = T(-c * sdy[j] / float64(n))
	}
	t, dx := values.OverInto[T](dst, tensor.Shape{n, f})
	if colSums != nil {
		// The bias gradient's column sums (biasGradDo's blocks of rows),
		// block by block as dx is written.
		db := make([]T, f)
		parallel.Sum(db, n, 1024, func(p []T, lo, hi int) {
			affineRowsDy(dx[lo*f:hi*f], dy[lo*f:hi*f], x[lo*f:hi*f], m, ca, cb, cc, f)
			addColSumsT(p, dx[lo*f:hi*f], f)
		})
		keepSums(colSums, dx, db)
		return t, nil
	}
	affineRows(dx, dy, x, m, ca, cb, cc, n, f)
	return t, nil
}

// affineRows sets y = a u + c (v - m) + b, per column, for the (n, f)
// matrices y, u and v; u may be nil, leaving out its term (then b must be
// zero: y = c (v - m) + 0).
func affineRows[T num.Float](y, u, v, m, a, c, b []T, n, f int) {
	parallel.For(n, 256, func(lo, hi int) {
		if u == nil {
			shiftRows(y[lo*f:hi*f], v[lo*f:hi*f], m, c, b, f, false)
			return
		}
		affineRowsDy(y[lo*f:hi*f], u[lo*f:hi*f], v[lo*f:hi*f], m, a, c, b, f)
	})
}

// dySums returns the column sums of dy and of dy x, in float64.
func dySums[T num.Float](x, dy []T, n, f int) (sdy, sdyx []float64) {
	sums := make([]float64, 2*f)
	parallel.Sum(sums, n, 256, func(p []float64, lo, hi int) {
		addDySums(p[:f], p[f:], x[lo*f:hi*f], dy[lo*f:hi*f], f)
	})
	return sums[:f], sums[f:]
}

// statsRows is the least number of rows columnStats sums per block.
const statsRows = 256

// columnStats returns the mean of every column of the (n, f) matrix x and
// 1/sqrt(var + eps), var the biased variance, in float64.
func columnStats[T num.Float](x []T, n, f int, eps float64) (mean, inv []float64) {
	return columnStatsFrom(x, n, f, eps, nil)
}

// columnStatsFrom is columnStats with the column sums of x given, when
// sums is not nil (summed as columnStats sums them: see sumsCache).
func columnStatsFrom[T num.Float](x []T, n, f int, eps float64, sums []float64) (mean, inv []float64) {
	mean = make([]float64, f)
	if len(sums) == f {
		copy(mean, sums)
	} else {
		parallel.Sum(mean, n, statsRows, func(p []float64, lo, hi int) {
			addColSums(p, x[lo*f:hi*f], f)
		})
	}
	for j := range mean {
		mean[j] /= float64(n)
	}
	inv = make([]float64, f)
	parallel.Sum(inv, n, statsRows, func(p []float64, lo, hi int) {
		addColSqDev(p, x[lo*f:hi*f], mean, f)
	})
	for j := range inv {
		inv[j] = 1 / math.Sqrt(inv[j]/float64(n)+eps)
	}
	return mean, inv
}

var (
	_ opkit.Forward = (*batchNormOp)(nil)
	_ opkit.Spec    = (*batchNormGradOp)(nil)
)
