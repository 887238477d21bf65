//go:build !amd64 || purego

package vm

var useAddAVX2 = false

func addF32(c, a, b *float32, n int) { panic("vm: no AVX2 kernels in this build") }
