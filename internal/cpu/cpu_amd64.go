//go:build amd64 && !purego

package cpu

// X86HasAVX2 reports whether the processor and the operating system support
// AVX2: CPUID says AVX, OSXSAVE and AVX2, and XCR0 enables the SSE and AVX
// register state.
var X86HasAVX2 = hasAVX2()

// X86HasFMA reports whether, in addition, the processor has the FMA3
// fused multiply-add instructions.
var X86HasFMA = X86HasAVX2 && hasFMA()

// cpuid executes CPUID with EAX = leaf and ECX = sub (cpu_amd64.s).
func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// xgetbv returns the extended control register XCR0 (cpu_amd64.s).
func xgetbv() (lo, hi uint32)

// hasAVX2 reports whether AVX2 is usable; see X86HasAVX2.
func hasAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, c1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if c1&osxsave == 0 || c1&avx == 0 {
		return false
	}
	if xcr0, _ := xgetbv(); xcr0&6 != 6 {
		return false
	}
	_, b7, _, _ := cpuid(7, 0)
	return b7&(1<<5) != 0
}

// hasFMA reports whether CPUID leaf 1 lists FMA3.
func hasFMA() bool {
	_, _, c1, _ := cpuid(1, 0)
	return c1&(1<<12) != 0
}
