package cpu

import "testing"

// TestFlags checks that the flags are consistent: FMA is only reported
// together with AVX2, which the kernels that use it also require.
func TestFlags(t *testing.T) {
	t.Logf("AVX2 %v, FMA %v", X86HasAVX2, X86HasFMA)
	if X86HasFMA && !X86HasAVX2 {
		t.Error("FMA reported without AVX2")
	}
}
