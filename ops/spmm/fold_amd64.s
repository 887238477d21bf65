//go:build amd64 && !purego

#include "textflag.h"

// BLEND_ARG stores the edge ID in Y5 into the 8 int64 of a (R11) that
// belong to the chunk at byte offset R13 of o, where the mask Y2 is set.
#define BLEND_ARG \
	VPMOVSXDQ X2, Y3; \
	VEXTRACTI128 $1, Y2, X4; \
	VPMOVSXDQ X4, Y4; \
	VMOVDQU (R11)(R13*2), Y6; \
	VBLENDVPD Y3, Y5, Y6, Y6; \
	VMOVDQU Y6, (R11)(R13*2); \
	VMOVDQU 32(R11)(R13*2), Y6; \
	VBLENDVPD Y4, Y5, Y6, Y6; \
	VMOVDQU Y6, 32(R11)(R13*2)

// FOLD_CHUNK folds the 8 floats at byte off of the row AX into the
// accumulator acc, comparing with predicate pred (0x1e: x > acc, 0x11:
// x < acc, ordered and quiet), and where they win stores the edge ID in Y10
// into a (R11, nil for none) at byte 2*off. Its jumps count instructions:
// the first skips the 12 after it, the second the 9 after it.
#define FOLD_CHUNK(off, acc, pred) \
	VMOVUPS off(AX), Y8; \
	VCMPPS $pred, acc, Y8, Y9; \
	VMOVMSKPS Y9, BX; \
	TESTL BX, BX; \
	JZ 13(PC); \
	VBLENDVPS Y9, Y8, acc, acc; \
	TESTQ R11, R11; \
	JZ 10(PC); \
	VPMOVSXDQ X9, Y11; \
	VEXTRACTI128 $1, Y9, X12; \
	VPMOVSXDQ X12, Y12; \
	VMOVDQU (2*off)(R11), Y13; \
	VBLENDVPD Y11, Y10, Y13, Y13; \
	VMOVDQU Y13, (2*off)(R11); \
	VMOVDQU (2*off+32)(R11), Y13; \
	VBLENDVPD Y12, Y10, Y13, Y13; \
	VMOVDQU Y13, (2*off+32)(R11)

// PREFETCH_ROW256 prefetches the 256-byte source row of edge CX+dist, if
// it is below avail (R8). It uses AX; its jump skips the 8 instructions
// after it.
#define PREFETCH_ROW256 \
	MOVQ dist+72(FP), AX; \
	ADDQ CX, AX; \
	CMPQ AX, R8; \
	JGE 9(PC); \
	MOVL (R12)(AX*4), AX; \
	IMULQ R9, AX; \
	ADDQ SI, AX; \
	PREFETCHT0 (AX); \
	PREFETCHT0 64(AX); \
	PREFETCHT0 128(AX); \
	PREFETCHT0 192(AX); \
	PREFETCHT0 255(AX)

// func foldRowsF32(o *float32, a *int64, x *float32, idx *int32, ids *int32, n, avail, xStride, width, dist, isMin int)
//
// Folds the rows idx[0..n) of x (rows xStride bytes apart) into the row o of
// width bytes (a multiple of 32) by element-wise maximum, or minimum when
// isMin is not 0, one row after another. Row j replaces element k only when
// strictly greater (smaller), exactly as the Go loops compare, and then a[k]
// (when a is not nil) receives ids[j]. Source rows of idx[j+dist] are
// prefetched while j < avail-dist, as in rows_amd64.s.
TEXT ·foldRowsF32(SB), NOSPLIT, $0-88
	MOVQ o+0(FP), DI
	MOVQ a+8(FP), R11
	MOVQ x+16(FP), SI
	MOVQ idx+24(FP), R12
	MOVQ ids+32(FP), DX
	MOVQ avail+48(FP), R8
	MOVQ xStride+56(FP), R9
	MOVQ width+64(FP), R10
	XORQ CX, CX
	CMPQ CX, n+40(FP)
	JGE  done
	CMPQ R10, $256
	JEQ  w256

	// Any width: o in memory.
