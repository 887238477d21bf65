//go:build amd64 && !purego

#include "textflag.h"
#include "exp_amd64.h"

// The AVX2 and FMA kernels of GAT's attention with two and four heads in
// float32: rows of 2 or 4 floats, one destination group per call, as
// attnFwd8 and attnBwd8 (attention_amd64.s) do for eight. The forward packs
// the rows of 4 (two heads) or 2 (four heads) edges into a vector, writes
// the scores contiguously to buf, and takes the softmax as the narrow edge
// softmax (narrow_amd64.s) does, whose bits it gives on the LeakyReLU
// scores: the sums edge after edge. The backward computes what
// attentionBackRows computes, in the same order and precision, one edge
// at a time on vectors of 2 or 4 float64 lanes.

// negInfN is float32 -Inf, the starting column maximum.
DATA negInfN<>+0(SB)/4, $0xff800000
GLOBL negInfN<>(SB), RODATA|NOPTR, $4

// IDS4 loads into AX, BX, R9 and R10 the entries R13 to R13+3 of the int32
// array at ids.
#define IDS4(ids) \
	MOVLQSX (ids)(R13*4), AX \
	MOVLQSX 4(ids)(R13*4), BX \
	MOVLQSX 8(ids)(R13*4), R9 \
	MOVLQSX 12(ids)(R13*4), R10

// GATHER2 loads into Y0 the 2-float rows at base of the IDs in AX, BX, R9
// and R10, clobbering X1.
#define GATHER2(base) \
	VMOVSD      (base)(AX*8), X0 \
	VMOVHPS     (base)(BX*8), X0, X0 \
	VMOVSD      (base)(R9*8), X1 \
	VMOVHPS     (base)(R10*8), X1, X1 \
	VINSERTF128 $1, X1, Y0, Y0

// SCATTER2 stores the four 2-float rows of v (vx its low half) to the rows
// at DI of the IDs in AX, BX, R9 and R10, clobbering X1.
#define SCATTER2(v, vx) \
	VMOVSD       vx, (DI)(AX*8) \
	VMOVHPS      vx, (DI)(BX*8) \
	VEXTRACTF128 $1, v, X1 \
	VMOVSD       X1, (DI)(R9*8) \
	VMOVHPS      X1, (DI)(R10*8)

// IDS2 loads into AX and BX the byte offsets of the 4-float rows of the
// entries R13 and R13+1 of the int32 array at ids.
#define IDS2(ids) \
	MOVLQSX (ids)(R13*4), AX \
	MOVLQSX 4(ids)(R13*4), BX \
	SHLQ    $4, AX \
	SHLQ    $4, BX

// LEAKY sets v to LeakyReLU(v + Y15) with the slope in Y13 (at most 1:
// the maximum of t and slope*t), clobbering Y1.
#define LEAKY(v) \
	VADDPS Y15, v, v \
	VMULPS Y13, v, Y1 \
	VMAXPS Y1, v, v

// func attnFwd2(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32)
//
// attnFwd8 for rows of 2 floats: the scores of the n >= 1 edges into buf
// (n rows), then the softmax, the quotients into out[eids[i]].
TEXT ·attnFwd2(SB), NOSPLIT, $0-60
	MOVQ         out+0(FP), DI
	MOVQ         el+8(FP), SI
	MOVQ         er+16(FP), R8
	VBROADCASTSD (R8), Y15
	MOVQ         idx+24(FP), R8
	MOVQ         n+40(FP), CX
	MOVQ         buf+48(FP), R11
	VBROADCASTSS slope+56(FP), Y13
	VBROADCASTSS negInfN<>(SB), Y12
	MOVQ         CX, R12
	ANDQ         $-4, R12
	XORQ         R13, R13
	CMPQ         R13, R12
	JGE          a2score1

	// Pass 1: the scores into buf, their column maxima into Y12.
a2score4:
	IDS4(R8)
	GATHER2(SI)
	LEAKY(Y0)
	VMOVUPS Y0, (R11)(R13*8)
	VMAXPS  Y0, Y12, Y12
	ADDQ    $4, R13
	CMPQ    R13, R12
	JLT     a2score4

a2score1:
	CMPQ         R13, CX
	JGE          a2fold
	MOVLQSX      (R8)(R13*4), AX
	VBROADCASTSD (SI)(AX*8), Y0
	LEAKY(Y0)
	VMOVSD       X0, (R11)(R13*8)
	VMAXPS       Y0, Y12, Y12
	INCQ         R13
	JMP          a2score1

a2fold:
	VPERM2F128 $1, Y12, Y12, Y0
	VMAXPS     Y0, Y12, Y12
	VPERMILPD  $5, Y12, Y0
	VMAXPS     Y0, Y12, Y12

	// Pass 2: the exponentials in place, summed in X14 edge after edge.
	LOADEXP
	VXORPD X14, X14, X14
	XORQ   R13, R13
	CMPQ   R13, R12
	JGE    a2exp1

