package bench

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/parallel"
	"github.com/gnngo/gnn/ops/edgesoftmax"
	"github.com/gnngo/gnn/ops/sddmm"
	"github.com/gnngo/gnn/ops/spmm"
)

// Kernel ops: Spec.Op of the kernel models. Node rows have Heads x Feat
// elements (Feat alone when Heads is 1).
const (
	OpCopyUSum  = "copy_u_sum"  // spmm: sum of the source rows
	OpUMulESum  = "u_mul_e_sum" // spmm: sum of source rows times an edge scalar per head
	OpUAddV     = "u_add_v"     // sddmm: source row plus destination row, per edge
	OpUDotV     = "u_dot_v"     // sddmm: dot product of source and destination rows per head
	OpSoftmaxBy = "by_dst"      // edgesoftmax: softmax of Heads x Feat edge scores over in-edges
)

// grain is the smallest row range the unfused kernels hand to a goroutine.
const grain = 1 << 10

// BuildKernel returns one call of the kernel s describes on a uniform
// random graph of s.Nodes nodes and s.Edges edges (generate.Uniform, no
// self-loops) with standard normal float32 operands. Outputs and, for the
// unfused path, the per-edge buffers are allocated once: a call measures
// the kernel, not the allocator. The fused path calls the kernels of
// ops/spmm, ops/sddmm and ops/edgesoftmax; the unfused path gathers the
// operands onto the edges (one E-row buffer each), combines them there and
// scatters the results onto the destinations in edge order (PyG's
// gather-scatter), in parallel and without atomics;
// the dense path computes on dense N x N matrices per head (gonum's
// blas32 for products).
func BuildKernel(s *Spec) (func(), error) {
	k, err := buildKernel(s)
	return k.call, err
}

// kernel is a built kernel: call runs it, result returns its output in the
// fused kernel's layout (per node or per edge rows).
type kernel struct {
	g      *graph.Graph
	call   func()
	result func() []float32
}

func buildKernel(s *Spec) (kernel, error) {
	if err := checkPath(s.Path); err != nil {
		return kernel{}, err
	}
	g, err := generate.Uniform(s.Nodes, s.Edges, s.Seed)
	if err != nil {
		return kernel{}, err
	}
	if g, err = orderEdges(g, s.EdgeOrder); err != nil {
		return kernel{}, err
	}
	g.CSC()
	r := rand.New(rand.NewPCG(s.Seed, 0xbe7c))
	rnd := func(n int) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	n, ne, h, f := s.Nodes, s.Edges, s.Heads, s.Feat
	row := []int{f}
	scal := []int{1}
	if h > 1 {
		row, scal = []int{h, f}, []int{h, 1}
	}
	switch s.Model + "/" + s.Op {
	case SpMM + "/" + OpCopyUSum, SpMM + "/" + OpUMulESum:
		mul := s.Op == OpUMulESum
		u := rnd(n * h * f)
		var w []float32
		p := bcast.Same(row)
		op := spmm.CopyU
		if mul {
			w = rnd(int(ne) * h)
			if p, err = bcast.New(row, scal, false); err != nil {
				return kernel{}, err
			}
			op = spmm.Mul
		}
		out := make([]float32, n*h*f)
		k := kernel{g: g, result: func() []float32 { return out }}
		switch s.Path {
		case Fused:
			k.call = func() { spmm.Forward(out, g, op, spmm.Sum, u, w, p, nil) }
		case Unfused:
			msg := make([]float32, int(ne)*h*f)
			_, dst := g.COO()
			k.call = func() { gatherScale(msg, g, u, w, h, f); scatter(out, dst, msg, h*f, 0, add) }
		case Dense:
			adj := denseAdjacency(g, w, h)
			k.call = func() { denseSpMM(out, adj, u, n, h, f) }
		}
		return k, nil
	case SDDMM + "/" + OpUAddV, SDDMM + "/" + OpUDotV:
		dot := s.Op == OpUDotV
		lhs, rhs := rnd(n*h*f), rnd(n*h*f)
		op := sddmm.Add
		p := bcast.Same(row)
		outRow := h * f
		if dot {
			op, outRow = sddmm.Dot, h
			if p, err = bcast.New(row, row, true); err != nil {
				return kernel{}, err
			}
		}
		k := kernel{g: g}
		switch s.Path {
		case Fused:
			out := make([]float32, int(ne)*outRow)
			k.call = func() { sddmm.Forward(out, g, op, lhs, sddmm.U, rhs, sddmm.V, p) }
			k.result = func() []float32 { return out }
		case Unfused:
			out := make([]float32, int(ne)*outRow)
			a, b := make([]float32, int(ne)*h*f), make([]float32, int(ne)*h*f)
			k.call = func() { gatherBoth(out, a, b, g, lhs, rhs, h, f, dot) }
			k.result = func() []float32 { return out }
		case Dense:
			out := make([]float32, outRow*n*n)
			k.call = func() { denseSDDMM(out, lhs, rhs, n, h, f, dot) }
			k.result = func() []float32 { return edgeEntries(g, out, outRow) }
		}
		return k, nil
	case EdgeSoftmax + "/" + OpSoftmaxBy:
		width := h * f
		score := rnd(int(ne) * width)
		k := kernel{g: g}
		switch s.Path {
		case Fused:
			out := make([]float32, len(score))
			k.call = func() { edgesoftmax.Forward(out, g, edgesoftmax.ByDst, score, width) }
			k.result = func() []float32 { return out }
		case Unfused:
			b := newSoftmaxBuffers(n, int(ne), width)
			k.call = func() { b.run(g, score, width) }
			k.result = func() []float32 { return b.out }
		case Dense:
			dense := denseScores(g, score, width)
			out := make([]float32, len(dense))
			k.call = func() { denseRowSoftmax(out, dense, n) }
			k.result = func() []float32 { return edgeEntries(g, out, width) }
		}
		return k, nil
	}
	return kernel{}, fmt.Errorf("bench: unknown kernel %s/%s", s.Model, s.Op)
}

