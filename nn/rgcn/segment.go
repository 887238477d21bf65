package rgcn

import (
	"fmt"
	"iter"
	"slices"
	"sort"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/ops/opkit"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/internal/values"
	"github.com/gnngo/gnn/nn/internal/gemm"
	"github.com/gnngo/gnn/ops/spmm"
)

// SegmentMatMul builds the relational sum of R-GCN as one op over the
// relations rel (DGL's gather_mm / segment_mm idea, grouped by relation):
//
//	out[v] = sum_r sum_{e = u -> v in relation r} c_e x[u] W_r  +  x[o+v] W_0  +  b
//
// for every destination v, with c_e the edge's norm (1 without norms), o
// rel.DstOffset(), and W_0 and b left out when loop or bias is nil. x is
// (NumSrc, in); w holds the relation weights, (R, in, out) full or
// (R, B, in/B, out/B) block-diagonal (block k of W_r maps input columns
// k·in/B.. to output columns k·out/B..); loop is (in, out) and bias (out).
// The output is (NumDst, out).
//
// Each relation runs on only the rows it touches: its distinct sources are
// gathered (read in place when they are consecutive), multiplied by W_r
// (or, when that is cheaper, summed first at the relation's destinations
// and multiplied there), summed over the relation's edges with the fused
// weighted sum of ops/spmm, and added to its destinations' rows. A
// block-diagonal W_r takes B products of (in/B, out/B). The scratch of one
// relation is reused by the next and dropped after the call: no value with
// a row per edge or per (relation, node) pair is kept, forward or
// backward. The gradients are backward ops of the same kind (the
// relations' reversed graphs, transposed products), summed relation after
// relation in a fixed order, so results do not depend on GOMAXPROCS.
//
// It returns an error when rel or x is nil, a shape does not fit, or the
// dtypes differ or are not float32 or float64.
func SegmentMatMul(rel *Relations, x, w, loop, bias *gorgonia.Node) (*gorgonia.Node, error) {
	if x == nil {
		return nil, fmt.Errorf("rgcn: SegmentMatMul: nil features or weights")
	}
	return SegmentMatMulRows(rel, gorgonia.Nodes{x}, w, loop, bias)
}

