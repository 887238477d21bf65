//go:build !amd64 || purego

package link

// Without the AVX2/FMA kernel (other architectures, or the purego build
// tag) every dot product runs in Go.

// useFMA is false: there is no vector kernel in this build.
var useFMA = false

// dotRowsF32 is never called in this build.
func dotRowsF32(out, h *float32, dim int, left, right *int32, n, dist int) {
	panic("link: no vector kernel in this build")
}