edge:
	MOVQ dist+72(FP), AX
	ADDQ CX, AX
	CMPQ AX, R8
	JGE  nopf
	MOVL (R12)(AX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	XORQ R13, R13
pf:
	PREFETCHT0 (AX)(R13*1)
	ADDQ $64, R13
	CMPQ R13, R10
	JLT  pf
	PREFETCHT0 -1(AX)(R10*1)
nopf:
	MOVL (R12)(CX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	VPBROADCASTD (DX)(CX*4), X5
	VPMOVSXDQ    X5, Y5
	XORQ R13, R13
	CMPQ isMin+80(FP), $0
	JNE  minchunk

maxchunk:
	VMOVUPS (AX)(R13*1), Y0
	VMOVUPS (DI)(R13*1), Y1
	VCMPPS  $0x1e, Y1, Y0, Y2 // x > o (ordered, quiet)
	VMOVMSKPS Y2, BX
	TESTL   BX, BX
	JZ      maxnext
	VBLENDVPS Y2, Y0, Y1, Y1
	VMOVUPS Y1, (DI)(R13*1)
	TESTQ   R11, R11
	JZ      maxnext
	BLEND_ARG
maxnext:
	ADDQ $32, R13
	CMPQ R13, R10
	JLT  maxchunk
	JMP  next

minchunk:
	VMOVUPS (AX)(R13*1), Y0
	VMOVUPS (DI)(R13*1), Y1
	VCMPPS  $0x11, Y1, Y0, Y2 // x < o (ordered, quiet)
	VMOVMSKPS Y2, BX
	TESTL   BX, BX
	JZ      minnext
	VBLENDVPS Y2, Y0, Y1, Y1
	VMOVUPS Y1, (DI)(R13*1)
	TESTQ   R11, R11
	JZ      minnext
	BLEND_ARG
minnext:
	ADDQ $32, R13
	CMPQ R13, R10
	JLT  minchunk

next:
	INCQ CX
	CMPQ CX, n+40(FP)
	JLT  edge
done:
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
	CMPQ isMin+80(FP), $0
	JNE  min256
max256:
	PREFETCH_ROW256
	MOVL (R12)(CX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	VPBROADCASTD (DX)(CX*4), X10
	VPMOVSXDQ    X10, Y10
	FOLD_CHUNK(0, Y0, 0x1e)
	FOLD_CHUNK(32, Y1, 0x1e)
	FOLD_CHUNK(64, Y2, 0x1e)
	FOLD_CHUNK(96, Y3, 0x1e)
	FOLD_CHUNK(128, Y4, 0x1e)
	FOLD_CHUNK(160, Y5, 0x1e)
	FOLD_CHUNK(192, Y6, 0x1e)
	FOLD_CHUNK(224, Y7, 0x1e)
	INCQ CX
	CMPQ CX, n+40(FP)
	JLT  max256
	JMP  store256
min256:
	PREFETCH_ROW256
	MOVL (R12)(CX*4), AX
	IMULQ R9, AX
	ADDQ SI, AX
	VPBROADCASTD (DX)(CX*4), X10
	VPMOVSXDQ    X10, Y10
	FOLD_CHUNK(0, Y0, 0x11)
	FOLD_CHUNK(32, Y1, 0x11)
	FOLD_CHUNK(64, Y2, 0x11)
	FOLD_CHUNK(96, Y3, 0x11)
	FOLD_CHUNK(128, Y4, 0x11)
	FOLD_CHUNK(160, Y5, 0x11)
	FOLD_CHUNK(192, Y6, 0x11)
	FOLD_CHUNK(224, Y7, 0x11)
	INCQ CX
	CMPQ CX, n+40(FP)
	JLT  min256
store256:
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
