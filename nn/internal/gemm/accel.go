package gemm

import "github.com/gnngo/gnn/internal/num"

// mulAccel computes rows [lo, hi) of Mul with the AVX2 kernel when it
// applies (float32, m a multiple of 8) and reports whether it did.
func mulAccel[T num.Float](c, a, b []T, k, m, lo, hi int) bool {
	c32, ok := any(c).([]float32)
	if !useAVX2 || !ok || m%8 != 0 || m == 0 || k == 0 {
		return false
	}
	a32, b32 := any(a).([]float32), any(b).([]float32)
	for i := lo; i < hi; i++ {
		rowF32(&c32[i*m], &a32[i*k], &b32[0], k, m)
	}
	return true
}

// outerAccel is outer with the AVX2 kernel when it applies.
func outerAccel[T num.Float](p, a, b []T, m int) bool {
	p32, ok := any(p).([]float32)
	if !useAVX2 || !ok || m%8 != 0 || m == 0 || len(a) == 0 {
		return false
	}
	outerF32(&p32[0], &any(a).([]float32)[0], &any(b).([]float32)[0], len(a), m)
	return true
}