a2exp4:
	VMOVUPS      (R11)(R13*8), Y0
	VSUBPS       Y12, Y0, Y0
	EXP
	VMOVUPS      Y3, (R11)(R13*8)
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
	JLT          a2exp4

a2exp1:
	CMPQ      R13, CX
	JGE       a2recip
	VMOVSD    (R11)(R13*8), X0
	VSUBPS    Y12, Y0, Y0
	EXP
	VMOVSD    X3, (R11)(R13*8)
	VCVTPS2PD X3, X0
	VADDPD    X0, X14, X14
	INCQ      R13
	JMP       a2exp1

a2recip:
	VINSERTF128 $1, X14, Y14, Y14
	VMOVAPD     Y14, Y13
	RECIP

	// Pass 3: the quotients into out at the edge IDs.
	MOVQ eids+32(FP), R8
	XORQ R13, R13
	CMPQ R13, R12
	JGE  a2norm1

a2norm4:
	IDS4(R8)
	VMULPS (R11)(R13*8), Y14, Y3
	SCATTER2(Y3, X3)
	ADDQ   $4, R13
	CMPQ   R13, R12
	JLT    a2norm4

a2norm1:
	CMPQ    R13, CX
	JGE     a2done
	MOVLQSX (R8)(R13*4), AX
	VMOVSD  (R11)(R13*8), X0
	VMULPS  X14, X0, X0
	VMOVSD  X0, (DI)(AX*8)
	INCQ    R13
	JMP     a2norm1

a2done:
	VZEROUPPER
	RET

// func attnFwd4(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32)
//
// attnFwd2 for rows of 4 floats.
TEXT ·attnFwd4(SB), NOSPLIT, $0-60
	MOVQ           out+0(FP), DI
	MOVQ           el+8(FP), SI
	MOVQ           er+16(FP), R8
	VBROADCASTF128 (R8), Y15
	MOVQ           idx+24(FP), R8
	MOVQ           n+40(FP), CX
	MOVQ           buf+48(FP), R11
	VBROADCASTSS   slope+56(FP), Y13
	VBROADCASTSS   negInfN<>(SB), Y12
	MOVQ           CX, R12
	ANDQ           $-2, R12
	XORQ           R13, R13
	MOVQ           R11, R9 // the row of edge R13 in buf
	CMPQ           R13, R12
	JGE            a4score1

a4score2:
	IDS2(R8)
	VMOVUPS     (SI)(AX*1), X0
	VINSERTF128 $1, (SI)(BX*1), Y0, Y0
	LEAKY(Y0)
	VMOVUPS     Y0, (R9)
	VMAXPS      Y0, Y12, Y12
	ADDQ        $32, R9
	ADDQ        $2, R13
	CMPQ        R13, R12
	JLT         a4score2

a4score1:
	CMPQ           R13, CX
	JGE            a4fold
	MOVLQSX        (R8)(R13*4), AX
	SHLQ           $4, AX
	VBROADCASTF128 (SI)(AX*1), Y0
	LEAKY(Y0)
	VMOVUPS        X0, (R9)
	VMAXPS         Y0, Y12, Y12
	ADDQ           $16, R9
	INCQ           R13
	JMP            a4score1

a4fold:
	VPERM2F128 $1, Y12, Y12, Y0
	VMAXPS     Y0, Y12, Y12

	// Pass 2: the exponentials in place, summed in Y14 edge after edge.
	LOADEXP
	VXORPD Y14, Y14, Y14
	XORQ   R13, R13
	MOVQ   R11, R9
	CMPQ   R13, R12
	JGE    a4exp1

a4exp2:
	VMOVUPS      (R9), Y0
	VSUBPS       Y12, Y0, Y0
	EXP
	VMOVUPS      Y3, (R9)
	VCVTPS2PD    X3, Y0
	VEXTRACTF128 $1, Y3, X3
	VCVTPS2PD    X3, Y3
	VADDPD       Y0, Y14, Y14
	VADDPD       Y3, Y14, Y14
	ADDQ         $32, R9
	ADDQ         $2, R13
	CMPQ         R13, R12
	JLT          a4exp2

a4exp1:
	CMPQ      R13, CX
	JGE       a4recip
	VMOVUPS   (R9), X0
	VSUBPS    Y12, Y0, Y0
	EXP
	VMOVUPS   X3, (R9)
	VCVTPS2PD X3, Y0
	VADDPD    Y0, Y14, Y14
	ADDQ      $16, R9
	INCQ      R13
	JMP       a4exp1

a4recip:
	VMOVAPD Y14, Y13
	RECIP

	// Pass 3: the quotients into out at the edge IDs.
	MOVQ eids+32(FP), R8
	XORQ R13, R13
	MOVQ R11, R9
	CMPQ R13, R12
	JGE  a4norm1