func checkPath(p string) error {
	switch p {
	case Fused, Unfused, Dense:
		return nil
	}
	return fmt.Errorf("bench: unknown path %q", p)
}

// edgeEntries returns, for every edge u -> v, entry (v, u) of w dense
// N x N matrices: E rows of w.
func edgeEntries(g *graph.Graph, d []float32, w int) []float32 {
	n := g.NumSrc()
	src, dst := g.COO()
	out := make([]float32, len(src)*w)
	for e := range src {
		for k := range w {
			out[e*w+k] = d[k*n*n+int(dst[e])*n+int(src[e])]
		}
	}
	return out
}

// gatherScale writes the message of every edge e = (u -> v): row u of x,
// times w[e*h+k] for head k when w is not nil.
func gatherScale(msg []float32, g *graph.Graph, x, w []float32, h, f int) {
	src, _ := g.COO()
	l := h * f
	parallel.For(len(src), grain, func(lo, hi int) {
		for e := lo; e < hi; e++ {
			m := msg[e*l : (e+1)*l]
			copy(m, x[int(src[e])*l:int(src[e]+1)*l])
			if w != nil {
				for k := range h {
					c := w[e*h+k]
					for j := k * f; j < (k+1)*f; j++ {
						m[j] *= c
					}
				}
			}
		}
	})
}

// scatter combines row e of msg (l wide) into row dst[e] of out for every
// edge e, in increasing edge order, starting from init: PyG's scatter,
// reading the messages in the order they were written. Without atomics,
// each worker owns a range of destinations and scans all edges, so a
// destination's rows combine in edge-ID order, as in the fused kernels.
func scatter(out []float32, dst []int32, msg []float32, l int, init float32, combine func(a, b float32) float32) {
	n := len(out) / max(l, 1)
	parallel.For(len(out), grain*l, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out[i] = init
		}
	})
	w := parallel.Workers()
	parallel.For(w, 1, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			vlo, vhi := int32(k*n/w), int32((k+1)*n/w)
			for e, v := range dst {
				if v < vlo || v >= vhi {
					continue
				}
				o := out[int(v)*l : int(v+1)*l]
				for j, m := range msg[e*l : (e+1)*l] {
					o[j] = combine(o[j], m)
				}
			}
		}
	})
}

func add(a, b float32) float32 { return a + b }

// gatherBoth gathers the source rows of lhs into a and the destination
// rows of rhs into b (E rows of h*f each), then combines them per edge:
// a + b, or the dot product per head.
func gatherBoth(out, a, b []float32, g *graph.Graph, lhs, rhs []float32, h, f int, dot bool) {
	src, dst := g.COO()
	l := h * f
	parallel.For(len(src), grain, func(lo, hi int) {
		for e := lo; e < hi; e++ {
			copy(a[e*l:(e+1)*l], lhs[int(src[e])*l:int(src[e]+1)*l])
			copy(b[e*l:(e+1)*l], rhs[int(dst[e])*l:int(dst[e]+1)*l])
		}
	})
	parallel.For(len(src), grain, func(lo, hi int) {
		for e := lo; e < hi; e++ {
			x, y := a[e*l:(e+1)*l], b[e*l:(e+1)*l]
			if !dot {
				o := out[e*l : (e+1)*l]
				for j := range o {
					o[j] = x[j] + y[j]
				}
				continue
			}
			for k := range h {
				var s float32
				for j := k * f; j < (k+1)*f; j++ {
					s += x[j] * y[j]
				}
				out[e*h+k] = s
			}
		}
	})
}

// softmaxBuffers are the per-node and per-edge tensors of a gather-scatter
// edge softmax (PyG's softmax): the maximum and the sum per destination,
// gathered back onto the edges, and the exponentials.
type softmaxBuffers struct {
	nodeMax, nodeSum []float32 // N x width
	edgeMax, edgeSum []float32 // E x width
	exp, out         []float32 // E x width
}

