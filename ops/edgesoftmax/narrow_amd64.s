//go:build amd64 && !purego

#include "textflag.h"
#include "exp_amd64.h"

// AVX2 and FMA kernels of the float32 edge softmax for rows of 2 and 4
// floats (2 and 4 heads), one group per call as forwardGroupF32 and
// backwardGroupF32 (rows_amd64.s), whose results these are bit for bit:
// the same operations on each column, and the sums taken edge after edge
// in the order of eids. Where those kernels fill one vector per edge, a
// masked block of which 2 or 4 lanes are used, these pack the rows of 4
// (2 floats) or 2 (4 floats) edges into one vector for the maxima, the
// exponentials and the quotients, and take the sums of the backward on
// vectors of 2 or 4 float64 lanes, one edge at a time. The row of edge e
// starts at byte e*8 or e*16 of each array; eids in R8, n in CX, the edge
// index in R13, the edges in whole vectors in R12.

// QUAD2 loads into Y0 the rows at base of the edges R13 to R13+3, leaving
// their IDs (row offsets over 8) in AX, BX, R9 and R10; it clobbers X1.
#define QUAD2(base) \
	MOVLQSX     (R8)(R13*4), AX \
	MOVLQSX     4(R8)(R13*4), BX \
	MOVLQSX     8(R8)(R13*4), R9 \
	MOVLQSX     12(R8)(R13*4), R10 \
	VMOVSD      (base)(AX*8), X0 \
	VMOVHPS     (base)(BX*8), X0, X0 \
	VMOVSD      (base)(R9*8), X1 \
	VMOVHPS     (base)(R10*8), X1, X1 \
	VINSERTF128 $1, X1, Y0, Y0

// STORE2 stores the four rows of v (vx its low half) to the rows at DI of
// the edges QUAD2 loaded, clobbering X1.
#define STORE2(v, vx) \
	VMOVSD       vx, (DI)(AX*8) \
	VMOVHPS      vx, (DI)(BX*8) \
	VEXTRACTF128 $1, v, X1 \
	VMOVSD       X1, (DI)(R9*8) \
	VMOVHPS      X1, (DI)(R10*8)

// PAIR4 loads into Y0 the rows at base of the edges R13 and R13+1,
// leaving their byte offsets in AX and BX.
#define PAIR4(base) \
	MOVLQSX     (R8)(R13*4), AX \
	MOVLQSX     4(R8)(R13*4), BX \
	SHLQ        $4, AX \
	SHLQ        $4, BX \
	VMOVUPS     (base)(AX*1), X0 \
	VINSERTF128 $1, (base)(BX*1), Y0, Y0

// STORE4 stores the two rows of v (vx its low half) to the rows at DI of
// the edges PAIR4 loaded.
#define STORE4(v, vx) \
	VMOVUPS      vx, (DI)(AX*1) \
	VEXTRACTF128 $1, v, (DI)(BX*1)

// func forwardGroup2F32(out, score *float32, eids *int32, n int)
//
// forwardGroupF32 for rows of 2 floats. n >= 1. out may be score.
TEXT ·forwardGroup2F32(SB), NOSPLIT, $0-32
	MOVQ out+0(FP), DI
	MOVQ score+8(FP), SI
	MOVQ eids+16(FP), R8
	MOVQ n+24(FP), CX
	LOADEXP
	MOVQ CX, R12
	ANDQ $-4, R12

	// Pass 1: the column maxima, in each pair of lanes of Y15.
	MOVLQSX      (R8), AX
	VBROADCASTSD (SI)(AX*8), Y15
	XORQ         R13, R13
	CMPQ         R13, R12
	JGE          f2max1

f2max4:
	QUAD2(SI)
	VMAXPS Y0, Y15, Y15
	ADDQ   $4, R13
	CMPQ   R13, R12
	JLT    f2max4

f2max1:
	CMPQ         R13, CX
	JGE          f2fold
	MOVLQSX      (R8)(R13*4), AX
	VBROADCASTSD (SI)(AX*8), Y0
	VMAXPS       Y0, Y15, Y15
	INCQ         R13
	JMP          f2max1