a4norm2:
	IDS2(R8)
	VMULPS       (R9), Y14, Y3
	VMOVUPS      X3, (DI)(AX*1)
	VEXTRACTF128 $1, Y3, (DI)(BX*1)
	ADDQ         $32, R9
	ADDQ         $2, R13
	CMPQ         R13, R12
	JLT          a4norm2

a4norm1:
	CMPQ    R13, CX
	JGE     a4done
	MOVLQSX (R8)(R13*4), AX
	SHLQ    $4, AX
	VMOVUPS (R9), X0
	VMULPS  X14, X0, X0
	VMOVUPS X0, (DI)(AX*1)
	ADDQ    $16, R9
	INCQ    R13
	JMP     a4norm1

a4done:
	VZEROUPPER
	RET

// func attnBwd2(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32)
//
// attnBwd8 for rows of 2 floats: the sums s of y*dy in float64, edge after
// edge, then ds = y*(dy - s), times slope where el[idx[i]] + er <= 0.
TEXT ·attnBwd2(SB), NOSPLIT, $0-68
	MOVQ         ds+0(FP), DI
	MOVQ         el+8(FP), SI
	MOVQ         er+16(FP), R8
	VMOVSD       (R8), X15
	MOVQ         y+24(FP), R12
	MOVQ         dy+32(FP), R11
	MOVQ         idx+40(FP), R9
	MOVQ         eids+48(FP), R10
	MOVQ         n+56(FP), CX
	VBROADCASTSS slope+64(FP), X14
	VXORPD       X10, X10, X10
	XORQ         R13, R13

b2sums:
	MOVLQSX   (R10)(R13*4), BX
	VCVTPS2PD (R12)(BX*8), X1
	VCVTPS2PD (R11)(BX*8), X4
	VMULPD    X4, X1, X1
	VADDPD    X1, X10, X10
	INCQ      R13
	CMPQ      R13, CX
	JLT       b2sums

	VXORPS X13, X13, X13
	XORQ   R13, R13

b2grad:
	MOVLQSX    (R10)(R13*4), BX
	VCVTPS2PD  (R12)(BX*8), X1
	VCVTPS2PD  (R11)(BX*8), X4
	VSUBPD     X10, X4, X4
	VMULPD     X4, X1, X1
	VCVTPD2PSX X1, X6
	MOVLQSX    (R9)(R13*4), DX
	VMOVSD     (SI)(DX*8), X7
	VADDPS     X15, X7, X7
	VCMPPS     $0x02, X13, X7, X8
	VMULPS     X14, X6, X11
	VBLENDVPS  X8, X11, X6, X6
	VMOVSD     X6, (DI)(BX*8)
	INCQ       R13
	CMPQ       R13, CX
	JLT        b2grad
	VZEROUPPER
	RET

// func attnBwd4(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32)
//
// attnBwd2 for rows of 4 floats.
TEXT ·attnBwd4(SB), NOSPLIT, $0-68
	MOVQ         ds+0(FP), DI
	MOVQ         el+8(FP), SI
	MOVQ         er+16(FP), R8
	VMOVUPS      (R8), X15
	MOVQ         y+24(FP), R12
	MOVQ         dy+32(FP), R11
	MOVQ         idx+40(FP), R9
	MOVQ         eids+48(FP), R10
	MOVQ         n+56(FP), CX
	VBROADCASTSS slope+64(FP), X14
	VXORPD       Y10, Y10, Y10
	XORQ         R13, R13

b4sums:
	MOVLQSX   (R10)(R13*4), BX
	SHLQ      $4, BX
	VCVTPS2PD (R12)(BX*1), Y1
	VCVTPS2PD (R11)(BX*1), Y4
	VMULPD    Y4, Y1, Y1
	VADDPD    Y1, Y10, Y10
	INCQ      R13
	CMPQ      R13, CX
	JLT       b4sums

	VXORPS X13, X13, X13
	XORQ   R13, R13

b4grad:
	MOVLQSX    (R10)(R13*4), BX
	SHLQ       $4, BX
	VCVTPS2PD  (R12)(BX*1), Y1
	VCVTPS2PD  (R11)(BX*1), Y4
	VSUBPD     Y10, Y4, Y4
	VMULPD     Y4, Y1, Y1
	VCVTPD2PSY Y1, X6
	MOVLQSX    (R9)(R13*4), DX
	SHLQ       $4, DX
	VMOVUPS    (SI)(DX*1), X7
	VADDPS     X15, X7, X7
	VCMPPS     $0x02, X13, X7, X8
	VMULPS     X14, X6, X11
	VBLENDVPS  X8, X11, X6, X6
	VMOVUPS    X6, (DI)(BX*1)
	INCQ       R13
	CMPQ       R13, CX
	JLT        b4grad
	VZEROUPPER
	RET
