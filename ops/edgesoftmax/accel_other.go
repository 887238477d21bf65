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

// The streaming kernels are never called in this build.

func maxScatterF32(m, x *float32, keys *int32, n, w int) { panic(noKernels) }

func expScatterF32(out, x, m *float32, s *float64, keys *int32, n, w, dist int) {
	panic(noKernels)
}

func scaleGatherF32(out, r *float32, keys *int32, n, w int) { panic(noKernels) }

func dotScatterF32(s *float64, y, dy *float32, keys *int32, n, w int) { panic(noKernels) }

func gradGatherF32(ds, y, dy *float32, s *float64, keys *int32, n, w int) {
	panic(noKernels)
}

func attnGradGather8(ds, y, dy, el, er *float32, s *float64, src, dst *int32, n int, slope float32) {
	panic(noKernels)
}

const noKernels = "edgesoftmax: no AVX2 kernels in this build"

func forwardGroup2F32(out, score *float32, eids *int32, n int) { panic(noKernels) }

func forwardGroup4F32(out, score *float32, eids *int32, n int) { panic(noKernels) }

func backwardGroup2F32(ds, y, dy *float32, eids *int32, n int) { panic(noKernels) }

func backwardGroup4F32(ds, y, dy *float32, eids *int32, n int) { panic(noKernels) }

func maxScatterNF32(m, x *float32, keys *int32, n, w int) { panic(noKernels) }

func expScatterNF32(out, x, m *float32, s *float64, keys *int32, n, w, dist int) {
	panic(noKernels)
}

func scaleGatherNF32(out, r *float32, keys *int32, n, w int) { panic(noKernels) }

func dotScatterNF32(s *float64, y, dy *float32, keys *int32, n, w int) { panic(noKernels) }

func gradGatherNF32(ds, y, dy *float32, s *float64, keys *int32, n, w int) { panic(noKernels) }

func attnGradGatherNF32(ds, y, dy, el, er *float32, s *float64, src, dst *int32, n, w int, slope float32) {
	panic(noKernels)
}
