//go:build gnncuda

package sparse

import (
	"fmt"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/ops/spmm"
)

// SpMM computes spmm.Forward on the device: for every destination node v
// and output element k, out[v*p.OutLen+k] = red over the in-edges e = (u
// -> v), in increasing edge ID, of msg(e)[k], with the message, broadcast
// plan, reducers and zero in-degree rule (0, arg -1) of spmm.Forward. For
// Max and Min, arg (int64, the length of out) receives the winning edge
// IDs, or may have Len 0; it is ignored for Sum and Mean. CopyU reads only
// u, and CopyE only e (pass bcast.Same of the copied operand's shape).
func SpMM[T num.Float](g *Graph, out Buf, op spmm.Op, red spmm.Reduce, u, e Buf, p bcast.Plan, arg Buf) error {
	b, err := checkSpMM(g, out, op, u, e, p)
	if err != nil {
		return err
	}
	c, rows, n := g.s.c, int32(g.numDst), int64(g.numDst)*int64(p.OutLen)
	switch red {
	case spmm.Sum, spmm.Mean:
		mean := int32(0)
		if red == spmm.Mean {
			mean = 1
		}
		if vec4[T](op, p, out, u) {
			return launch[T](c, "gnn_spmm_copy_u_sum4", n/4, out.Ptr, g.in.ptr, g.in.idx, u.Ptr, mean, cuda.Ptr(0), rows, int32(p.OutLen/4))
		}
		return launch[T](c, "gnn_spmm_sum", n, out.Ptr, g.in.ptr, g.in.idx, g.in.eid, u.Ptr, e.Ptr, int32(op), mean, cuda.Ptr(0), rows, b)
	case spmm.Max, spmm.Min:
		if arg.Len != 0 {
			if err := checkBuf("arg", arg, g.numDst, p.OutLen); err != nil {
				return err
			}
		}
		isMax := int32(0)
		if red == spmm.Max {
			isMax = 1
		}
		return launch[T](c, "gnn_spmm_extreme", n, out.Ptr, arg.Ptr, g.in.ptr, g.in.idx, g.in.eid, u.Ptr, e.Ptr, int32(op), isMax, rows, b)
	}
	return fmt.Errorf("sparse: unknown reducer %v", red)
}

// SpMMScaled is SpMM with the Sum reducer, each output row v then
// multiplied by scale[v] (one element per destination node), as
// spmm.ForwardScaled: GraphConv's normalisation without a pass of its own.
func SpMMScaled[T num.Float](g *Graph, out Buf, op spmm.Op, u, e Buf, p bcast.Plan, scale Buf) error {
	b, err := checkSpMM(g, out, op, u, e, p)
	if err != nil {
		return err
	}
	if err := checkBuf("scale", scale, g.numDst, 1); err != nil {
		return err
	}
	n := int64(g.numDst) * int64(p.OutLen)
	if vec4[T](op, p, out, u) {
		return launch[T](g.s.c, "gnn_spmm_copy_u_sum4", n/4, out.Ptr, g.in.ptr, g.in.idx, u.Ptr, int32(0), scale.Ptr, int32(g.numDst), int32(p.OutLen/4))
	}
	return launch[T](g.s.c, "gnn_spmm_sum", n, out.Ptr, g.in.ptr, g.in.idx, g.in.eid, u.Ptr, e.Ptr, int32(op), int32(0), scale.Ptr, int32(g.numDst), b)
}

// vectorSums enables the copy_u sum kernel of four elements per thread
// (gnn_spmm_copy_u_sum4_f32); tests and benchmarks turn it off to compare.
var vectorSums = true

// vec4 reports whether a Sum, Mean or scaled SpMM can run the copy_u kernel
// of four float32 elements per thread: rows of a multiple of 4 elements,
// read in place, at 16-byte aligned addresses.
func vec4[T num.Float](op spmm.Op, p bcast.Plan, out, u Buf) bool {
	return vectorSums && suffix[T]() == "_f32" && op == spmm.CopyU && p.Trivial && p.OutLen%4 == 0 &&
		out.Ptr%16 == 0 && u.Ptr%16 == 0
}

