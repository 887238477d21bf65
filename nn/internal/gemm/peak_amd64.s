//go:build amd64 && !purego

#include "textflag.h"

// func fmaPeakF32(n int)
//
// n iterations of twelve independent 8-wide fused multiply-adds: 192
// floating-point operations an iteration, with more independent chains
// than the FMA units' latency times their count, so that the loop runs at
// the core's peak rate of fused multiply-adds.
TEXT ·fmaPeakF32(SB), NOSPLIT, $0-8
	MOVQ   n+0(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	TESTQ  CX, CX
	JLE    done

loop:
	VFMADD231PS Y12, Y13, Y0
	VFMADD231PS Y12, Y13, Y1
	VFMADD231PS Y12, Y13, Y2
	VFMADD231PS Y12, Y13, Y3
	VFMADD231PS Y12, Y13, Y4
	VFMADD231PS Y12, Y13, Y5
	VFMADD231PS Y12, Y13, Y6
	VFMADD231PS Y12, Y13, Y7
	VFMADD231PS Y12, Y13, Y8
	VFMADD231PS Y12, Y13, Y9
	VFMADD231PS Y12, Y13, Y10
	VFMADD231PS Y12, Y13, Y11
	DECQ        CX
	JNZ         loop

done:
	VZEROUPPER
	RET

// func readPeakF32(p *float32, n int)
//
// Reads n floats from p (n a multiple of 64), eight 32-byte loads an
// iteration into independent adds: a loop bound by the rate at which the
// core can read memory, not by its arithmetic.
TEXT ·readPeakF32(SB), NOSPLIT, $0-16
	MOVQ   p+0(FP), SI
	MOVQ   n+8(FP), CX
	SHRQ   $6, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	TESTQ  CX, CX
	JLE    rdone

rloop:
	VADDPS (SI), Y0, Y0
	VADDPS 32(SI), Y1, Y1
	VADDPS 64(SI), Y2, Y2
	VADDPS 96(SI), Y3, Y3
	VADDPS 128(SI), Y0, Y0
	VADDPS 160(SI), Y1, Y1
	VADDPS 192(SI), Y2, Y2
	VADDPS 224(SI), Y3, Y3
	ADDQ   $256, SI
	DECQ   CX
	JNZ    rloop

rdone:
	VZEROUPPER
	RET

// func writePeakF32(p *float32, n int)
//
// Writes zeros over n floats at p (n a multiple of 64, p 32-byte aligned)
// with non-temporal stores, eight an iteration: the rate at which the core
// can stream an output to memory.
TEXT ·writePeakF32(SB), NOSPLIT, $0-16
	MOVQ   p+0(FP), DI
	MOVQ   n+8(FP), CX
	SHRQ   $6, CX
	VXORPS Y0, Y0, Y0
	TESTQ  CX, CX
	JLE    wdone

wloop:
	VMOVNTPS Y0, (DI)
	VMOVNTPS Y0, 32(DI)
	VMOVNTPS Y0, 64(DI)
	VMOVNTPS Y0, 96(DI)
	VMOVNTPS Y0, 128(DI)
	VMOVNTPS Y0, 160(DI)
	VMOVNTPS Y0, 192(DI)
	VMOVNTPS Y0, 224(DI)
	ADDQ     $256, DI
	DECQ     CX
	JNZ      wloop

wdone:
	SFENCE
	VZEROUPPER
	RET
