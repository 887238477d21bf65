//go:build !amd64 || purego

package sddmm

// gatv2FwdF32 is never called in this build (useAVX2 is false).
func gatv2FwdF32(a *gatv2Args) { panic("sddmm: no AVX2 kernel in this build") }

// gatv2BwdF32 is never called in this build.
func gatv2BwdF32(a *gatv2Args) { panic("sddmm: no AVX2 kernel in this build") }

// gatv2MaskF32 is never called in this build.
func gatv2MaskF32(a *gatv2Args) { panic("sddmm: no AVX2 kernel in this build") }

// gatv2MaskRowsF32 is never called in this build.
func gatv2MaskRowsF32(a *gatv2Args) { panic("sddmm: no AVX2 kernel in this build") }