// SegmentMatMulRows is SegmentMatMul with the features given in row
// blocks: x is xs[0], xs[1], ... stacked in order (each (n_i, in), the n_i
// summing to NumSrc), as a model holds the features of each node type, but
// without a stacked copy, or the stacked gradient and its slices: each
// block gets a gradient of its own rows, which a block that is a constant
// (not differentiated) never computes. The results are those of
// SegmentMatMul on the stacked features, bit for bit.
func SegmentMatMulRows(rel *Relations, xs gorgonia.Nodes, w, loop, bias *gorgonia.Node) (*gorgonia.Node, error) {
	if rel == nil {
		return nil, fmt.Errorf("rgcn: SegmentMatMul: nil relations")
	}
	if rel.NumDst() == 0 {
		return nil, fmt.Errorf("rgcn: SegmentMatMul: the relations have no destination nodes: the result would be empty, which Gorgonia cannot hold")
	}
	if len(xs) == 0 || w == nil {
		return nil, fmt.Errorf("rgcn: SegmentMatMul: no features or nil weights")
	}
	op := &segOp{rel: rel}
	rows := 0
	for i, x := range xs {
		if x == nil {
			return nil, fmt.Errorf("rgcn: SegmentMatMul: feature block %d is nil", i)
		}
		s := x.Shape()
		if len(s) != 2 || s[0] == 0 || (i > 0 && s[1] != op.in) {
			return nil, fmt.Errorf("rgcn: SegmentMatMul: feature block %d %q has shape %v, want a matrix with rows and the width of the first block", i, x.Name(), s)
		}
		op.in = s[1]
		op.parts = append(op.parts, s[0])
		rows += s[0]
	}
	x := xs[0]
	if rows != rel.NumSrc() {
		return nil, fmt.Errorf("rgcn: SegmentMatMul: features %q have %d rows in %d blocks, want (%d, in)", x.Name(), rows, len(xs), rel.NumSrc())
	}
	ws := w.Shape()
	switch {
	case len(ws) == 3 && ws[0] == len(rel.rels) && ws[1] == op.in:
		op.out, op.blocks = ws[2], 1
	case len(ws) == 4 && ws[0] == len(rel.rels) && ws[1] > 0 && ws[1]*ws[2] == op.in:
		op.out, op.blocks = ws[1]*ws[3], ws[1]
	default:
		return nil, fmt.Errorf("rgcn: SegmentMatMul: weights %q have shape %v, want (%d, %d, out) or (%d, B, %d/B, out/B)",
			w.Name(), ws, len(rel.rels), op.in, len(rel.rels), op.in)
	}
	inputs := append(append(gorgonia.Nodes{}, xs...), w)
	if loop != nil {
		if s := loop.Shape(); !s.Eq(tensor.Shape{op.in, op.out}) {
			return nil, fmt.Errorf("rgcn: SegmentMatMul: self-loop weight %q has shape %v, want (%d, %d)", loop.Name(), s, op.in, op.out)
		}
		op.loop = true
		inputs = append(inputs, loop)
	}
	if bias != nil {
		if s := bias.Shape(); !s.Eq(tensor.Shape{op.out}) {
			return nil, fmt.Errorf("rgcn: SegmentMatMul: bias %q has shape %v, want (%d)", bias.Name(), s, op.out)
		}
		op.bias = true
		inputs = append(inputs, bias)
	}
	for _, n := range inputs {
		if n.Dtype() != x.Dtype() || (n.Dtype() != tensor.Float32 && n.Dtype() != tensor.Float64) {
			return nil, fmt.Errorf("rgcn: SegmentMatMul: %q is %v and %q %v; want all float32 or all float64", n.Name(), n.Dtype(), x.Name(), x.Dtype())
		}
	}
	return opkit.Apply("rgcn", op, inputs...)
}

// segOp is SegmentMatMul.
type segOp struct {
	rel             *Relations
	in, out, blocks int
	loop, bias      bool
	parts           []int // rows of each block of x
}

// offsets returns the first row of each block of x, and NumSrc.
func (op *segOp) offsets() []int {
	off := make([]int, len(op.parts)+1)
	for i, n := range op.parts {
		off[i+1] = off[i] + n
	}
	return off
}

func (op *segOp) Name() string {
	return fmt.Sprintf("segment_matmul(%dx%d/%d)", op.in, op.out, op.blocks)
}

func (op *segOp) Key() string {
	return fmt.Sprintf("rel=%d,%d,%d,%d,%v,%v,%v", op.rel.id, op.in, op.out, op.blocks, op.loop, op.bias, op.parts)
}

func (op *segOp) weightShape() tensor.Shape {
	r := len(op.rel.rels)
	if op.blocks == 1 {
		return tensor.Shape{r, op.in, op.out}
	}
	b := op.blocks
	return tensor.Shape{r, b, op.in / b, op.out / b}
}

func (op *segOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	var in []tensor.Shape
	for _, n := range op.parts {
		in = append(in, tensor.Shape{n, op.in})
	}
	in = append(in, op.weightShape())
	if op.loop {
		in = append(in, tensor.Shape{op.in, op.out})
	}
	if op.bias {
		in = append(in, tensor.Shape{op.out})
	}
	return in, tensor.Shape{op.rel.numDst, op.out}
}

// DoInto is Do into dst (opkit.Into): a machine that keeps buffers from
// one run to the next (nn/vm) gives the output's memory back to it.
func (op *segOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return segForward[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return segForward[float64](dst, op, vals) })
}

