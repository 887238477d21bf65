//go:build amd64 && !purego

#include "textflag.h"
#include "exp_amd64.h"

// AVX2 and FMA kernels of the float32 edge softmax, one group (one row of
// the CSC or CSR view) per call, for rows of w >= 1 floats. Each call goes
// over the columns in blocks of eight, one vector, the last block masked
// (VMASKMOVPS) when w is not a multiple of 8; for each block it makes its
// passes over the edges of the group, eids[0..n), keeping the block's
// maxima and sums in registers. The row of edge e starts at byte offset
// e*4*w of each array. Sums are kept in float64 lanes, four columns to a
// register.
//
// When w >= 8, the first pass over the first block prefetches every cache
// line of the rows of the edge dist positions ahead, as long as that
// position is below avail: the caller passes eids pointing into the view's
// edge-ID array, which goes on with the groups that follow, so prefetching
// runs ahead across group boundaries. dist = 0 turns prefetching off.

// tailMask+32-4r holds the VMASKMOVPS mask of the first r lanes.
DATA tailMask<>+0(SB)/8, $-1
DATA tailMask<>+8(SB)/8, $-1
DATA tailMask<>+16(SB)/8, $-1
DATA tailMask<>+24(SB)/8, $-1
DATA tailMask<>+32(SB)/8, $0
DATA tailMask<>+40(SB)/8, $0
DATA tailMask<>+48(SB)/8, $0
DATA tailMask<>+56(SB)/8, $0
GLOBL tailMask<>(SB), RODATA|NOPTR, $64

// ROW sets AX to the byte offset of the current block of the row of edge
// eids[i]: eids in R8, row bytes in R11, block offset in BX.
#define ROW(i) \
	MOVLQSX (R8)(i*4), AX \
	IMULQ   R11, AX \
	ADDQ    BX, AX

// ROW0 is ROW(0).
#define ROW0 \
	MOVLQSX (R8), AX \
	IMULQ   R11, AX \
	ADDQ    BX, AX

// TAILMASK loads into Y12 the mask of the columns from byte BX to R11, the
// last, partial block, using AX.
#define TAILMASK \
	LEAQ    tailMask<>+32(SB), AX \
	ADDQ    BX, AX \
	SUBQ    R11, AX \
	VMOVDQU (AX), Y12

