//go:build !amd64 || purego

package cpu

// X86HasAVX2 is false: this build has no assembly kernels.
var X86HasAVX2 = false

// X86HasFMA is false: this build has no assembly kernels.
var X86HasFMA = false