// Grad builds the gradients of x, w, and the self-loop weight and bias
// where present, each one backward op.
func (op *segOp) Grad(inputs gorgonia.Nodes, _, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	// The inputs in order: the blocks of x, w, then the self-loop weight
	// and the bias where present.
	k := len(op.parts)
	which := make([]segInput, k, k+3)
	which = append(which, segW)
	if op.loop {
		which = append(which, segLoop)
	}
	if op.bias {
		which = append(which, segBias)
	}
	xs := inputs[:k]
	out := make(gorgonia.Nodes, len(inputs))
	for i, wh := range which {
		var args gorgonia.Nodes
		switch wh {
		case segX:
			args = gorgonia.Nodes{grad, inputs[k]}
			if op.loop {
				args = append(args, inputs[k+1])
			}
		case segW, segLoop:
			args = append(append(args, xs...), grad)
		case segBias:
			args = gorgonia.Nodes{grad}
		}
		g, err := opkit.Apply("rgcn", &segGradOp{fwd: op, which: wh, part: i}, args...)
		if err != nil {
			return nil, err
		}
		out[i] = g
	}
	return out, nil
}

// segInput names the input a segGradOp is the gradient of.
type segInput int

const (
	segX    segInput = iota // inputs (dOut, w[, loop]): the gradient of block part of x
	segW                    // inputs (x blocks..., dOut)
	segLoop                 // inputs (x blocks..., dOut)
	segBias                 // input dOut
)

// segGradOp is a gradient of fwd.
type segGradOp struct {
	fwd   *segOp
	which segInput
	part  int // segX: the block of x
}

func (op *segGradOp) Name() string {
	return fmt.Sprintf("segment_matmul_grad%d(%dx%d/%d)", op.which, op.fwd.in, op.fwd.out, op.fwd.blocks)
}

func (op *segGradOp) Key() string { return fmt.Sprintf("%s,part=%d", op.fwd.Key(), op.part) }

func (op *segGradOp) Shapes() ([]tensor.Shape, tensor.Shape) {
	f := op.fwd
	in, _ := f.Shapes()
	k := len(f.parts)
	dOut := tensor.Shape{f.rel.numDst, f.out}
	switch op.which {
	case segX:
		s := []tensor.Shape{dOut, in[k]}
		if f.loop {
			s = append(s, in[k+1])
		}
		return s, in[op.part]
	case segW:
		return append(slices.Clone(in[:k]), dOut), in[k]
	case segLoop:
		return append(slices.Clone(in[:k]), dOut), tensor.Shape{f.in, f.out}
	}
	return []tensor.Shape{dOut}, tensor.Shape{f.out}
}

// DoInto is Do into dst (opkit.Into).
func (op *segGradOp) DoInto(dst *tensor.Dense, vals []gorgonia.Value) (gorgonia.Value, error) {
	return values.Dispatch(vals, func() (gorgonia.Value, error) { return segBackward[float32](dst, op, vals) },
		func() (gorgonia.Value, error) { return segBackward[float64](dst, op, vals) })
}

var (
	_ opkit.Forward = (*segOp)(nil)
	_ opkit.Into    = (*segOp)(nil)
	_ opkit.Into    = (*segGradOp)(nil)
)

// productFirst reports whether relation rl is cheaper multiplied first
// (x[src] W_r, then summed over the edges at out columns) than summed
// first (at in columns, then multiplied at the destinations). Both
// directions of the gradient follow the same choice.
func (op *segOp) productFirst(rl *relation) bool {
	if forceOrder != 0 {
		return forceOrder == 1
	}
	e := int64(rl.g.NumEdges())
	ns, nd := int64(len(rl.src)), int64(len(rl.dst))
	in, out, b := int64(op.in), int64(op.out), int64(op.blocks)
	return ns*in*out/b+e*out <= e*in+nd*in*out/b
}

// forceOrder overrides productFirst in tests (1: product first, 2: sum
// first).
var forceOrder int

// scratch holds one call's buffers, sized for the largest relation and
// reused by each.
type scratch[T num.Float] struct {
	a, b, c []T
}

// take returns the first n elements of *buf, growing it as needed.
func take[T num.Float](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
	}
	return (*buf)[:n]
}

// rows is a matrix w columns wide held in row blocks: block i is data[i],
// rows off[i] to off[i+1]-1.
type rows[T num.Float] struct {
	data [][]T
	off  []int
	w    int
}

// block returns the block holding row v.
func (x rows[T]) block(v int) int { return sort.SearchInts(x.off, v+1) - 1 }

