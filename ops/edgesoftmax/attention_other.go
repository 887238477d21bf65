//go:build !amd64 || purego

package edgesoftmax

// Without the AVX2 kernels (other architectures, or the purego build tag)
// attention runs in pure Go: useAVX2 is false and these are never called.

func attnFwd8(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32) {
	panic("edgesoftmax: no AVX2 kernels in this build")
}

func attnBwd8(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32) {
	panic("edgesoftmax: no AVX2 kernels in this build")
}

func expShift1(x *float32, n int, m float32) float64 {
	panic("edgesoftmax: no AVX2 kernels in this build")
}

func attnFwd2(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32) {
	panic("edgesoftmax: no AVX2 kernels in this build")
}

func attnFwd4(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32) {
	panic("edgesoftmax: no AVX2 kernels in this build")
}

func attnBwd2(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32) {
	panic("edgesoftmax: no AVX2 kernels in this build")
}

func attnBwd4(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32) {
	panic("edgesoftmax: no AVX2 kernels in this build")
}
