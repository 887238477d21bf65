package ops_test

import (
	"math"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/ops"
)

// The references below are deliberately naive: per-edge loops over the COO
// lists, with broadcasting done by unravelling multi-indices, independent of
// the kernels' offset tables.

// bshape returns the NumPy broadcast of two feature shapes.
func bshape(a, b []int) []int {
	n := max(len(a), len(b))
	out := make([]int, n)
	for i := range n {
		x, y := dimFromEnd(a, n-1-i), dimFromEnd(b, n-1-i)
		out[i] = max(x, y)
	}
	return out
}

func dimFromEnd(s []int, k int) int {
	if k < len(s) {
		return s[len(s)-1-k]
	}
	return 1
}

// elem returns the flat index in an operand of shape s of the output
// multi-index idx (broadcast rules: size-1 dimensions repeat).
func elem(s, idx []int) int {
	off, stride := 0, 1
	for k := range len(s) {
		d := s[len(s)-1-k]
		i := idx[len(idx)-1-k]
		if d == 1 {
			i = 0
		}
		off += i * stride
		stride *= d
	}
	return off
}

func unravel(k int, shape []int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = k % shape[i]
		k /= shape[i]
	}
	return idx
}

func binop(op ops.Binary, a, b float64) float64 {
	switch op {
	case ops.Add:
		return a + b
	case ops.Sub:
		return a - b
	case ops.Mul, ops.Dot:
		return a * b
	case ops.Div:
		return a / b
	case ops.CopyRHS:
		return b
	}
	return a
}

// message returns the message row of op on rows a (shape as) and b (shape bs).
func message(op ops.Binary, a []float64, as []int, b []float64, bs []int) ([]float64, []int) {
	switch op {
	case ops.CopyLHS:
		return a, as
	case ops.CopyRHS:
		return b, bs
	}
	if op == ops.Dot {
		la, lb := as[:len(as)-1], bs[:len(bs)-1]
		d := as[len(as)-1]
		out := bshape(la, lb)
		res := make([]float64, size(out))
		for k := range res {
			idx := unravel(k, out)
			for j := range d {
				ia := append(append([]int{}, idx[len(idx)-len(la):]...), j)
				ib := append(append([]int{}, idx[len(idx)-len(lb):]...), j)
				res[k] += a[elem(as, ia)] * b[elem(bs, ib)]
			}
		}
		return res, out
	}
	out := bshape(as, bs)
	res := make([]float64, size(out))
	for k := range res {
		idx := unravel(k, out)
		res[k] = binop(op, a[elem(as, idx[len(idx)-len(as):])], b[elem(bs, idx[len(idx)-len(bs):])])
	}
	return res, out
}

func row(x []float64, i int, shape []int) []float64 {
	n := size(shape)
	if x == nil {
		return nil
	}
	return x[i*n : (i+1)*n]
}

// refSpMM reduces messages u[src] op e[eid] onto destinations.
func refSpMM(g *graph.Graph, op ops.Binary, red ops.Reducer, u []float64, us []int, e []float64, es []int) []float64 {
	src, dst := g.COO()
	var outShape []int
	switch op {
	case ops.CopyLHS:
		outShape = us
	case ops.CopyRHS:
		outShape = es
	default:
		outShape = bshape(us, es)
	}
	w := size(outShape)
	out := make([]float64, g.NumDst()*w)
	count := make([]int, g.NumDst())
	for v := range g.NumDst() {
		for k := range w {
			switch red {
			case ops.Max:
				out[v*w+k] = math.Inf(-1)
			case ops.Min:
				out[v*w+k] = math.Inf(1)
			}
		}
	}
	for id := range src {
		m, _ := message(op, row(u, int(src[id]), us), us, row(e, id, es), es)
		v := int(dst[id])
		count[v]++
		for k, x := range m {
			o := &out[v*w+k]
			switch red {
			case ops.Sum, ops.Mean:
				*o += x
			case ops.Max:
				*o = math.Max(*o, x)
			case ops.Min:
				*o = math.Min(*o, x)
			}
		}
	}
	for v := range g.NumDst() {
		for k := range w {
			o := &out[v*w+k]
			switch {
			case count[v] == 0:
				*o = 0
			case red == ops.Mean:
				*o /= float64(count[v])
			}
		}
	}
	return out
}

// refSDDMM computes lhs[at] op rhs[bt] per edge.
func refSDDMM(g *graph.Graph, op ops.Binary, a []float64, at ops.Target, as []int, b []float64, bt ops.Target, bs []int) []float64 {
	src, dst := g.COO()
	pick := func(t ops.Target, id int) int {
		switch t {
		case ops.U:
			return int(src[id])
		case ops.V:
			return int(dst[id])
		}
		return id
	}
	var out []float64
	for id := range src {
		var brow []float64
		if b != nil {
			brow = row(b, pick(bt, id), bs)
		}
		m, _ := message(op, row(a, pick(at, id), as), as, brow, bs)
		out = append(out, m...)
	}
	return out
}

// refEdgeSoftmax normalises each column of scores over edges sharing an
// endpoint, by direct exponentiation in float64.
func refEdgeSoftmax(g *graph.Graph, norm ops.Norm, s []float64, width int) []float64 {
	src, dst := g.COO()
	key := dst
	if norm == ops.BySrc {
		key = src
	}
	total := map[[2]int]float64{}
	mx := map[[2]int]float64{}
	for id, k := range key {
		for c := range width {
			kk := [2]int{int(k), c}
			if v, ok := mx[kk]; !ok || s[id*width+c] > v {
				mx[kk] = s[id*width+c]
			}
		}
	}
	for id, k := range key {
		for c := range width {
			kk := [2]int{int(k), c}
			total[kk] += math.Exp(s[id*width+c] - mx[kk])
		}
	}
	out := make([]float64, len(s))
	for id, k := range key {
		for c := range width {
			kk := [2]int{int(k), c}
			out[id*width+c] = math.Exp(s[id*width+c]-mx[kk]) / total[kk]
		}
	}
	return out
}