// row returns row v.
func (x rows[T]) row(v int) []T {
	i := x.block(v)
	r := v - x.off[i]
	return x.data[i][r*x.w : (r+1)*x.w]
}

// span returns rows lo to lo+n-1: a slice of their block when one block
// holds them all, else a copy in buf.
func (x rows[T]) span(lo, n int, buf *[]T) []T {
	if n == 0 {
		return nil
	}
	if i := x.block(lo); lo+n <= x.off[i+1] {
		r := lo - x.off[i]
		return x.data[i][r*x.w : (r+n)*x.w]
	}
	out := take(buf, n*x.w)
	for k := range n {
		copy(out[k*x.w:(k+1)*x.w], x.row(lo+k))
	}
	return out
}

// gather returns the rows ids of x: a slice of x when the IDs are a run in
// one block, else a copy in buf.
func gather[T num.Float](x rows[T], ids []int32, run bool, buf *[]T) []T {
	if len(ids) == 0 {
		return nil
	}
	w := x.w
	if run {
		return x.span(int(ids[0]), len(ids), buf)
	}
	out := take(buf, len(ids)*w)
	parallel.For(len(ids), rowsPerTask, func(lo, hi int) {
		for k, v := range ids[lo:hi] {
			k += lo
			copy(out[k*w:(k+1)*w], x.row(int(v)))
		}
	})
	return out
}

// matrix returns x as rows of one block.
func matrix[T num.Float](x []T, n, w int) rows[T] {
	return rows[T]{data: [][]T{x}, off: []int{0, n}, w: w}
}

// scatterAdd adds row k of y to row ids[k]-base of out (w columns each).
// The IDs are distinct, so the rows split across goroutines in any way
// give the same bits.
func scatterAdd[T num.Float](out, y []T, ids []int32, base, w int) {
	parallel.For(len(ids), rowsPerTask, func(lo, hi int) {
		for k, v := range ids[lo:hi] {
			k += lo
			v -= int32(base)
			o, r := out[int(v)*w:(int(v)+1)*w], y[k*w:(k+1)*w]
			for j := range o {
				o[j] += r[j]
			}
		}
	})
}

// rowsPerTask is the least number of rows a goroutine gathers or scatters.
const rowsPerTask = 2048

// aggregate sets dst to the (normed) sum over rl's edges (reversed when
// back is set) of the rows of u, w columns each.
func aggregate[T num.Float](dst []T, rl *relation, back bool, u []T, w int) {
	g := rl.g
	if back {
		g = g.Reverse()
	}
	nr := norms[T](rl)
	if nr == nil {
		spmm.Forward(dst, g, spmm.CopyU, spmm.Sum, u, nil, bcast.Same([]int{w}), nil)
		return
	}
	p, err := bcast.New([]int{w}, []int{1}, false)
	if err != nil {
		panic(err) // (w) by (1) always broadcasts
	}
	spmm.Forward(dst, g, spmm.Mul, spmm.Sum, u, nr, p, nil)
}

// aggregateRange sets dst to rows lo to hi-1 of aggregate's result (the
// compact destinations, or sources when back is set), with its bits.
func aggregateRange[T num.Float](dst []T, rl *relation, back bool, lo, hi int, u []T, w int) {
	g := rl.g
	if back {
		g = g.Reverse()
	}
	nr := norms[T](rl)
	if nr == nil {
		spmm.SumRange(dst, g, lo, hi, spmm.CopyU, u, nil, bcast.Same([]int{w}))
		return
	}
	p, err := bcast.New([]int{w}, []int{1}, false)
	if err != nil {
		panic(err) // (w) by (1) always broadcasts
	}
	spmm.SumRange(dst, g, lo, hi, spmm.Mul, u, nr, p)
}

// blockMode is the product blockMul computes.
type blockMode int

const (
	blockProduct blockMode = iota // c (n, out) = a (n, in) W
	blockTransB                   // c (n, in) = a (n, out) W^T
	blockTransA                   // W-shaped c = a (n, in)^T b (n, out)
)

