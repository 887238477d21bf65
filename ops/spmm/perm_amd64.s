//go:build amd64 && !purego

#include "textflag.h"

// func addPermScaledRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int, e *float32, eids *int32, eStride int, d *permChunks)
//
// addScaledRowsF32 for heads narrower than a vector or not a multiple of
// 8 columns wide (GAT's heads of 2 or 4 features): the 8 weights of chunk
// c (bytes 32c to 32c+31 of the row, c < width/32 <= 4) are loaded from
// e + eids[j]*eStride + d.base[c] through the mask d.mask (lanes past the
// edge's weight row read 0) and permuted by d.perm[c] (VPERMPS), so that
// lane i of the chunk gets its head's weight; the rest is as
// addScaledRowsF32, with the sums kept in registers: row j is multiplied
// by its weights and then added (no FMA), rows in order of j, the bits of
// the Go loops.
//
// The layout of permChunks (perm.go): base [4]int64 at 0, perm [4][8]int32
// at 32, mask [8]int32 at 160.

// PSETUP loads the arguments: o in DI, x in SI, idx in R12, avail in R8,
// xStride in R9, eids in R10, dist in BX, d in DX, the mask in Y8 and the
// permutations in Y4-Y7; CX = 0.
#define PSETUP \
	MOVQ    o+0(FP), DI \
	MOVQ    x+8(FP), SI \
	MOVQ    idx+16(FP), R12 \
	MOVQ    avail+32(FP), R8 \
	MOVQ    xStride+40(FP), R9 \
	MOVQ    dist+56(FP), BX \
	MOVQ    eids+72(FP), R10 \
	MOVQ    d+88(FP), DX \
	VMOVDQU 160(DX), Y8 \
	VMOVDQU 32(DX), Y4 \
	VMOVDQU 64(DX), Y5 \
	VMOVDQU 96(DX), Y6 \
	VMOVDQU 128(DX), Y7 \
	XORQ    CX, CX

// PAHEAD prefetches, when edge CX+BX is below R8, its weight row and the
// first and last bytes (last: the row's width less 1, at most 127) of its
// source row, using AX and R11.
#define PAHEAD(last, next) \
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
	PREFETCHT0 last(AX)

// PROW sets R11 to the weight row and AX to the source row of edge CX.
#define PROW \
	MOVLQSX (R10)(CX*4), R11 \
	IMULQ   eStride+80(FP), R11 \
	ADDQ    e+64(FP), R11 \
	MOVL    (R12)(CX*4), AX \
	IMULQ   R9, AX \
	ADDQ    SI, AX

// PCHUNK adds to acc the chunk at byte xoff of the source row times its
// weights: those at d.base[c] (boff = 8c) permuted by perm. It uses R13
// and Y9.
#define PCHUNK(boff, xoff, acc, perm) \
	MOVQ       boff(DX), R13 \
	VMASKMOVPS (R11)(R13*1), Y8, Y9 \
	VPERMPS    Y9, perm, Y9 \
	VMULPS     xoff(AX), Y9, Y9 \
	VADDPS     Y9, acc, acc

TEXT ·addPermScaledRowsF32(SB), NOSPLIT, $0-96
	PSETUP
	MOVQ width+48(FP), AX
	CMPQ AX, $32
	JEQ  p1
	CMPQ AX, $64
	JEQ  p2
	CMPQ AX, $96
	JEQ  p3

	// Four chunks.
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	CMPQ    CX, n+24(FP)
	JGE     ps4
pl4:
	PAHEAD(127, pn4)
	PREFETCHT0 64(AX)
pn4:
	PROW
	PCHUNK(0, 0, Y0, Y4)
	PCHUNK(8, 32, Y1, Y5)
	PCHUNK(16, 64, Y2, Y6)
	PCHUNK(24, 96, Y3, Y7)
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  pl4
ps4:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VZEROUPPER
	RET

	// Three chunks.
p3:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	CMPQ    CX, n+24(FP)
	JGE     ps3
pl3:
	PAHEAD(95, pn3)
	PREFETCHT0 64(AX)
pn3:
	PROW
	PCHUNK(0, 0, Y0, Y4)
	PCHUNK(8, 32, Y1, Y5)
	PCHUNK(16, 64, Y2, Y6)
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  pl3
ps3:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VZEROUPPER
	RET

	// Two chunks.
p2:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	CMPQ    CX, n+24(FP)
	JGE     ps2
pl2:
	PAHEAD(63, pn2)
pn2:
	PROW
	PCHUNK(0, 0, Y0, Y4)
	PCHUNK(8, 32, Y1, Y5)
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  pl2
ps2:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET

	// One chunk.
p1:
	VMOVUPS (DI), Y0
	CMPQ    CX, n+24(FP)
	JGE     ps1
pl1:
	PAHEAD(31, pn1)
pn1:
	PROW
	PCHUNK(0, 0, Y0, Y4)
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  pl1
ps1:
	VMOVUPS Y0, (DI)
	VZEROUPPER
	RET
