//go:build !amd64 || purego

package nn

// useMaskAVX2 is false: there is no vector kernel for applyMask here.
var useMaskAVX2 = false

// maskF32 is never called where useMaskAVX2 is false.
func maskF32(y, x *float32, groups int, key, ctr uint64, threshold uint64, scale float32, relu int) {
	panic("nn: maskF32 without AVX2")
}