f2fold:
	VPERM2F128 $1, Y15, Y15, Y0
	VMAXPS     Y0, Y15, Y15
	VPERMILPD  $5, Y15, Y0
	VMAXPS     Y0, Y15, Y15

	// Pass 2: out = e^(x-m), summed in float64 in X14, edge after edge.
	VXORPD X14, X14, X14
	XORQ   R13, R13
	CMPQ   R13, R12
	JGE    f2exp1

f2exp4:
	QUAD2(SI)
	VSUBPS       Y15, Y0, Y0
	EXP
	STORE2(Y3, X3)
	VCVTPS2PD    X3, Y0
	VEXTRACTF128 $1, Y3, X3
	VCVTPS2PD    X3, Y3
	VADDPD       X0, X14, X14
	VEXTRACTF128 $1, Y0, X0
	VADDPD       X0, X14, X14
	VADDPD       X3, X14, X14
	VEXTRACTF128 $1, Y3, X3
	VADDPD       X3, X14, X14
	ADDQ         $4, R13
	CMPQ         R13, R12
	JLT          f2exp4

f2exp1:
	CMPQ      R13, CX
	JGE       f2recip
	MOVLQSX   (R8)(R13*4), AX
	VMOVSD    (SI)(AX*8), X0
	VSUBPS    Y15, Y0, Y0
	EXP
	VMOVSD    X3, (DI)(AX*8)
	VCVTPS2PD X3, X0
	VADDPD    X0, X14, X14
	INCQ      R13
	JMP       f2exp1

f2recip:
	VINSERTF128 $1, X14, Y14, Y14
	VMOVAPD     Y14, Y13
	RECIP

	// Pass 3: out *= 1/sum.
	XORQ R13, R13
	CMPQ R13, R12
	JGE  f2norm1

f2norm4:
	QUAD2(DI)
	VMULPS Y14, Y0, Y3
	STORE2(Y3, X3)
	ADDQ   $4, R13
	CMPQ   R13, R12
	JLT    f2norm4

f2norm1:
	CMPQ    R13, CX
	JGE     f2done
	MOVLQSX (R8)(R13*4), AX
	VMOVSD  (DI)(AX*8), X0
	VMULPS  X14, X0, X0
	VMOVSD  X0, (DI)(AX*8)
	INCQ    R13
	JMP     f2norm1

f2done:
	VZEROUPPER
	RET

// func forwardGroup4F32(out, score *float32, eids *int32, n int)
//
// forwardGroupF32 for rows of 4 floats. n >= 1. out may be score.
TEXT ·forwardGroup4F32(SB), NOSPLIT, $0-32
	MOVQ out+0(FP), DI
	MOVQ score+8(FP), SI
	MOVQ eids+16(FP), R8
	MOVQ n+24(FP), CX
	LOADEXP
	MOVQ CX, R12
	ANDQ $-2, R12

	// Pass 1: the column maxima, in each half of Y15.
	MOVLQSX        (R8), AX
	SHLQ           $4, AX
	VBROADCASTF128 (SI)(AX*1), Y15
	XORQ           R13, R13
	CMPQ           R13, R12
	JGE            f4max1

f4max2:
	PAIR4(SI)
	VMAXPS Y0, Y15, Y15
	ADDQ   $2, R13
	CMPQ   R13, R12
	JLT    f4max2

f4max1:
	CMPQ           R13, CX
	JGE            f4fold
	MOVLQSX        (R8)(R13*4), AX
	SHLQ           $4, AX
	VBROADCASTF128 (SI)(AX*1), Y0
	VMAXPS         Y0, Y15, Y15
	INCQ           R13
	JMP            f4max1

f4fold:
	VPERM2F128 $1, Y15, Y15, Y0
	VMAXPS     Y0, Y15, Y15

	// Pass 2: out = e^(x-m), summed in float64 in Y14, edge after edge.
	VXORPD Y14, Y14, Y14
	XORQ   R13, R13
	CMPQ   R13, R12
	JGE    f4exp1

f4exp2:
	PAIR4(SI)
	VSUBPS       Y15, Y0, Y0
	EXP
	STORE4(Y3, X3)
	VCVTPS2PD    X3, Y0
	VEXTRACTF128 $1, Y3, X3
	VCVTPS2PD    X3, Y3
	VADDPD       Y0, Y14, Y14
	VADDPD       Y3, Y14, Y14
	ADDQ         $2, R13
	CMPQ         R13, R12
	JLT          f4exp2

