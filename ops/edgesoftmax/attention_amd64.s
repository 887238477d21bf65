//go:build amd64 && !purego

#include "textflag.h"
#include "exp_amd64.h"

// The AVX2 and FMA kernels of GAT's attention with eight heads in float32:
// one row of 8 floats (32 bytes) per edge and per node, one destination
// group per call. The forward computes the scores as attentionRows does,
// then the softmax as forwardGroupF32 (rows_amd64.s) does: the same
// exponential (EXP), float64 sums and float32 reciprocals, so the fused op
// and the composed ops agree. The backward computes what attentionBackRows
// computes, in the same order and precision.

// negInf is float32 -Inf, the starting column maximum.
DATA negInf<>+0(SB)/4, $0xff800000
GLOBL negInf<>(SB), RODATA|NOPTR, $4

// WIDEN sets LO and HI to the float64 values of the low and high four
// float32 lanes of Y (XY its low half, XHI the low half of HI).
#define WIDEN(Y, XY, LO, HI, XHI) \
	VCVTPS2PD    XY, LO; \
	VEXTRACTF128 $1, Y, XHI; \
	VCVTPS2PD    XHI, HI

// NARROW sets Y to the eight float32 roundings of LO (low lanes) and HI
// (XLO and XHI their low halves).
#define NARROW(LO, XLO, HI, XHI, Y) \
	VCVTPD2PSY  LO, XLO; \
	VCVTPD2PSY  HI, XHI; \
	VINSERTF128 $1, XHI, LO, Y

// func attnFwd8(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32)
//
// One destination group of n >= 1 edges: the scores LeakyReLU(el[idx[i]] +
// er) (slope <= 1, so the LeakyReLU is max(t, slope*t)) into buf[i] with
// their column maxima, their exponentials in place with the sums, and the
// quotients into out[eids[i]]. Rows are 8 floats; el rows 16 edges ahead
// are prefetched, and out rows 16 edges ahead.
TEXT ·attnFwd8(SB), NOSPLIT, $0-60
	MOVQ         out+0(FP), DI
	MOVQ         el+8(FP), SI
	MOVQ         er+16(FP), R8
	MOVQ         idx+24(FP), R9
	MOVQ         eids+32(FP), R10
	MOVQ         n+40(FP), CX
	MOVQ         buf+48(FP), R11
	VBROADCASTSS slope+56(FP), Y14
	VMOVUPS      (R8), Y15
	VBROADCASTSS negInf<>(SB), Y12
	XORQ         AX, AX
	MOVQ         R11, R12

score:
	LEAQ       16(AX), BX
	CMPQ       BX, CX
	JGE        score1
	MOVLQSX    (R9)(BX*4), BX
	SHLQ       $5, BX
	PREFETCHT0 (SI)(BX*1)

score1:
	MOVLQSX (R9)(AX*4), BX
	SHLQ    $5, BX
	VMOVUPS (SI)(BX*1), Y0
	VADDPS  Y15, Y0, Y0
	VMULPS  Y14, Y0, Y1
	VMAXPS  Y1, Y0, Y0
	VMOVUPS Y0, (R12)
	VMAXPS  Y0, Y12, Y12
	ADDQ    $32, R12
	INCQ    AX
	CMPQ    AX, CX
	JLT     score

	LOADEXP
	VXORPD Y14, Y14, Y14
	VXORPD Y13, Y13, Y13
	XORQ   AX, AX
	MOVQ   R11, R12

exps:
	VMOVUPS (R12), Y0
	VSUBPS  Y12, Y0, Y0
	EXP
	VMOVUPS Y3, (R12)
	SUM
	ADDQ    $32, R12
	INCQ    AX
	CMPQ    AX, CX
	JLT     exps

	RECIP
	XORQ AX, AX
	MOVQ R11, R12

norm:
	LEAQ       16(AX), BX
	CMPQ       BX, CX
	JGE        norm1
	MOVLQSX    (R10)(BX*4), BX
	SHLQ       $5, BX
	PREFETCHT0 (DI)(BX*1)

norm1:
	VMOVUPS (R12), Y0
	VMULPS  Y14, Y0, Y0
	MOVLQSX (R10)(AX*4), BX
	SHLQ    $5, BX
	VMOVUPS Y0, (DI)(BX*1)
	ADDQ    $32, R12
	INCQ    AX
	CMPQ    AX, CX
	JLT     norm
	VZEROUPPER
	RET

