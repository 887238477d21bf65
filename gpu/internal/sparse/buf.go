//go:build gnncuda

package sparse

import (
	"fmt"
	"unsafe"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/internal/bcast"
	"github.com/gnngo/gnn/internal/num"
)

// Buf is a device array: Len elements (float32 or float64 as the launcher's
// type parameter says, int64 for arg) starting at Ptr. A Buf with Len 0 may
// have the zero Ptr. Launchers check lengths, since kernels cannot.
type Buf struct {
	Ptr cuda.Ptr
	Len int
}

// suffix returns the kernel name suffix of T: "_f32" or "_f64".
func suffix[T num.Float]() string {
	var z T
	if unsafe.Sizeof(z) == 4 {
		return "_f32"
	}
	return "_f64"
}

// checkBuf returns an error unless b holds rows*rowLen elements.
func checkBuf(what string, b Buf, rows, rowLen int) error {
	if want := rows * rowLen; b.Len != want {
		return fmt.Errorf("sparse: %s has %d elements, want %d (%d rows of %d)", what, b.Len, want, rows, rowLen)
	}
	if b.Len > 0 && b.Ptr == 0 {
		return fmt.Errorf("sparse: %s has %d elements at the zero Ptr", what, b.Len)
	}
	return nil
}

// maxDims is GNN_MAXDIMS of common.h.
const maxDims = 4

// packBcast returns the Bcast struct of common.h for a plan: the output
// dims and each operand's strides, recovered from the plan's offsets and
// checked against all of them. Dims of size 1 are dropped and contiguous
// ones merged until at most maxDims remain.
func packBcast(p bcast.Plan) ([]int32, error) {
	b := make([]int32, 1+3*maxDims+5)
	set := func(nd int, out, ls, rs []int) {
		b[0] = int32(nd)
		for i := range nd {
			b[1+i], b[1+maxDims+i], b[1+2*maxDims+i] = int32(out[i]), int32(ls[i]), int32(rs[i])
		}
		for i := nd; i < maxDims; i++ {
			b[1+i] = 1
		}
		t := 1 + 3*maxDims
		b[t], b[t+1], b[t+2], b[t+3] = int32(p.LhsLen), int32(p.RhsLen), int32(p.OutLen), int32(p.ReduceLen)
	}
	if p.OutLen == 0 {
		set(1, []int{1}, []int{0}, []int{0})
		return b, nil
	}
	if p.Trivial {
		set(1, []int{max(p.OutLen, 1)}, []int{1}, []int{1})
		b[len(b)-1] = 1
		return b, nil
	}
	if len(p.LhsOff) != p.OutLen || len(p.RhsOff) != p.OutLen {
		return nil, fmt.Errorf("sparse: plan with %d and %d offsets for %d outputs", len(p.LhsOff), len(p.RhsOff), p.OutLen)
	}
	var out, ls, rs []int
	inner := 1 // elements of the output per index of the current dim
	for i := len(p.Out) - 1; i >= 0; i-- {
		d := p.Out[i]
		if d != 1 {
			l, r := 0, 0
			if p.OutLen > 0 {
				l, r = p.LhsOff[inner]-p.LhsOff[0], p.RhsOff[inner]-p.RhsOff[0]
			}
			n := len(out)
			if n > 0 && ls[n-1]*out[n-1] == l && rs[n-1]*out[n-1] == r {
				out[n-1] *= d // contiguous with the dim inside: merge
			} else {
				out, ls, rs = append(out, d), append(ls, l), append(rs, r)
			}
		}
		inner *= d
	}
	if len(out) > maxDims {
		return nil, fmt.Errorf("sparse: broadcast of %d irreducible feature dims (shape %v); at most %d", len(out), p.Out, maxDims)
	}
	if len(out) == 0 {
		out, ls, rs = []int{1}, []int{0}, []int{0}
	}
	// Outermost first, as the kernel takes them.
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
		ls[i], ls[j] = ls[j], ls[i]
		rs[i], rs[j] = rs[j], rs[i]
	}
	if p.OutLen > 0 && (p.LhsOff[0] != 0 || p.RhsOff[0] != 0) {
		return nil, fmt.Errorf("sparse: plan offsets do not start at 0")
	}
	idx := make([]int, len(out))
	for k := range p.OutLen {
		l, r := 0, 0
		for i := range out {
			l += idx[i] * ls[i]
			r += idx[i] * rs[i]
		}
		if l != p.LhsOff[k] || r != p.RhsOff[k] {
			return nil, fmt.Errorf("sparse: plan offsets of element %d are not strided (shape %v)", k, p.Out)
		}
		for i := len(out) - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < out[i] {
				break
			}
			idx[i] = 0
		}
	}
	set(len(out), out, ls, rs)
	return b, nil
}

// launch runs kernel base+suffix of T over n work items, one per thread.
func launch[T num.Float](c *cuda.Context, base string, n int64, args ...any) error {
	if n == 0 {
		return nil
	}
	return c.Launch(base+suffix[T](), c.Grid(n, cuda.Threads), cuda.Dim3{X: cuda.Threads, Y: 1, Z: 1}, args...)
}