// blockMul computes mode's product with W, an (in, out) matrix when blocks
// is 1 and otherwise blocks diagonal blocks of (in/blocks, out/blocks)
// stored one after another; a block's columns of a, b and c are copied
// to and from contiguous scratch.
func blockMul[T num.Float](mode blockMode, c, a, b, w []T, n, in, out, blocks int, s *scratch[T]) {
	if blocks == 1 {
		switch mode {
		case blockProduct:
			gemm.Mul(c, a, w, n, in, out)
		case blockTransB:
			gemm.MulTransB(c, a, w, n, in, out)
		case blockTransA:
			gemm.MulTransA(c, a, b, n, in, out)
		}
		return
	}
	bi, bo := in/blocks, out/blocks
	for k := range blocks {
		var wk []T
		if mode != blockTransA {
			wk = w[k*bi*bo : (k+1)*bi*bo]
		}
		switch mode {
		case blockProduct:
			ak, ck := columns(a, n, in, k*bi, bi, &s.a), take(&s.b, n*bo)
			gemm.Mul(ck, ak, wk, n, bi, bo)
			setColumns(c, ck, n, out, k*bo, bo)
		case blockTransB:
			ak, ck := columns(a, n, out, k*bo, bo, &s.a), take(&s.b, n*bi)
			gemm.MulTransB(ck, ak, wk, n, bi, bo)
			setColumns(c, ck, n, in, k*bi, bi)
		case blockTransA:
			ak, bk := columns(a, n, in, k*bi, bi, &s.a), columns(b, n, out, k*bo, bo, &s.b)
			gemm.MulTransA(c[k*bi*bo:(k+1)*bi*bo], ak, bk, n, bi, bo)
		}
	}
}

// columns copies columns lo to lo+w-1 of the (n, width) matrix x to buf.
func columns[T num.Float](x []T, n, width, lo, w int, buf *[]T) []T {
	out := take(buf, n*w)
	for i := range n {
		copy(out[i*w:(i+1)*w], x[i*width+lo:i*width+lo+w])
	}
	return out
}

// setColumns writes the (n, w) matrix y to columns lo.. of the (n, width)
// matrix x.
func setColumns[T num.Float](x, y []T, n, width, lo, w int) {
	for i := range n {
		copy(x[i*width+lo:i*width+lo+w], y[i*w:(i+1)*w])
	}
}

// chunkRows is how many destination rows SegmentMatMul multiplies at a time
// when a relation is summed first.
var chunkRows = 16384

// pool holds the scratch of past calls of every SegmentMatMul op, so a
// model's layers share one set (ops run one at a time on a machine).
var pool scratchPool

// getBuffers returns scratch of past calls, or new scratch.
func getBuffers[T num.Float]() *buffers[T] {
	if b, ok := pool.get(func(b any) bool { _, ok := b.(*buffers[T]); return ok }).(*buffers[T]); ok {
		return b
	}
	return new(buffers[T])
}

// buffers of one call: g gathered rows, p products, z sums; s the block
// scratch.
type buffers[T num.Float] struct {
	g, g2, p, z []T
	s           scratch[T]
}

