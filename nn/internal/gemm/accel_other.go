//go:build !amd64 || purego

package gemm

// Without the AVX2 kernels (other architectures, or the purego build tag)
// every product runs in Go: useAVX2 is false and these are never called.

var useAVX2 = false

func mul16F32(c, a, b *float32, n, k, lda, ldb, ldc, acc int) {
	panic("gemm: no AVX2 kernels in this build")
}

func mul8F32(c, a, b *float32, n, k, lda, ldb, ldc, acc int) {
	panic("gemm: no AVX2 kernels in this build")
}

func tmulF32(p, a, b *float32, r, f, h, lda, ldb, ldp int, mask *int32, next int) {
	panic("gemm: no AVX2 kernels in this build")
}

func outerRowsF32(p, a, b *float32, n, k, lda, w int) { panic("gemm: no AVX2 kernels in this build") }

func outer16F32(p, a, b *float32, n, k, lda, w int) { panic("gemm: no AVX2 kernels in this build") }

func mulRowsF32(c, a, b *float32, n, k, m int) { panic("gemm: no AVX2 kernels in this build") }

func stripF32(c, a, b *float32, n, k, lda, ldc int, blocks *int32) {
	panic("gemm: no AVX2 kernels in this build")
}