f4exp1:
	CMPQ      R13, CX
	JGE       f4recip
	MOVLQSX   (R8)(R13*4), AX
	SHLQ      $4, AX
	VMOVUPS   (SI)(AX*1), X0
	VSUBPS    Y15, Y0, Y0
	EXP
	VMOVUPS   X3, (DI)(AX*1)
	VCVTPS2PD X3, Y0
	VADDPD    Y0, Y14, Y14
	INCQ      R13
	JMP       f4exp1

f4recip:
	VMOVAPD Y14, Y13
	RECIP

	// Pass 3: out *= 1/sum.
	XORQ R13, R13
	CMPQ R13, R12
	JGE  f4norm1

f4norm2:
	PAIR4(DI)
	VMULPS Y14, Y0, Y3
	STORE4(Y3, X3)
	ADDQ   $2, R13
	CMPQ   R13, R12
	JLT    f4norm2

f4norm1:
	CMPQ    R13, CX
	JGE     f4done
	MOVLQSX (R8)(R13*4), AX
	SHLQ    $4, AX
	VMOVUPS (DI)(AX*1), X0
	VMULPS  X14, X0, X0
	VMOVUPS X0, (DI)(AX*1)
	INCQ    R13
	JMP     f4norm1

f4done:
	VZEROUPPER
	RET

// func backwardGroup2F32(ds, y, dy *float32, eids *int32, n int)
//
// backwardGroupF32 for rows of 2 floats: the sums s of y*dy in float64,
// edge after edge, then ds = y*(dy - s) in float64, the bits of the Go
// code. n >= 1. ds may be y or dy.
TEXT ·backwardGroup2F32(SB), NOSPLIT, $0-40
	MOVQ ds+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ dy+16(FP), DX
	MOVQ eids+24(FP), R8
	MOVQ n+32(FP), CX

	VXORPD X14, X14, X14
	XORQ   R13, R13

b2sum:
	MOVLQSX     (R8)(R13*4), AX
	VCVTPS2PD   (SI)(AX*8), X0
	VCVTPS2PD   (DX)(AX*8), X2
	VFMADD231PD X2, X0, X14
	INCQ        R13
	CMPQ        R13, CX
	JLT         b2sum

	XORQ R13, R13

b2grad:
	MOVLQSX    (R8)(R13*4), AX
	VCVTPS2PD  (DX)(AX*8), X0
	VCVTPS2PD  (SI)(AX*8), X2
	VSUBPD     X14, X0, X0
	VMULPD     X2, X0, X0
	VCVTPD2PSX X0, X0
	VMOVSD     X0, (DI)(AX*8)
	INCQ       R13
	CMPQ       R13, CX
	JLT        b2grad

	VZEROUPPER
	RET

// func backwardGroup4F32(ds, y, dy *float32, eids *int32, n int)
//
// backwardGroup2F32 for rows of 4 floats.
TEXT ·backwardGroup4F32(SB), NOSPLIT, $0-40
	MOVQ ds+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ dy+16(FP), DX
	MOVQ eids+24(FP), R8
	MOVQ n+32(FP), CX

	VXORPD Y14, Y14, Y14
	XORQ   R13, R13

b4sum:
	MOVLQSX     (R8)(R13*4), AX
	SHLQ        $4, AX
	VCVTPS2PD   (SI)(AX*1), Y0
	VCVTPS2PD   (DX)(AX*1), Y2
	VFMADD231PD Y2, Y0, Y14
	INCQ        R13
	CMPQ        R13, CX
	JLT         b4sum

	XORQ R13, R13

b4grad:
	MOVLQSX    (R8)(R13*4), AX
	SHLQ       $4, AX
	VCVTPS2PD  (DX)(AX*1), Y0
	VCVTPS2PD  (SI)(AX*1), Y2
	VSUBPD     Y14, Y0, Y0
	VMULPD     Y2, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)(AX*1)
	INCQ       R13
	CMPQ       R13, CX
	JLT        b4grad

	VZEROUPPER
	RET
