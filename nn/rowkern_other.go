//go:build !amd64 || purego

package nn

// Without the AVX2 kernels (other architectures, or the purego build tag)
// the row loops of rowkern.go run in pure Go.

var useRowAVX2 = false

func colSumF64F32(p *float64, x *float32, rows, f int) { panic("nn: no AVX2 kernels in this build") }

func colSqDevF64F32(p *float64, x *float32, mean *float64, rows, f int) {
	panic("nn: no AVX2 kernels in this build")
}

func dySumsF64F32(ps, px *float64, x, dy *float32, rows, f int) {
	panic("nn: no AVX2 kernels in this build")
}

func colSumF32(p, x *float32, rows, f int) { panic("nn: no AVX2 kernels in this build") }

func shiftRowsF32(y, x, m, a, b *float32, rows, f, relu int) {
	panic("nn: no AVX2 kernels in this build")
}

func affineRowsF32(y, u, v, m, a, c, b *float32, rows, f int) {
	panic("nn: no AVX2 kernels in this build")
}

func addRowsBiasF32(y, b *float32, rows, f int) { panic("nn: no AVX2 kernels in this build") }

func reluGradF32(y, out, dy *float32, n int) { panic("nn: no AVX2 kernels in this build") }
