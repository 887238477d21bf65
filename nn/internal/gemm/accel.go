package gemm

import "github.com/gnngo/gnn/internal/num"

// padded returns the width in which the AVX2 kernels compute products m
// wide: m rounded up to a multiple of 8, or 0 when they do not apply
// (float64, no AVX2, m or k zero).
func padded[T num.Float](m, k int) int {
	var z T
	if _, ok := any(z).(float32); !ok || !useAVX2 || m == 0 || k == 0 {
		return 0
	}
	return (m + 7) &^ 7
}

// mulAccel computes rows [lo, hi) of Mul with the AVX2 kernel when it
// applies and reports whether it did. When m is not a multiple of 8, b is
// padded with zero columns and each row computed into scratch, of which
// the first m columns are kept: columns are computed independently, so
// the padding changes nothing else.
func mulAccel[T num.Float](c, a, b []T, k, m, lo, hi int) bool {
	w := padded[T](m, k)
	if w == 0 {
		return false
	}
	c32, a32, b32 := any(c).([]float32), any(a).([]float32), any(b).([]float32)
	if w == m {
		for i := lo; i < hi; i++ {
			rowF32(&c32[i*m], &a32[i*k], &b32[0], k, m)
		}
		return true
	}
	bp := make([]float32, k*w)
	for j := range k {
		copy(bp[j*w:j*w+m], b32[j*m:(j+1)*m])
	}
	row := make([]float32, w)
	for i := lo; i < hi; i++ {
		rowF32(&row[0], &a32[i*k], &bp[0], k, w)
		copy(c32[i*m:(i+1)*m], row[:m])
	}
	return true
}

// outerAccel is outer with the AVX2 kernel, for p rows as wide as b (a
// multiple of 8), when it applies.
func outerAccel[T num.Float](p, a, b []T) bool {
	if padded[T](len(b), len(a)) != len(b) {
		return false
	}
	outerF32(&any(p).([]float32)[0], &any(a).([]float32)[0], &any(b).([]float32)[0], len(a), len(b))
	return true
}
