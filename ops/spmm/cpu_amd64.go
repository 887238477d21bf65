//go:build amd64 && !purego

package spmm

func cpuid(leaf, sub uint32) (a, b, c, d uint32)
func xgetbv() (lo, hi uint32)

// hasAVX2 reports whether the processor and the operating system support
// AVX2: CPUID says AVX, OSXSAVE and AVX2, and XCR0 enables the SSE and AVX
// register state.
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
