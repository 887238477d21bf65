//go:build !amd64 || purego

package sddmm

// Without the AVX2 kernel (other architectures, or the purego build tag)
// every dot product and elementwise operation runs in pure Go.

// useAVX2 is false: there is no vector kernel in this build.
var useAVX2 = false

// rows8F32 is never called in this build.
func rows8F32(mode int, o, x, y *float32, la, ra *int32, e0, n, avail, rowBytes, dist int) {
	panic("sddmm: no AVX2 kernel in this build")
}