// func attnBwd8(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32)
//
// One destination group of n >= 1 edges: the sums s of y*dy over the
// group's rows y[eids[i]], dy[eids[i]], then ds[eids[i]] = y*(dy - s),
// times slope where el[idx[i]] + er <= 0. Rows are 8 floats; the edge rows
// 16 edges ahead are prefetched in the first pass, the el rows in the
// second.
TEXT ·attnBwd8(SB), NOSPLIT, $0-68
	MOVQ         ds+0(FP), DI
	MOVQ         el+8(FP), SI
	MOVQ         er+16(FP), R8
	MOVQ         y+24(FP), R12
	MOVQ         dy+32(FP), R13
	MOVQ         idx+40(FP), R9
	MOVQ         eids+48(FP), R10
	MOVQ         n+56(FP), CX
	VBROADCASTSS slope+64(FP), Y14
	VMOVUPS      (R8), Y15
	VXORPD       Y10, Y10, Y10
	VXORPD       Y9, Y9, Y9
	XORQ         AX, AX

sums:
	LEAQ       16(AX), BX
	CMPQ       BX, CX
	JGE        sums1
	MOVLQSX    (R10)(BX*4), BX
	SHLQ       $5, BX
	PREFETCHT0 (R12)(BX*1)
	PREFETCHT0 (R13)(BX*1)
	PREFETCHT0 (DI)(BX*1)

sums1:
	MOVLQSX (R10)(AX*4), BX
	SHLQ    $5, BX
	VMOVUPS (R12)(BX*1), Y0
	VMOVUPS (R13)(BX*1), Y3
	WIDEN(Y0, X0, Y1, Y2, X2)
	WIDEN(Y3, X3, Y4, Y5, X5)
	VMULPD  Y4, Y1, Y1
	VMULPD  Y5, Y2, Y2
	VADDPD  Y1, Y10, Y10
	VADDPD  Y2, Y9, Y9
	INCQ    AX
	CMPQ    AX, CX
	JLT     sums

	VXORPS Y13, Y13, Y13
	XORQ   AX, AX

grad:
	LEAQ       16(AX), BX
	CMPQ       BX, CX
	JGE        grad1
	MOVLQSX    (R9)(BX*4), BX
	SHLQ       $5, BX
	PREFETCHT0 (SI)(BX*1)

grad1:
	MOVLQSX   (R10)(AX*4), BX
	SHLQ      $5, BX
	VMOVUPS   (R12)(BX*1), Y0
	VMOVUPS   (R13)(BX*1), Y3
	WIDEN(Y0, X0, Y1, Y2, X2)
	WIDEN(Y3, X3, Y4, Y5, X5)
	VSUBPD    Y10, Y4, Y4
	VSUBPD    Y9, Y5, Y5
	VMULPD    Y4, Y1, Y1
	VMULPD    Y5, Y2, Y2
	NARROW(Y1, X1, Y2, X2, Y6)
	MOVLQSX   (R9)(AX*4), DX
	SHLQ      $5, DX
	VMOVUPS   (SI)(DX*1), Y7
	VADDPS    Y15, Y7, Y7
	VCMPPS    $0x02, Y13, Y7, Y8
	VMULPS    Y14, Y6, Y11
	VBLENDVPS Y8, Y11, Y6, Y6
	VMOVUPS   Y6, (DI)(BX*1)
	INCQ      AX
	CMPQ      AX, CX
	JLT       grad
	VZEROUPPER
	RET

// func expShift1(x *float32, n int, m float32) float64
//
// Sets x[i] = e^(x[i] - m) for i < n, n a multiple of 8, with EXP, and
// returns the float64 sum of the exponentials: the softmax step of a group
// with one head, whose scores lie contiguously in x.
TEXT ·expShift1(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	VBROADCASTSS m+16(FP), Y12
	LOADEXP
	VXORPD       Y14, Y14, Y14
	VXORPD       Y13, Y13, Y13
	XORQ         AX, AX
	CMPQ         AX, CX
	JGE          sum1

exp1:
	VMOVUPS (DI)(AX*4), Y0
	VSUBPS  Y12, Y0, Y0
	EXP
	VMOVUPS Y3, (DI)(AX*4)
	SUM
	ADDQ    $8, AX
	CMPQ    AX, CX
	JLT     exp1

sum1:
	VADDPD       Y13, Y14, Y14
	VEXTRACTF128 $1, Y14, X13
	VADDPD       X13, X14, X14
	VHADDPD      X14, X14, X14
	VZEROUPPER
	MOVSD        X14, ret+24(FP)
	RET