// segForward computes the output into dst when it fits (values.AllocInto:
// zeroed first, as the relations add into it), else into a new tensor.
func segForward[T num.Float](dst *tensor.Dense, op *segOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	x, w, loop, bias, err := segInputs[T](op, vals)
	if err != nil {
		return nil, err
	}
	rel := op.rel
	t, out := values.AllocInto[T](dst, tensor.Shape{rel.numDst, op.out})
	bf := getBuffers[T]()
	defer pool.Put(bf)
	if loop != nil {
		// The self-loop term first, written straight to the output, block
		// by block (rows of a product are independent).
		forBlocks(x, rel.dstOff, rel.numDst, func(xb []T, lo, n int) {
			o := out[(lo-rel.dstOff)*op.out : (lo-rel.dstOff+n)*op.out]
			gemm.Mul(o, xb, loop, n, op.in, op.out)
		})
	}
	for rl, wr := range withEdges(rel, w) {
		ns, nd := len(rl.src), len(rl.dst)
		xs := gather(x, rl.src, rl.srcRun, &bf.g)
		// The sums and products are made and scattered chunkRows
		// destinations at a time, so the scratch stays small when there are
		// many destinations or out is wide (a classifier's last layer).
		if op.productFirst(rl) {
			y := take(&bf.p, ns*op.out)
			blockMul(blockProduct, y, xs, nil, wr, ns, op.in, op.out, op.blocks, &bf.s)
			for lo := 0; lo < nd; lo += chunkRows {
				hi := min(nd, lo+chunkRows)
				zc := take(&bf.z, (hi-lo)*op.out)
				aggregateRange(zc, rl, false, lo, hi, y, op.out)
				scatterAdd(out, zc, rl.dst[lo:hi], 0, op.out)
			}
			continue
		}
		for lo := 0; lo < nd; lo += chunkRows {
			hi := min(nd, lo+chunkRows)
			a := take(&bf.p, (hi-lo)*op.in)
			aggregateRange(a, rl, false, lo, hi, xs, op.in)
			zc := take(&bf.z, (hi-lo)*op.out)
			blockMul(blockProduct, zc, a, nil, wr, hi-lo, op.in, op.out, op.blocks, &bf.s)
			scatterAdd(out, zc, rl.dst[lo:hi], 0, op.out)
		}
	}
	if bias != nil {
		for i := 0; i < len(out); i += op.out {
			row := out[i : i+op.out]
			for j, v := range bias {
				row[j] += v
			}
		}
	}
	return t, nil
}

// forBlocks calls f for each block's part of rows lo to lo+n-1 of x: its
// rows xb, the first row's index and the number of rows.
func forBlocks[T num.Float](x rows[T], lo, n int, f func(xb []T, lo, n int)) {
	for i := range x.data {
		a, b := max(lo, x.off[i]), min(lo+n, x.off[i+1])
		if a < b {
			f(x.data[i][(a-x.off[i])*x.w:(b-x.off[i])*x.w], a, b-a)
		}
	}
}

// segInputs returns x, w, and the self-loop weight and bias (nil when
// absent) of a forward call.
func segInputs[T num.Float](op *segOp, vals []gorgonia.Value) (x rows[T], w, loop, bias []T, err error) {
	data, err := values.DataAll[T](vals)
	if err != nil {
		return rows[T]{}, nil, nil, nil, err
	}
	k := len(op.parts)
	x = rows[T]{data: data[:k], off: op.offsets(), w: op.in}
	w = data[k]
	next := k + 1
	if op.loop {
		loop = data[next]
		next++
	}
	if op.bias {
		bias = data[next]
	}
	return x, w, loop, bias, nil
}

// segBackward computes a gradient into dst when it fits (zeroed first:
// the relations add into it), else into a new tensor.
func segBackward[T num.Float](dst *tensor.Dense, op *segGradOp, vals []gorgonia.Value) (gorgonia.Value, error) {
	data, err := values.DataAll[T](vals)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	rel := f.rel
	_, shape := op.Shapes()
	t, res := values.AllocInto[T](dst, shape)
	k := len(f.parts)
	var x rows[T]
	if op.which == segW || op.which == segLoop {
		x = rows[T]{data: data[:k], off: f.offsets(), w: f.in}
	}
	switch op.which {
	case segX:
		off := f.offsets()
		lo, hi := off[op.part], off[op.part+1]
		segGradX(f, res, lo, hi, data[0], data[1])
		// dx[o+v] += dOut[v] W_0^T for the rows of this block.
		// chunkRows rows at a time (rows of a product are independent).
		bf := getBuffers[T]()
		for a, end := max(lo, rel.dstOff), min(hi, rel.dstOff+rel.numDst); f.loop && a < end; a += chunkRows {
			b := min(end, a+chunkRows)
			y := take(&bf.p, (b-a)*f.in)
			gemm.MulTransB(y, data[0][(a-rel.dstOff)*f.out:(b-rel.dstOff)*f.out], data[2], b-a, f.in, f.out)
			dx := res[(a-lo)*f.in : (b-lo)*f.in]
			for i, v := range y {
				dx[i] += v
			}
		}
		pool.Put(bf)
	case segW:
		segGradW(f, res, x, data[k])
	case segLoop:
		// x's rows dstOff.. a chunk at a time: a chunk within one block is
		// read in place, one across blocks is copied.
		gemm.MulTransARows(res, func(lo, hi int) []T {
			var buf []T
			return x.span(rel.dstOff+lo, hi-lo, &buf)
		}, data[k], rel.numDst, f.in, f.out)
	case segBias:
		for i := 0; i < len(data[0]); i += f.out {
			for j, v := range data[0][i : i+f.out] {
				res[j] += v
			}
		}
	}
	return t, nil
}

