//go:build amd64 && !purego

#include "textflag.h"

// AVX2 kernels over the rows of row-major float32 matrices f columns wide
// (f a positive multiple of 8), for batch norm, bias and ReLU (rowkern.go
// says what each computes). Every element goes through the same IEEE
// operations, in the same order, as the Go loops they replace: separate
// multiplications and additions (no FMA), float64 sums over the rows in
// row order per column, so the bits do not change.

// func colSumF64F32(p *float64, x *float32, rows, f int)
TEXT ·colSumF64F32(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ rows+16(FP), DX
	MOVQ f+24(FP), R8
	MOVQ R8, R9
	SHLQ $2, R9
	XORQ CX, CX

sum16:
	LEAQ 16(CX), AX
	CMPQ AX, R8
	JGT  sum8
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	VMOVUPD 64(DI)(CX*8), Y2
	VMOVUPD 96(DI)(CX*8), Y3
	LEAQ    (SI)(CX*4), R10
	MOVQ    DX, R11
	TESTQ   R11, R11
	JLE     sum16st

sum16row:
	VCVTPS2PD (R10), Y4
	VCVTPS2PD 16(R10), Y5
	VCVTPS2PD 32(R10), Y6
	VCVTPS2PD 48(R10), Y7
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	VADDPD    Y6, Y2, Y2
	VADDPD    Y7, Y3, Y3
	ADDQ      R9, R10
	DECQ      R11
	JNZ       sum16row

sum16st:
	VMOVUPD Y0, (DI)(CX*8)
	VMOVUPD Y1, 32(DI)(CX*8)
	VMOVUPD Y2, 64(DI)(CX*8)
	VMOVUPD Y3, 96(DI)(CX*8)
	MOVQ    AX, CX
	JMP     sum16

sum8:
	LEAQ 8(CX), AX
	CMPQ AX, R8
	JGT  sumdone
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	LEAQ    (SI)(CX*4), R10
	MOVQ    DX, R11
	TESTQ   R11, R11
	JLE     sum8st

sum8row:
	VCVTPS2PD (R10), Y4
	VCVTPS2PD 16(R10), Y5
	VADDPD    Y4, Y0, Y0
	VADDPD    Y5, Y1, Y1
	ADDQ      R9, R10
	DECQ      R11
	JNZ       sum8row

sum8st:
	VMOVUPD Y0, (DI)(CX*8)
	VMOVUPD Y1, 32(DI)(CX*8)
	MOVQ    AX, CX
	JMP     sum8

sumdone:
	VZEROUPPER
	RET

// func colSqDevF64F32(p *float64, x *float32, mean *float64, rows, f int)
TEXT ·colSqDevF64F32(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ mean+16(FP), BX
	MOVQ rows+24(FP), DX
	MOVQ f+32(FP), R8
	MOVQ R8, R9
	SHLQ $2, R9
	XORQ CX, CX

sq16:
	LEAQ 16(CX), AX
	CMPQ AX, R8
	JGT  sq8
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	VMOVUPD 64(DI)(CX*8), Y2
	VMOVUPD 96(DI)(CX*8), Y3
	VMOVUPD (BX)(CX*8), Y4
	VMOVUPD 32(BX)(CX*8), Y5
	VMOVUPD 64(BX)(CX*8), Y6
	VMOVUPD 96(BX)(CX*8), Y7
	LEAQ    (SI)(CX*4), R10
	MOVQ    DX, R11
	TESTQ   R11, R11
	JLE     sq16st

sq16row:
	VCVTPS2PD (R10), Y8
	VCVTPS2PD 16(R10), Y9
	VCVTPS2PD 32(R10), Y10
	VCVTPS2PD 48(R10), Y11
	VSUBPD    Y4, Y8, Y8
	VSUBPD    Y5, Y9, Y9
	VSUBPD    Y6, Y10, Y10
	VSUBPD    Y7, Y11, Y11
	VMULPD    Y8, Y8, Y8
	VMULPD    Y9, Y9, Y9
	VMULPD    Y10, Y10, Y10
	VMULPD    Y11, Y11, Y11
	VADDPD    Y8, Y0, Y0
	VADDPD    Y9, Y1, Y1
	VADDPD    Y10, Y2, Y2
	VADDPD    Y11, Y3, Y3
	ADDQ      R9, R10
	DECQ      R11
	JNZ       sq16row

sq16st:
	VMOVUPD Y0, (DI)(CX*8)
	VMOVUPD Y1, 32(DI)(CX*8)
	VMOVUPD Y2, 64(DI)(CX*8)
	VMOVUPD Y3, 96(DI)(CX*8)
	MOVQ    AX, CX
	JMP     sq16

sq8:
	LEAQ 8(CX), AX
	CMPQ AX, R8
	JGT  sqdone
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	VMOVUPD (BX)(CX*8), Y4
	VMOVUPD 32(BX)(CX*8), Y5
	LEAQ    (SI)(CX*4), R10
	MOVQ    DX, R11
	TESTQ   R11, R11
	JLE     sq8st

sq8row:
	VCVTPS2PD (R10), Y8
	VCVTPS2PD 16(R10), Y9
	VSUBPD    Y4, Y8, Y8
	VSUBPD    Y5, Y9, Y9
	VMULPD    Y8, Y8, Y8
	VMULPD    Y9, Y9, Y9
	VADDPD    Y8, Y0, Y0
	VADDPD    Y9, Y1, Y1
	ADDQ      R9, R10
	DECQ      R11
	JNZ       sq8row

sq8st:
	VMOVUPD Y0, (DI)(CX*8)
	VMOVUPD Y1, 32(DI)(CX*8)
	MOVQ    AX, CX
	JMP     sq8

sqdone:
	VZEROUPPER
	RET

// func dySumsF64F32(ps, px *float64, x, dy *float32, rows, f int)
TEXT ·dySumsF64F32(SB), NOSPLIT, $0-48
	MOVQ ps+0(FP), DI
	MOVQ px+8(FP), BX
	MOVQ x+16(FP), SI
	MOVQ dy+24(FP), R12
	MOVQ rows+32(FP), DX
	MOVQ f+40(FP), R8
	MOVQ R8, R9
	SHLQ $2, R9
	XORQ CX, CX

dy16:
	LEAQ 16(CX), AX
	CMPQ AX, R8
	JGT  dy8
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	VMOVUPD 64(DI)(CX*8), Y2
	VMOVUPD 96(DI)(CX*8), Y3
	VMOVUPD (BX)(CX*8), Y4
	VMOVUPD 32(BX)(CX*8), Y5
	VMOVUPD 64(BX)(CX*8), Y6
	VMOVUPD 96(BX)(CX*8), Y7
	LEAQ    (SI)(CX*4), R10
	LEAQ    (R12)(CX*4), R13
	MOVQ    DX, R11
	TESTQ   R11, R11
	JLE     dy16st

dy16row:
	VCVTPS2PD (R13), Y8
	VCVTPS2PD 16(R13), Y9
	VCVTPS2PD 32(R13), Y10
	VCVTPS2PD 48(R13), Y11
	VCVTPS2PD (R10), Y12
	VCVTPS2PD 16(R10), Y13
	VCVTPS2PD 32(R10), Y14
	VCVTPS2PD 48(R10), Y15
	VADDPD    Y8, Y0, Y0
	VADDPD    Y9, Y1, Y1
	VADDPD    Y10, Y2, Y2
	VADDPD    Y11, Y3, Y3
	VMULPD    Y12, Y8, Y8
	VMULPD    Y13, Y9, Y9
	VMULPD    Y14, Y10, Y10
	VMULPD    Y15, Y11, Y11
	VADDPD    Y8, Y4, Y4
	VADDPD    Y9, Y5, Y5
	VADDPD    Y10, Y6, Y6
	VADDPD    Y11, Y7, Y7
	ADDQ      R9, R10
	ADDQ      R9, R13
	DECQ      R11
	JNZ       dy16row

dy16st:
	VMOVUPD Y0, (DI)(CX*8)
	VMOVUPD Y1, 32(DI)(CX*8)
	VMOVUPD Y2, 64(DI)(CX*8)
	VMOVUPD Y3, 96(DI)(CX*8)
	VMOVUPD Y4, (BX)(CX*8)
	VMOVUPD Y5, 32(BX)(CX*8)
	VMOVUPD Y6, 64(BX)(CX*8)
	VMOVUPD Y7, 96(BX)(CX*8)
	MOVQ    AX, CX
	JMP     dy16

dy8:
	LEAQ 8(CX), AX
	CMPQ AX, R8
	JGT  dydone
	VMOVUPD (DI)(CX*8), Y0
	VMOVUPD 32(DI)(CX*8), Y1
	VMOVUPD (BX)(CX*8), Y4
	VMOVUPD 32(BX)(CX*8), Y5
	LEAQ    (SI)(CX*4), R10
	LEAQ    (R12)(CX*4), R13
	MOVQ    DX, R11
	TESTQ   R11, R11
	JLE     dy8st

dy8row:
	VCVTPS2PD (R13), Y8
	VCVTPS2PD 16(R13), Y9
	VCVTPS2PD (R10), Y12
	VCVTPS2PD 16(R10), Y13
	VADDPD    Y8, Y0, Y0
	VADDPD    Y9, Y1, Y1
	VMULPD    Y12, Y8, Y8
	VMULPD    Y13, Y9, Y9
	VADDPD    Y8, Y4, Y4
	VADDPD    Y9, Y5, Y5
	ADDQ      R9, R10
	ADDQ      R9, R13
	DECQ      R11
	JNZ       dy8row

dy8st:
	VMOVUPD Y0, (DI)(CX*8)
	VMOVUPD Y1, 32(DI)(CX*8)
	VMOVUPD Y4, (BX)(CX*8)
	VMOVUPD Y5, 32(BX)(CX*8)
	MOVQ    AX, CX
	JMP     dy8

dydone:
	VZEROUPPER
	RET

// func colSumF32(p, x *float32, rows, f int)
TEXT ·colSumF32(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ rows+16(FP), DX
	MOVQ f+24(FP), R8
	MOVQ R8, R9
	SHLQ $2, R9
	XORQ CX, CX

cs32:
	LEAQ 32(CX), AX
	CMPQ AX, R8
	JGT  cs8
	VMOVUPS (DI)(CX*4), Y0
	VMOVUPS 32(DI)(CX*4), Y1
	VMOVUPS 64(DI)(CX*4), Y2
	VMOVUPS 96(DI)(CX*4), Y3
	LEAQ    (SI)(CX*4), R10
	MOVQ    DX, R11
	TESTQ   R11, R11
	JLE     cs32st

cs32row:
	VADDPS (R10), Y0, Y0
	VADDPS 32(R10), Y1, Y1
	VADDPS 64(R10), Y2, Y2
	VADDPS 96(R10), Y3, Y3
	ADDQ   R9, R10
	DECQ   R11
	JNZ    cs32row

cs32st:
	VMOVUPS Y0, (DI)(CX*4)
	VMOVUPS Y1, 32(DI)(CX*4)
	VMOVUPS Y2, 64(DI)(CX*4)
	VMOVUPS Y3, 96(DI)(CX*4)
	MOVQ    AX, CX
	JMP     cs32

cs8:
	LEAQ 8(CX), AX
	CMPQ AX, R8
	JGT  csdone
	VMOVUPS (DI)(CX*4), Y0
	LEAQ    (SI)(CX*4), R10
	MOVQ    DX, R11
	TESTQ   R11, R11
	JLE     cs8st

cs8row:
	VADDPS (R10), Y0, Y0
	ADDQ   R9, R10
	DECQ   R11
	JNZ    cs8row

cs8st:
	VMOVUPS Y0, (DI)(CX*4)
	MOVQ    AX, CX
	JMP     cs8

csdone:
	VZEROUPPER
	RET

// func shiftRowsF32(y, x, m, a, b *float32, rows, f, relu int)
TEXT ·shiftRowsF32(SB), NOSPLIT, $0-64
	MOVQ   y+0(FP), DI
	MOVQ   x+8(FP), SI
	MOVQ   m+16(FP), R10
	MOVQ   a+24(FP), R11
	MOVQ   b+32(FP), R12
	MOVQ   rows+40(FP), DX
	MOVQ   f+48(FP), R8
	MOVQ   relu+56(FP), R13
	MOVQ   R8, R9
	SHLQ   $2, R9
	VXORPS Y15, Y15, Y15
	TESTQ  DX, DX
	JLE    shdone

shrow:
	XORQ CX, CX

shcol:
	VMOVUPS (SI)(CX*4), Y0
	VSUBPS  (R10)(CX*4), Y0, Y0
	VMULPS  (R11)(CX*4), Y0, Y0
	VADDPS  Y15, Y0, Y0
	VADDPS  (R12)(CX*4), Y0, Y0
	TESTQ   R13, R13
	JZ      shst
	VMAXPS  Y0, Y15, Y0

shst:
	VMOVUPS Y0, (DI)(CX*4)
	ADDQ    $8, CX
	CMPQ    CX, R8
	JLT     shcol
	ADDQ    R9, SI
	ADDQ    R9, DI
	DECQ    DX
	JNZ     shrow

shdone:
	VZEROUPPER
	RET

// func affineRowsF32(y, u, v, m, a, c, b *float32, rows, f int)
TEXT ·affineRowsF32(SB), NOSPLIT, $0-72
	MOVQ  y+0(FP), DI
	MOVQ  u+8(FP), BX
	MOVQ  v+16(FP), SI
	MOVQ  m+24(FP), R10
	MOVQ  a+32(FP), R11
	MOVQ  c+40(FP), R12
	MOVQ  b+48(FP), R13
	MOVQ  rows+56(FP), DX
	MOVQ  f+64(FP), R8
	MOVQ  R8, R9
	SHLQ  $2, R9
	TESTQ DX, DX
	JLE   afdone

afrow:
	XORQ CX, CX

afcol:
	VMOVUPS (BX)(CX*4), Y0
	VMULPS  (R11)(CX*4), Y0, Y0
	VMOVUPS (SI)(CX*4), Y1
	VSUBPS  (R10)(CX*4), Y1, Y1
	VMULPS  (R12)(CX*4), Y1, Y1
	VADDPS  Y1, Y0, Y0
	VADDPS  (R13)(CX*4), Y0, Y0
	VMOVUPS Y0, (DI)(CX*4)
	ADDQ    $8, CX
	CMPQ    CX, R8
	JLT     afcol
	ADDQ    R9, BX
	ADDQ    R9, SI
	ADDQ    R9, DI
	DECQ    DX
	JNZ     afrow

afdone:
	VZEROUPPER
	RET

// func addRowsBiasF32(y, b *float32, rows, f int)
TEXT ·addRowsBiasF32(SB), NOSPLIT, $0-32
	MOVQ  y+0(FP), DI
	MOVQ  b+8(FP), R10
	MOVQ  rows+16(FP), DX
	MOVQ  f+24(FP), R8
	MOVQ  R8, R9
	SHLQ  $2, R9
	TESTQ DX, DX
	JLE   abdone

abrow:
	XORQ CX, CX

abcol:
	VMOVUPS (DI)(CX*4), Y0
	VADDPS  (R10)(CX*4), Y0, Y0
	VMOVUPS Y0, (DI)(CX*4)
	ADDQ    $8, CX
	CMPQ    CX, R8
	JLT     abcol
	ADDQ    R9, DI
	DECQ    DX
	JNZ     abrow

abdone:
	VZEROUPPER
	RET

// func reluGradF32(y, out, dy *float32, n int)
TEXT ·reluGradF32(SB), NOSPLIT, $0-32
	MOVQ   y+0(FP), DI
	MOVQ   out+8(FP), SI
	MOVQ   dy+16(FP), BX
	MOVQ   n+24(FP), DX
	VXORPS Y15, Y15, Y15
	XORQ   CX, CX
	CMPQ   DX, $32
	JLT    rg8

rg32:
	VMOVUPS (SI)(CX*4), Y0
	VMOVUPS 32(SI)(CX*4), Y1
	VMOVUPS 64(SI)(CX*4), Y2
	VMOVUPS 96(SI)(CX*4), Y3
	VCMPPS  $0x1e, Y15, Y0, Y0
	VCMPPS  $0x1e, Y15, Y1, Y1
	VCMPPS  $0x1e, Y15, Y2, Y2
	VCMPPS  $0x1e, Y15, Y3, Y3
	VANDPS  (BX)(CX*4), Y0, Y0
	VANDPS  32(BX)(CX*4), Y1, Y1
	VANDPS  64(BX)(CX*4), Y2, Y2
	VANDPS  96(BX)(CX*4), Y3, Y3
	VMOVUPS Y0, (DI)(CX*4)
	VMOVUPS Y1, 32(DI)(CX*4)
	VMOVUPS Y2, 64(DI)(CX*4)
	VMOVUPS Y3, 96(DI)(CX*4)
	ADDQ    $32, CX
	LEAQ    32(CX), AX
	CMPQ    AX, DX
	JLE     rg32

rg8:
	LEAQ 8(CX), AX
	CMPQ AX, DX
	JGT  rgdone
	VMOVUPS (SI)(CX*4), Y0
	VCMPPS  $0x1e, Y15, Y0, Y0
	VANDPS  (BX)(CX*4), Y0, Y0
	VMOVUPS Y0, (DI)(CX*4)
	MOVQ    AX, CX
	JMP     rg8

rgdone:
	VZEROUPPER
	RET