// SpMMBackward overwrites du and de with the gradients of a SpMM (of the
// same g, op, red, u, e and p) with respect to u and e, given the gradient
// dOut of its output (g.NumDst()*p.OutLen elements) and, for Max and Min,
// the arg that the forward call filled. Each output element sends dOut
// (divided by the in-degree for Mean; only to the winning edge for Max and
// Min) through the message's derivative: 1 for copies and Add, -1 for the
// e of Sub, e and u for Mul, 1/e and -u/e² for Div. Pass a Buf with Len 0
// for a gradient not wanted; du is not computed for CopyE, nor de for
// CopyU. u is read only for de of Mul and Div, e only for Mul and Div.
//
// du is computed one source row at a time over its out-edges and de one
// edge at a time, each element by one thread in a fixed order: no atomics,
// deterministic results.
func SpMMBackward[T num.Float](g *Graph, du, de Buf, op spmm.Op, red spmm.Reduce, u, e Buf, p bcast.Plan, arg, dOut Buf) error {
	if err := g.live(); err != nil {
		return err
	}
	if red > spmm.Min {
		return fmt.Errorf("sparse: unknown reducer %v", red)
	}
	if op > spmm.Div {
		return fmt.Errorf("sparse: SpMM has no %v message", op)
	}
	b, err := packBcast(p)
	if err != nil {
		return err
	}
	if err := checkBuf("dOut", dOut, g.numDst, p.OutLen); err != nil {
		return err
	}
	if red == spmm.Max || red == spmm.Min {
		if err := checkBuf("arg", arg, g.numDst, p.OutLen); err != nil {
			return err
		}
	}
	wantU := du.Len > 0 && op.UsesLHS()
	wantE := de.Len > 0 && op.UsesRHS()
	scaled := op == spmm.Mul || op == spmm.Div
	if wantU {
		if err := checkBuf("du", du, g.numSrc, p.LhsLen); err != nil {
			return err
		}
	}
	if wantE {
		if err := checkBuf("de", de, g.s.numEdges, p.RhsLen); err != nil {
			return err
		}
	}
	if scaled && (wantU || wantE) {
		if err := checkBuf("e", e, g.s.numEdges, p.RhsLen); err != nil {
			return err
		}
	}
	if scaled && wantE {
		if err := checkBuf("u", u, g.numSrc, p.LhsLen); err != nil {
			return err
		}
	}
	c := g.s.c
	if wantU {
		n := int64(g.numSrc) * int64(p.LhsLen)
		if err := launch[T](c, "gnn_spmm_grad_u", n, du.Ptr, g.out.ptr, g.out.idx, g.out.eid, g.in.ptr, e.Ptr, dOut.Ptr, arg.Ptr, int32(op), int32(red), int32(g.numSrc), b); err != nil {
			return err
		}
	}
	if wantE {
		n := int64(g.s.numEdges) * int64(p.RhsLen)
		if err := launch[T](c, "gnn_spmm_grad_e", n, de.Ptr, g.src, g.dst, g.in.ptr, u.Ptr, e.Ptr, dOut.Ptr, arg.Ptr, int32(op), int32(red), int64(g.s.numEdges), b); err != nil {
			return err
		}
	}
	return nil
}

// CopyUSum is SpMM copy_u + sum of rows of f elements: out[v] = the sum of
// u[s] over the in-edges s -> v (GCN's aggregation). Its gradient is
// CopyUSum on g.Reverse().
func CopyUSum[T num.Float](g *Graph, out, u Buf, f int) error {
	return SpMM[T](g, out, spmm.CopyU, spmm.Sum, u, Buf{}, bcast.Same([]int{f}), Buf{})
}

// UMulESum is SpMM u_mul_e + sum of node rows of shape (heads, f) with
// one weight per edge and head (heads elements per edge): out[v, h, :] =
// the sum over the in-edges e = (s -> v) of w[e, h] * u[s, h, :] (GAT's
// aggregation, or weighted GCN with heads = 1). UMulESumBackward gives its
// gradients.
func UMulESum[T num.Float](g *Graph, out, u, w Buf, heads, f int) error {
	p, err := bcast.New([]int{heads, f}, []int{heads, 1}, false)
	if err != nil {
		return err
	}
	return SpMM[T](g, out, spmm.Mul, spmm.Sum, u, w, p, Buf{})
}

// UMulESumBackward overwrites du and dw with the gradients of UMulESum
// with respect to u and w, given dOut; either may have Len 0 when not
// wanted.
func UMulESumBackward[T num.Float](g *Graph, du, dw Buf, u, w Buf, heads, f int, dOut Buf) error {
	p, err := bcast.New([]int{heads, f}, []int{heads, 1}, false)
	if err != nil {
		return err
	}
	return SpMMBackward[T](g, du, dw, spmm.Mul, spmm.Sum, u, w, p, Buf{}, dOut)
}

// checkSpMM checks a forward call's operands and returns the packed plan.
func checkSpMM(g *Graph, out Buf, op spmm.Op, u, e Buf, p bcast.Plan) ([]int32, error) {
	if err := g.live(); err != nil {
		return nil, err
	}
	if op > spmm.Div {
		return nil, fmt.Errorf("sparse: SpMM has no %v message", op)
	}
	if p.Dot {
		return nil, fmt.Errorf("sparse: SpMM takes no dot plan")
	}
	if err := checkBuf("out", out, g.numDst, p.OutLen); err != nil {
		return nil, err
	}
	if op.UsesLHS() {
		if err := checkBuf("u", u, g.numSrc, p.LhsLen); err != nil {
			return nil, err
		}
	}
	if op.UsesRHS() {
		if err := checkBuf("e", e, g.s.numEdges, p.RhsLen); err != nil {
			return nil, err
		}
	}
	return packBcast(p)
}
