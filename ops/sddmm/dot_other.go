//go:build !amd64 || purego

package sddmm

// dotPairsF32 is never called in this build (useAVX2 is false).
func dotPairsF32(o, x, y *float32, la, ra *int, n, h, d, dist int) {
	panic("sddmm: no AVX2 kernel in this build")
}