func newSoftmaxBuffers(n, e, w int) *softmaxBuffers {
	return &softmaxBuffers{
		nodeMax: make([]float32, n*w), nodeSum: make([]float32, n*w),
		edgeMax: make([]float32, e*w), edgeSum: make([]float32, e*w),
		exp: make([]float32, e*w), out: make([]float32, e*w),
	}
}

// run computes the softmax of score over the in-edges of every node in
// six passes: scatter-max, gather, exp, scatter-add, gather and divide.
func (b *softmaxBuffers) run(g *graph.Graph, score []float32, w int) {
	_, dst := g.COO()
	ne := len(dst)
	scatter(b.nodeMax, dst, score, w, float32(math.Inf(-1)), func(a, b float32) float32 { return max(a, b) })
	gatherRows(b.edgeMax, b.nodeMax, dst, w)
	parallel.For(ne*w, grain*w, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			b.exp[i] = float32(math.Exp(float64(score[i] - b.edgeMax[i])))
		}
	})
	scatter(b.nodeSum, dst, b.exp, w, 0, add)
	gatherRows(b.edgeSum, b.nodeSum, dst, w)
	parallel.For(ne*w, grain*w, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			b.out[i] = b.exp[i] / b.edgeSum[i]
		}
	})
}

// gatherRows writes row idx[e] of x (w wide) to row e of out.
func gatherRows(out, x []float32, idx []int32, w int) {
	parallel.For(len(idx), grain, func(lo, hi int) {
		for e := lo; e < hi; e++ {
			copy(out[e*w:(e+1)*w], x[int(idx[e])*w:int(idx[e]+1)*w])
		}
	})
}

// denseAdjacency returns h dense N x N matrices, head after head: entry
// (v, u) sums w[e*h+k] (or 1 when w is nil) over the edges u -> v.
func denseAdjacency(g *graph.Graph, w []float32, h int) []float32 {
	n := g.NumSrc()
	a := make([]float32, h*n*n)
	clear(a) // resident, as a dense framework tensor (see denseGCN)
	src, dst := g.COO()
	for e := range src {
		for k := range h {
			c := float32(1)
			if w != nil {
				c = w[e*h+k]
			}
			a[k*n*n+int(dst[e])*n+int(src[e])] += c
		}
	}
	return a
}

// denseSpMM computes out[:, k, :] = A_k x[:, k, :] for every head k.
func denseSpMM(out, adj, x []float32, n, h, f int) {
	for k := range h {
		a := blas32.General{Rows: n, Cols: n, Stride: n, Data: adj[k*n*n : (k+1)*n*n]}
		b := blas32.General{Rows: n, Cols: f, Stride: h * f, Data: x[k*f:]}
		c := blas32.General{Rows: n, Cols: f, Stride: h * f, Data: out[k*f:]}
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
	}
}

// denseSDDMM computes, for every pair (v, u), the sum lhs[u] + rhs[v]
// elementwise (out holds h*f matrices N x N, one per element) or the dot
// product of lhs[u,k,:] and rhs[v,k,:] for every head k (h matrices).
func denseSDDMM(out, lhs, rhs []float32, n, h, f int, dot bool) {
	if dot {
		for k := range h {
			a := blas32.General{Rows: n, Cols: f, Stride: h * f, Data: rhs[k*f:]}
			b := blas32.General{Rows: n, Cols: f, Stride: h * f, Data: lhs[k*f:]}
			c := blas32.General{Rows: n, Cols: n, Stride: n, Data: out[k*n*n : (k+1)*n*n]}
			blas32.Gemm(blas.NoTrans, blas.Trans, 1, a, b, 0, c)
		}
		return
	}
	w := h * f
	for k := range w {
		o := out[k*n*n : (k+1)*n*n]
		parallel.For(n, 64, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				r := rhs[v*w+k]
				row := o[v*n : (v+1)*n]
				for u := range row {
					row[u] = lhs[u*w+k] + r
				}
			}
		})
	}
}

// denseScores returns width dense N x N score matrices, column after
// column of the edge scores: entry (v, u) is the score of the last edge
// u -> v, -Inf where there is none.
func denseScores(g *graph.Graph, score []float32, w int) []float32 {
	n := g.NumSrc()
	d := make([]float32, w*n*n)
	for i := range d {
		d[i] = float32(math.Inf(-1))
	}
	src, dst := g.COO()
	for e := range src {
		for k := range w {
			d[k*n*n+int(dst[e])*n+int(src[e])] = score[e*w+k]
		}
	}
	return d
}

// denseRowSoftmax writes the softmax of every row of N-wide rows of x to
// out; rows of only -Inf give NaN, as the textbook formula does.
func denseRowSoftmax(out, x []float32, n int) {
	rows := len(x) / n
	parallel.For(rows, 16, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			in, o := x[r*n:(r+1)*n], out[r*n:(r+1)*n]
			m := float32(math.Inf(-1))
			for _, v := range in {
				m = max(m, v)
			}
			var s float64
			for j, v := range in {
				e := math.Exp(float64(v - m))
				o[j] = float32(e)
				s += e
			}
			inv := float32(1 / s)
			for j := range o {
				o[j] *= inv
			}
		}
	})
}
