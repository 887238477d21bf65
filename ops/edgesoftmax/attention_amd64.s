//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 kernels of GAT's attention with eight heads in float32: one row
// of 8 floats (32 bytes) per edge and per node, one destination group per
// call. They compute what attentionRows and attentionBackRows compute, in
// the same order and precision (float64 exponentials, sums and quotients),
// except that e^x comes from a polynomial here and from a table there:
// results agree to a float32 rounding.

// Constants of EXP4, by offset: 0 log2(e); 8 and 16 ln2 split in a high and
// a low part; 24 the cut-off -708, below which e^x is taken as 0; 32 to 88
// the Taylor coefficients 1/k! for k = 1 (also k = 0) to 8; 96 the float64
// exponent bias; 104 float32 -Inf.
DATA expc<>+0(SB)/8, $1.4426950408889634
DATA expc<>+8(SB)/8, $0.6931471803691238
DATA expc<>+16(SB)/8, $1.9082149292705877e-10
DATA expc<>+24(SB)/8, $-708.0
DATA expc<>+32(SB)/8, $1.0
DATA expc<>+40(SB)/8, $0.5
DATA expc<>+48(SB)/8, $0.16666666666666666
DATA expc<>+56(SB)/8, $0.041666666666666664
DATA expc<>+64(SB)/8, $0.008333333333333333
DATA expc<>+72(SB)/8, $0.001388888888888889
DATA expc<>+80(SB)/8, $0.0001984126984126984
DATA expc<>+88(SB)/8, $2.48015873015873e-05
DATA expc<>+96(SB)/8, $1023
DATA expc<>+104(SB)/4, $0xff800000
GLOBL expc<>(SB), RODATA|NOPTR, $108

// HORNER sets P = P*R + c, c the float64 at expc<>+off, with T as scratch.
#define HORNER(R, P, T, off) \
	VMULPD       R, P, P; \
	VBROADCASTSD expc<>+off(SB), T; \
	VADDPD       T, P, P

// EXP4 sets Y to e^Y in four float64 lanes, with T1, T2, T3, T4 and XT2
// (the low half of T2) as scratch: x = n*ln2 + r with n = round(x*log2(e))
// and |r| <= ln2/2, e^r from its Taylor polynomial of degree 8 (truncation
// below 3e-10 relative), 2^n built in the exponent bits. Lanes below -708,
// -Inf included, give 0; NaN stays NaN (VMAXPD returns its second source
// for NaN, and n = round(NaN) converts to a 2^n of 1).
#define EXP4(Y, T1, T2, XT2, T3, T4) \
	VBROADCASTSD expc<>+24(SB), T1; \
	VCMPPD       $0x1d, T1, Y, T3; \
	VCMPPD       $0x03, Y, Y, T2; \
	VORPD        T2, T3, T3; \
	VMAXPD       Y, T1, Y; \
	VBROADCASTSD expc<>+0(SB), T1; \
	VMULPD       T1, Y, T2; \
	VROUNDPD     $0, T2, T2; \
	VBROADCASTSD expc<>+8(SB), T1; \
	VMULPD       T2, T1, T1; \
	VSUBPD       T1, Y, Y; \
	VBROADCASTSD expc<>+16(SB), T1; \
	VMULPD       T2, T1, T1; \
	VSUBPD       T1, Y, Y; \
	VCVTPD2DQY   T2, XT2; \
	VPMOVSXDQ    XT2, T2; \
	VPBROADCASTQ expc<>+96(SB), T1; \
	VPADDQ       T1, T2, T2; \
	VPSLLQ       $52, T2, T2; \
	VBROADCASTSD expc<>+88(SB), T1; \
	HORNER(Y, T1, T4, 80); \
	HORNER(Y, T1, T4, 72); \
	HORNER(Y, T1, T4, 64); \
	HORNER(Y, T1, T4, 56); \
	HORNER(Y, T1, T4, 48); \
	HORNER(Y, T1, T4, 40); \
	HORNER(Y, T1, T4, 32); \
	HORNER(Y, T1, T4, 32); \
	VMULPD       T2, T1, Y; \
	VANDPD       T3, Y, Y

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
	VBROADCASTSS expc<>+104(SB), Y13
	XORQ         AX, AX
	MOVQ         R11, DX

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
	VMOVUPS Y0, (DX)
	VMAXPS  Y0, Y13, Y13
	ADDQ    $32, DX
	INCQ    AX
	CMPQ    AX, CX
	JLT     score

	WIDEN(Y13, X13, Y12, Y11, X11)
	VXORPD Y10, Y10, Y10
	VXORPD Y9, Y9, Y9
	XORQ   AX, AX
	MOVQ   R11, DX

exps:
	VMOVUPS (DX), Y0
	WIDEN(Y0, X0, Y1, Y2, X2)
	VSUBPD  Y12, Y1, Y1
	VSUBPD  Y11, Y2, Y2
	EXP4(Y1, Y3, Y4, X4, Y5, Y6)
	EXP4(Y2, Y7, Y8, X8, Y13, Y14)
	VADDPD  Y1, Y10, Y10
	VADDPD  Y2, Y9, Y9
	NARROW(Y1, X1, Y2, X2, Y1)
	VMOVUPS Y1, (DX)
	ADDQ    $32, DX
	INCQ    AX
	CMPQ    AX, CX
	JLT     exps

	VBROADCASTSD expc<>+32(SB), Y0
	VDIVPD       Y10, Y0, Y10
	VDIVPD       Y9, Y0, Y9
	XORQ         AX, AX
	MOVQ         R11, DX

norm:
	LEAQ       16(AX), BX
	CMPQ       BX, CX
	JGE        norm1
	MOVLQSX    (R10)(BX*4), BX
	SHLQ       $5, BX
	PREFETCHT0 (DI)(BX*1)

norm1:
	VMOVUPS (DX), Y0
	WIDEN(Y0, X0, Y1, Y2, X2)
	VMULPD  Y10, Y1, Y1
	VMULPD  Y9, Y2, Y2
	NARROW(Y1, X1, Y2, X2, Y1)
	MOVLQSX (R10)(AX*4), BX
	SHLQ    $5, BX
	VMOVUPS Y1, (DI)(BX*1)
	ADDQ    $32, DX
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
// Sets x[i] = e^(x[i] - m) for i < n, n a multiple of 4, computing in
// float64 and rounding to float32, and returns the sum of the unrounded
// exponentials: the softmax step of a group with one head, whose scores
// lie contiguously in x.
TEXT ·expShift1(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), DI
	MOVQ         n+8(FP), CX
	MOVSS        m+16(FP), X12
	VCVTSS2SD    X12, X12, X12
	VBROADCASTSD X12, Y12
	VXORPD       Y10, Y10, Y10
	XORQ         AX, AX
	CMPQ         AX, CX
	JGE          sum1

exp1:
	VCVTPS2PD  (DI)(AX*4), Y1
	VSUBPD     Y12, Y1, Y1
	EXP4(Y1, Y3, Y4, X4, Y5, Y6)
	VADDPD     Y1, Y10, Y10
	VCVTPD2PSY Y1, X1
	VMOVUPS    X1, (DI)(AX*4)
	ADDQ       $4, AX
	CMPQ       AX, CX
	JLT        exp1

sum1:
	VEXTRACTF128 $1, Y10, X11
	VADDPD       X11, X10, X10
	VHADDPD      X10, X10, X10
	VZEROUPPER
	MOVSD        X10, ret+24(FP)
	RET
