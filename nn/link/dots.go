package link

import (
	"github.com/gnngo/gnn/internal/num"
)

// prefetchDist is how many pairs ahead the kernel prefetches the right
// row (0: not at all).
var prefetchDist = 16

// dots sets out[q] to the dot product of rows left[q] and right[q] of h
// (rows of dim), for every q: with the AVX2/FMA kernel for float32 rows a
// multiple of eight wide, in Go (dot8) otherwise. Either way each result
// depends only on its two rows, so RankDot and ScoreDot, which both score
// through dots, agree bit for bit.
func dots[T num.Float](out, h []T, dim int, left, right []int32) {
	if len(left) == 0 {
		return
	}
	right = right[:len(left)]
	out = out[:len(left)]
	if useFMA && dim%8 == 0 {
		if x, ok := any(h).([]float32); ok {
			o := any(out).([]float32)
			dotRowsF32(&o[0], &x[0], dim, &left[0], &right[0], len(left), prefetchDist)
			return
		}
	}
	for q, u := range left {
		v := int(right[q])
		out[q] = dot8(h[int(u)*dim:int(u+1)*dim], h[v*dim:(v+1)*dim])
	}
}
