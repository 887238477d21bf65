//go:build !amd64 || purego

package spmm

// Without the AVX2 kernels (other architectures, or the purego build tag)
// every path runs in pure Go.

var useAVX2 = false

func addRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int) {
	panic("spmm: no AVX2 kernels in this build")
}

func addScaledRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int, e *float32, eids *int32, eStride int, woff *int64) {
	panic("spmm: no AVX2 kernels in this build")
}

func foldRowsF32(o *float32, a *int64, x *float32, idx *int32, ids *int32, n, avail, xStride, width, dist, isMin int) {
	panic("spmm: no AVX2 kernels in this build")
}

func addPermScaledRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int, e *float32, eids *int32, eStride int, d *permChunks) {
	panic("spmm: no AVX2 kernels in this build")
}
