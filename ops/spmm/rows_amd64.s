//go:build amd64 && !purego

#include "textflag.h"

// AVX2 row kernels for float32. Each adds to one output row segment o of
// width bytes (a multiple of 32) the rows idx[0..n) of x, which start
// xStride bytes apart, one after another in order of j, so the result has
// the same bits as the pure-Go loops. While adding row j they
// prefetch row idx[j+dist], as long as j+dist < avail: the caller passes
// idx starting at this output row's edges and extending over the rows that
// follow, so prefetching runs ahead across row boundaries.
//
// Multiplications and additions are separate instructions (no FMA), as the
// Go code on amd64 computes them.

// SCALED256 prefetches, when edge CX+BX is below R8, its weight row (at
// e + eids[CX+BX]*eStride) and its 256-byte source row, and jumps to next
// otherwise: the lookahead of the 64-float loops of addScaledRowsF32 (eids
// in R10, idx in R12, x in SI, xStride in R9), using AX and R11.
#define SCALED256(next) \
	LEAQ       (CX)(BX*1), AX \
	CMPQ       AX, R8 \
	JGE        next \
	MOVLQSX    (R10)(AX*4), R11 \
	IMULQ      eStride+80(FP), R11 \
	ADDQ       e+64(FP), R11 \
	PREFETCHT0 (R11) \
	MOVL       (R12)(AX*4), AX \
	IMULQ      R9, AX \
	ADDQ       SI, AX \
	PREFETCHT0 (AX) \
	PREFETCHT0 64(AX) \
	PREFETCHT0 128(AX) \
	PREFETCHT0 192(AX) \
	PREFETCHT0 255(AX)

// SCALEDROW sets R11 to the weight row and AX to the source row of edge
// CX, as SCALED256 reaches those of edge CX+BX.
#define SCALEDROW \
	MOVLQSX (R10)(CX*4), R11 \
	IMULQ   eStride+80(FP), R11 \
	ADDQ    e+64(FP), R11 \
	MOVL    (R12)(CX*4), AX \
	IMULQ   R9, AX \
	ADDQ    SI, AX

// func addRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int)
TEXT ·addRowsF32(SB), NOSPLIT, $0-64
	MOVQ o+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ idx+16(FP), R12
	MOVQ n+24(FP), DX
	MOVQ avail+32(FP), R8
	MOVQ xStride+40(FP), R9
	MOVQ width+48(FP), R10
	MOVQ dist+56(FP), BX
	XORQ CX, CX
	CMPQ R10, $256
	JEQ  w256
	CMPQ R10, $64
	JEQ  w64

	// Any width: accumulate in o.
	TESTQ   DX, DX
	JLE     mdone