// withEdges yields every relation of rel that has edges, with its block
// of w: the relations' weights (or their gradients), one block each.
func withEdges[T num.Float](rel *Relations, w []T) iter.Seq2[*relation, []T] {
	return func(yield func(*relation, []T) bool) {
		wl := len(w) / max(len(rel.rels), 1)
		for r := range rel.rels {
			if rl := &rel.rels[r]; rl.g.NumEdges() > 0 && !yield(rl, w[r*wl:(r+1)*wl]) {
				return
			}
		}
	}
}

// segGradX adds to dx (zero, rows lo to hi-1 of the NumSrc x in gradient
// of x) every relation's gradient of x, A_r^T dOut W_r^T at the relation's
// sources, in those rows; relations reading none of them are skipped.
func segGradX[T num.Float](f *segOp, dx []T, lo, hi int, dOut, w []T) {
	rel := f.rel
	bf := getBuffers[T]()
	defer pool.Put(bf)
	for rl, wr := range withEdges(rel, w) {
		// The relation's sources in [lo, hi): rl.src[k0:k1].
		k0, _ := slices.BinarySearch(rl.src, int32(lo))
		k1, _ := slices.BinarySearch(rl.src, int32(hi))
		if k0 == k1 {
			continue
		}
		nd := len(rl.dst)
		dz := gather(matrix(dOut, rel.numDst, f.out), rl.dst, rl.dstRun, &bf.g)
		pf := f.productFirst(rl)
		var da []T
		if !pf {
			da = take(&bf.p, nd*f.in)
			blockMul(blockTransB, da, dz, nil, wr, nd, f.in, f.out, f.blocks, &bf.s)
		}
		// The sources k0 to k1-1 only, chunkRows at a time.
		for a := k0; a < k1; a += chunkRows {
			b := min(k1, a+chunkRows)
			dxs := take(&bf.z, (b-a)*f.in)
			if pf {
				dy := take(&bf.g2, (b-a)*f.out)
				aggregateRange(dy, rl, true, a, b, dz, f.out)
				blockMul(blockTransB, dxs, dy, nil, wr, b-a, f.in, f.out, f.blocks, &bf.s)
			} else {
				aggregateRange(dxs, rl, true, a, b, da, f.in)
			}
			scatterAdd(dx, dxs, rl.src[a:b], lo, f.in)
		}
	}
}

// segGradW sets dw to every relation's weight gradient: (A_r x)^T dOut,
// over the rows the relation touches (zero for a relation without edges).
func segGradW[T num.Float](f *segOp, dw []T, x rows[T], dOut []T) {
	rel := f.rel
	bf := getBuffers[T]()
	defer pool.Put(bf)
	for rl, dwr := range withEdges(rel, dw) {
		ns, nd := len(rl.src), len(rl.dst)
		xs := gather(x, rl.src, rl.srcRun, &bf.g)
		dz := gather(matrix(dOut, rel.numDst, f.out), rl.dst, rl.dstRun, &bf.g2)
		if f.productFirst(rl) {
			dy := take(&bf.p, ns*f.out)
			aggregate(dy, rl, true, dz, f.out)
			blockMul(blockTransA, dwr, xs, dy, nil, ns, f.in, f.out, f.blocks, &bf.s)
		} else {
			a := take(&bf.p, nd*f.in)
			aggregate(a, rl, false, xs, f.in)
			blockMul(blockTransA, dwr, a, dz, nil, nd, f.in, f.out, f.blocks, &bf.s)
		}
	}
}