// func forwardGroupF32(out, score *float32, eids *int32, n, avail, w, dist int)
//
// Writes to the rows eids[0..n) of out the softmax over those edges of the
// same rows of score, column by column: e^(x-m)/sum, m the column maximum
// of the group and sum the column sum of e^(x-m) (EXP), rounded to float32
// and multiplied by the float32 reciprocal of the sum. n >= 1. out may be
// score. A group with NaN or +Inf in a column, or only -Inf, gives NaN in
// that column, as in the Go code.
TEXT ·forwardGroupF32(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ score+8(FP), SI
	MOVQ eids+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ avail+32(FP), R9
	MOVQ w+40(FP), R11
	SHLQ $2, R11 // row bytes
	MOVQ dist+48(FP), R12

	LOADEXP

	XORQ BX, BX // byte offset of the column block

fblock:
	LEAQ 32(BX), AX
	CMPQ AX, R11
	JGT  ftail

	// Pass 1: the column maxima Y15, prefetching ahead in the first block.
	ROW0
	VMOVUPS (SI)(AX*1), Y15
	XORQ    R13, R13
	TESTQ   BX, BX
	JNZ     fmax
	TESTQ   R12, R12
	JZ      fmax

fmaxpf:
	LEAQ       (R13)(R12*1), AX
	CMPQ       AX, R9
	JGE        fmaxpf1
	MOVLQSX    (R8)(AX*4), AX
	IMULQ      R11, AX
	LEAQ       (AX)(R11*1), R10
	PREFETCHT0 (SI)(AX*1)
	PREFETCHT0 (DI)(AX*1)
	PREFETCHT0 -1(SI)(R10*1)
	PREFETCHT0 -1(DI)(R10*1)
	ADDQ       $64, AX
	CMPQ       AX, R10
	JLT        fmaxpfwide

fmaxpf1:
	ROW(R13) // the first block: BX is 0
	VMAXPS (SI)(AX*1), Y15, Y15
	INCQ   R13
	CMPQ   R13, CX
	JLT    fmaxpf
	JMP    fexp

fmaxpfwide:
	// Rows wider than a cache line: the lines in between.
	PREFETCHT0 (SI)(AX*1)
	PREFETCHT0 (DI)(AX*1)
	ADDQ       $64, AX
	CMPQ       AX, R10
	JLT        fmaxpfwide
	JMP        fmaxpf1

fmax:
	ROW(R13)
	VMAXPS (SI)(AX*1), Y15, Y15
	INCQ   R13
	CMPQ   R13, CX
	JLT    fmax

fexp:
	// Pass 2: out = e^(x-m), summed in float64.
	VXORPD Y14, Y14, Y14
	VXORPD Y13, Y13, Y13
	XORQ   R13, R13

fexploop:
	ROW(R13)
	VMOVUPS (SI)(AX*1), Y0
	VSUBPS  Y15, Y0, Y0
	EXP
	VMOVUPS Y3, (DI)(AX*1)
	SUM
	INCQ    R13
	CMPQ    R13, CX
	JLT     fexploop

	// Pass 3: out *= 1/sum.
	RECIP
	XORQ R13, R13

fnorm:
	ROW(R13)
	VMULPS  (DI)(AX*1), Y14, Y0
	VMOVUPS Y0, (DI)(AX*1)
	INCQ    R13
	CMPQ    R13, CX
	JLT     fnorm

	ADDQ $32, BX
	JMP  fblock

ftail:
	// The last columns, fewer than eight, through the mask Y12: the
	// other lanes load 0 and are not stored.
	CMPQ BX, R11
	JGE  fdone
	TAILMASK
	ROW0
	VMASKMOVPS (SI)(AX*1), Y12, Y15
	XORQ       R13, R13

ftmax:
	ROW(R13)
	VMASKMOVPS (SI)(AX*1), Y12, Y0
	VMAXPS     Y0, Y15, Y15
	INCQ       R13
	CMPQ       R13, CX
	JLT        ftmax

	VXORPD Y14, Y14, Y14
	VXORPD Y13, Y13, Y13
	XORQ   R13, R13

ftexp:
	ROW(R13)
	VMASKMOVPS (SI)(AX*1), Y12, Y0
	VSUBPS     Y15, Y0, Y0
	EXP
	VMASKMOVPS Y3, Y12, (DI)(AX*1)
	SUM
	INCQ       R13
	CMPQ       R13, CX
	JLT        ftexp

	RECIP
	XORQ R13, R13

ftnorm:
	ROW(R13)
	VMASKMOVPS (DI)(AX*1), Y12, Y0
	VMULPS     Y14, Y0, Y0
	VMASKMOVPS Y0, Y12, (DI)(AX*1)
	INCQ       R13
	CMPQ       R13, CX
	JLT        ftnorm

fdone:
	VZEROUPPER
	RET

// GRAD sets Y0 to the eight float32 gradients y*(dy - s), computed in
// float64 from the dy in Y0 (lanes 0-3) and Y1 (4-7), the y in Y2 and Y3,
// and the sums s in Y14 and Y13, clobbering Y1.
#define GRAD \
	VSUBPD      Y14, Y0, Y0 \
	VSUBPD      Y13, Y1, Y1 \
	VMULPD      Y2, Y0, Y0 \
	VMULPD      Y3, Y1, Y1 \
	VCVTPD2PSY  Y0, X0 \
	VCVTPD2PSY  Y1, X1 \
	VINSERTF128 $1, X1, Y0, Y0

// WIDEN sets lo and hi to the float64 values of lanes 0-3 and 4-7 of the
// float32 vector v, clobbering v.
#define WIDEN(v, vx, lo, hi) \
	VCVTPS2PD    vx, lo \
	VEXTRACTF128 $1, v, vx \
	VCVTPS2PD    vx, hi

// func backwardGroupF32(ds, y, dy *float32, eids *int32, n, avail, w, dist int)
//
// Writes to the rows eids[0..n) of ds the softmax gradient y*(dy - s), s
// the column sum over the group of y*dy. n >= 1. ds may be y or dy. The
// products, the sums and the gradient are computed in float64 in the
// order of the Go code, whose results these are bit for bit.
TEXT ·backwardGroupF32(SB), NOSPLIT, $0-64
	MOVQ ds+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ dy+16(FP), DX
	MOVQ eids+24(FP), R8
	MOVQ n+32(FP), CX
	MOVQ avail+40(FP), R9
	MOVQ w+48(FP), R11
	SHLQ $2, R11 // row bytes
	MOVQ dist+56(FP), R12

	XORQ BX, BX // byte offset of the column block

bblock:
	LEAQ 32(BX), AX
	CMPQ AX, R11
	JGT  btail

	// Pass 1: the sums of y*dy, in Y14 (columns 0-3) and Y13 (4-7).
	VXORPD Y14, Y14, Y14
	VXORPD Y13, Y13, Y13
	XORQ   R13, R13
	TESTQ  BX, BX
	JNZ    bsum
	TESTQ  R12, R12
	JZ     bsum

bsumpf:
	LEAQ       (R13)(R12*1), AX
	CMPQ       AX, R9
	JGE        bsumpf1
	MOVLQSX    (R8)(AX*4), AX
	IMULQ      R11, AX
	LEAQ       (AX)(R11*1), R10
	PREFETCHT0 (SI)(AX*1)
	PREFETCHT0 (DX)(AX*1)
	PREFETCHT0 (DI)(AX*1)
	PREFETCHT0 -1(SI)(R10*1)
	PREFETCHT0 -1(DX)(R10*1)
	PREFETCHT0 -1(DI)(R10*1)
	ADDQ       $64, AX
	CMPQ       AX, R10
	JLT        bsumpfwide

bsumpf1:
	ROW(R13) // the first block: BX is 0
	VCVTPS2PD   (SI)(AX*1), Y0
	VCVTPS2PD   16(SI)(AX*1), Y1
	VCVTPS2PD   (DX)(AX*1), Y2
	VCVTPS2PD   16(DX)(AX*1), Y3
	VFMADD231PD Y2, Y0, Y14
	VFMADD231PD Y3, Y1, Y13
	INCQ        R13
	CMPQ        R13, CX
	JLT         bsumpf
	JMP         bgrad

bsumpfwide:
	PREFETCHT0 (SI)(AX*1)
	PREFETCHT0 (DX)(AX*1)
	PREFETCHT0 (DI)(AX*1)
	ADDQ       $64, AX
	CMPQ       AX, R10
	JLT        bsumpfwide
	JMP        bsumpf1

bsum:
	ROW(R13)
	VCVTPS2PD   (SI)(AX*1), Y0
	VCVTPS2PD   16(SI)(AX*1), Y1
	VCVTPS2PD   (DX)(AX*1), Y2
	VCVTPS2PD   16(DX)(AX*1), Y3
	VFMADD231PD Y2, Y0, Y14
	VFMADD231PD Y3, Y1, Y13
	INCQ        R13
	CMPQ        R13, CX
	JLT         bsum

bgrad:
	// Pass 2: ds = y*(dy - s).
	XORQ R13, R13

bgradloop:
	ROW(R13)
	VCVTPS2PD (DX)(AX*1), Y0
	VCVTPS2PD 16(DX)(AX*1), Y1
	VCVTPS2PD (SI)(AX*1), Y2
	VCVTPS2PD 16(SI)(AX*1), Y3
	GRAD
	VMOVUPS   Y0, (DI)(AX*1)
	INCQ      R13
	CMPQ      R13, CX
	JLT       bgradloop

	ADDQ $32, BX
	JMP  bblock

btail:
	// The last columns, fewer than eight, through the mask Y12: the
	// other lanes load 0 and are not stored.
	CMPQ BX, R11
	JGE  bdone
	TAILMASK
	VXORPD Y14, Y14, Y14
	VXORPD Y13, Y13, Y13
	XORQ   R13, R13

btsum:
	ROW(R13)
	VMASKMOVPS  (SI)(AX*1), Y12, Y4
	VMASKMOVPS  (DX)(AX*1), Y12, Y5
	WIDEN(Y4, X4, Y0, Y1)
	WIDEN(Y5, X5, Y2, Y3)
	VFMADD231PD Y2, Y0, Y14
	VFMADD231PD Y3, Y1, Y13
	INCQ        R13
	CMPQ        R13, CX
	JLT         btsum

	XORQ R13, R13

btgrad:
	ROW(R13)
	VMASKMOVPS (DX)(AX*1), Y12, Y4
	VMASKMOVPS (SI)(AX*1), Y12, Y5
	WIDEN(Y4, X4, Y0, Y1)
	WIDEN(Y5, X5, Y2, Y3)
	GRAD
	VMASKMOVPS Y0, Y12, (DI)(AX*1)
	INCQ       R13
	CMPQ       R13, CX
	JLT        btgrad

bdone:
	VZEROUPPER
	RET