mloop:
	LEAQ (CX)(BX*1), AX
	CMPQ AX, R8
	JGE  mnopf
	MOVL (R12)(AX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	XORQ R13, R13
mpf:
	PREFETCHT0 (AX)(R13*1)
	ADDQ $64, R13
	CMPQ R13, R10
	JLT  mpf
	PREFETCHT0 -1(AX)(R10*1)
mnopf:
	MOVL (R12)(CX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	XORQ R13, R13
madd:
	VMOVUPS (DI)(R13*1), Y0
	VADDPS  (AX)(R13*1), Y0, Y0
	VMOVUPS Y0, (DI)(R13*1)
	ADDQ    $32, R13
	CMPQ    R13, R10
	JLT     madd
	INCQ CX
	CMPQ CX, DX
	JLT  mloop
mdone:
	VZEROUPPER
	RET

	// 64 floats: eight accumulators.
w256:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	TESTQ DX, DX
	JLE   s256
l256:
	LEAQ (CX)(BX*1), AX
	CMPQ AX, R8
	JGE  n256
	MOVL (R12)(AX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)
	PREFETCHT0 255(AX)
n256:
	MOVL (R12)(CX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	VADDPS (AX), Y0, Y0
	VADDPS 32(AX), Y1, Y1
	VADDPS 64(AX), Y2, Y2
	VADDPS 96(AX), Y3, Y3
	VADDPS 128(AX), Y4, Y4
	VADDPS 160(AX), Y5, Y5
	VADDPS 192(AX), Y6, Y6
	VADDPS 224(AX), Y7, Y7
	INCQ CX
	CMPQ CX, DX
	JLT  l256
s256:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VZEROUPPER
	RET

	// 16 floats: two accumulators.
w64:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	TESTQ DX, DX
	JLE   s64
l64:
	LEAQ (CX)(BX*1), AX
	CMPQ AX, R8
	JGE  n64
	MOVL (R12)(AX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	PREFETCHT0 (AX)
	PREFETCHT0 63(AX)
n64:
	MOVL (R12)(CX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	VADDPS (AX), Y0, Y0
	VADDPS 32(AX), Y1, Y1
	INCQ CX
	CMPQ CX, DX
	JLT  l64
s64:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET

// func addScaledRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int, e *float32, eids *int32, eStride int, woff *int64)
//
// Row j is scaled before it is added: the 8 floats of chunk c (bytes 32c to
// 32c+31 of the row) by the float at e + eids[j]*eStride + woff[c] (bytes).
// When width is 256, woff may be nil: every chunk then takes the edge's
// first weight (one weight per edge). The weights of edge j+dist are
// prefetched with its source row.
TEXT ·addScaledRowsF32(SB), NOSPLIT, $0-96
	MOVQ o+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ idx+16(FP), R12
	MOVQ avail+32(FP), R8
	MOVQ xStride+40(FP), R9
	MOVQ width+48(FP), R10
	MOVQ woff+88(FP), DX
	XORQ CX, CX
	CMPQ R10, $256
	JEQ  sw256

	// Any width: accumulate in o.
	CMPQ CX, n+24(FP)
	JGE  sdone
sloop:
	MOVQ dist+56(FP), AX
	ADDQ CX, AX
	CMPQ AX, R8
	JGE  snopf
	MOVQ eids+72(FP), BX
	MOVLQSX (BX)(AX*4), BX
	IMULQ eStride+80(FP), BX
	ADDQ e+64(FP), BX
	PREFETCHT0 (BX)
	MOVL (R12)(AX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	XORQ R13, R13
spf:
	PREFETCHT0 (AX)(R13*1)
	ADDQ $64, R13
	CMPQ R13, R10
	JLT  spf
	PREFETCHT0 -1(AX)(R10*1)
snopf:
	MOVQ eids+72(FP), BX
	MOVLQSX (BX)(CX*4), R11
	IMULQ eStride+80(FP), R11
	ADDQ e+64(FP), R11
	MOVL (R12)(CX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	XORQ R13, R13
sadd:
	MOVQ R13, BX
	SHRQ $2, BX
	MOVQ (DX)(BX*1), BX
	VBROADCASTSS (R11)(BX*1), Y1
	VMULPS  (AX)(R13*1), Y1, Y1
	VMOVUPS (DI)(R13*1), Y0
	VADDPS  Y1, Y0, Y0
	VMOVUPS Y0, (DI)(R13*1)
	ADDQ    $32, R13
	CMPQ    R13, R10
	JLT     sadd
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  sloop
sdone:
	VZEROUPPER
	RET

	// 64 floats: eight accumulators.
sw256:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	MOVQ eids+72(FP), R10
	MOVQ dist+56(FP), BX
	CMPQ CX, n+24(FP)
	JGE  ss256
	TESTQ DX, DX
	JZ    sc256
	// Heads of 8 columns with their weights side by side (woff[c] = 4c,
	// the GAT case): broadcast from fixed offsets, without reading woff.
	CMPQ (DX), $0
	JNE  sl256
	CMPQ 8(DX), $4
	JNE  sl256
	CMPQ 16(DX), $8
	JNE  sl256
	CMPQ 24(DX), $12
	JNE  sl256
	CMPQ 32(DX), $16
	JNE  sl256
	CMPQ 40(DX), $20
	JNE  sl256
	CMPQ 48(DX), $24
	JNE  sl256
	CMPQ 56(DX), $28
	JEQ  sh256
sl256:
	SCALED256(sn256)
sn256:
	SCALEDROW
	MOVQ (DX), R13
	VBROADCASTSS (R11)(R13*1), Y8
	VMULPS (AX), Y8, Y8
	VADDPS Y8, Y0, Y0
	MOVQ 8(DX), R13
	VBROADCASTSS (R11)(R13*1), Y9
	VMULPS 32(AX), Y9, Y9
	VADDPS Y9, Y1, Y1
	MOVQ 16(DX), R13
	VBROADCASTSS (R11)(R13*1), Y10
	VMULPS 64(AX), Y10, Y10
	VADDPS Y10, Y2, Y2
	MOVQ 24(DX), R13
	VBROADCASTSS (R11)(R13*1), Y11
	VMULPS 96(AX), Y11, Y11
	VADDPS Y11, Y3, Y3
	MOVQ 32(DX), R13
	VBROADCASTSS (R11)(R13*1), Y8
	VMULPS 128(AX), Y8, Y8
	VADDPS Y8, Y4, Y4
	MOVQ 40(DX), R13
	VBROADCASTSS (R11)(R13*1), Y9
	VMULPS 160(AX), Y9, Y9
	VADDPS Y9, Y5, Y5
	MOVQ 48(DX), R13
	VBROADCASTSS (R11)(R13*1), Y10
	VMULPS 192(AX), Y10, Y10
	VADDPS Y10, Y6, Y6
	MOVQ 56(DX), R13
	VBROADCASTSS (R11)(R13*1), Y11
	VMULPS 224(AX), Y11, Y11
	VADDPS Y11, Y7, Y7
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  sl256
	JMP  ss256

	// Weights of chunk c at byte 4c of the edge's row.
sh256:
	SCALED256(shn256)
shn256:
	SCALEDROW
	VBROADCASTSS (R11), Y8
	VMULPS (AX), Y8, Y8
	VADDPS Y8, Y0, Y0
	VBROADCASTSS 4(R11), Y9
	VMULPS 32(AX), Y9, Y9
	VADDPS Y9, Y1, Y1
	VBROADCASTSS 8(R11), Y10
	VMULPS 64(AX), Y10, Y10
	VADDPS Y10, Y2, Y2
	VBROADCASTSS 12(R11), Y11
	VMULPS 96(AX), Y11, Y11
	VADDPS Y11, Y3, Y3
	VBROADCASTSS 16(R11), Y8
	VMULPS 128(AX), Y8, Y8
	VADDPS Y8, Y4, Y4
	VBROADCASTSS 20(R11), Y9
	VMULPS 160(AX), Y9, Y9
	VADDPS Y9, Y5, Y5
	VBROADCASTSS 24(R11), Y10
	VMULPS 192(AX), Y10, Y10
	VADDPS Y10, Y6, Y6
	VBROADCASTSS 28(R11), Y11
	VMULPS 224(AX), Y11, Y11
	VADDPS Y11, Y7, Y7
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  sh256
	JMP  ss256

	// One weight per edge: broadcast it once.
sc256:
	SCALED256(scn256)
scn256:
	SCALEDROW
	VBROADCASTSS (R11), Y8
	VMULPS (AX), Y8, Y9
	VADDPS Y9, Y0, Y0
	VMULPS 32(AX), Y8, Y10
	VADDPS Y10, Y1, Y1
	VMULPS 64(AX), Y8, Y11
	VADDPS Y11, Y2, Y2
	VMULPS 96(AX), Y8, Y12
	VADDPS Y12, Y3, Y3
	VMULPS 128(AX), Y8, Y9
	VADDPS Y9, Y4, Y4
	VMULPS 160(AX), Y8, Y10
	VADDPS Y10, Y5, Y5
	VMULPS 192(AX), Y8, Y11
	VADDPS Y11, Y6, Y6
	VMULPS 224(AX), Y8, Y12
	VADDPS Y12, Y7, Y7
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  sc256
ss256:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VZEROUPPER
	RET
