//go:build !amd64 || purego

package edgesoftmax

// Without the AVX2 kernels (other architectures, or the purego build tag)
// every path runs in pure Go.

// useAVX2 is false: there are no vector kernels in this build.
var useAVX2 = false

// forwardGroupF32 is never called in this build.
func forwardGroupF32(out, score *float32, eids *int32, n, avail, w, dist int) {
	panic("edgesoftmax: no AVX2 kernels in this build")
}

// backwardGroupF32 is never called in this build.
func backwardGroupF32(ds, y, dy *float32, eids *int32, n, avail, w, dist int) {
	panic("edgesoftmax: no AVX2 kernels in this build")
}
