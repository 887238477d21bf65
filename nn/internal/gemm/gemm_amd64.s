//go:build amd64 && !purego

#include "textflag.h"

// func rowF32(c, a, b *float32, k, m int)
//
// c[0:m] = a[0:k] times b (k rows of m floats), m a positive multiple of 8,
// one block of 8 columns at a time. Within a block the products of row j
// of b go to accumulator j mod 4 (a fused multiply-add), and the four are
// added as (Y0+Y1)+(Y2+Y3): a fixed order, so results do not depend on
// scheduling.
TEXT ·rowF32(SB), NOSPLIT, $0-40
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ k+24(FP), CX
	MOVQ m+32(FP), R9
	SHLQ $2, R9 // bytes per row of b
	MOVQ CX, BX
	ANDQ $-4, BX // k rounded down to a multiple of 4
	XORQ R10, R10 // byte offset of the block

block:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	LEAQ   (DX)(R10*1), R11
	XORQ   AX, AX
	CMPQ   AX, BX
	JGE    tail

quad:
	VBROADCASTSS (SI)(AX*4), Y4
	VFMADD231PS  (R11), Y4, Y0
	ADDQ         R9, R11
	VBROADCASTSS 4(SI)(AX*4), Y5
	VFMADD231PS  (R11), Y5, Y1
	ADDQ         R9, R11
	VBROADCASTSS 8(SI)(AX*4), Y6
	VFMADD231PS  (R11), Y6, Y2
	ADDQ         R9, R11
	VBROADCASTSS 12(SI)(AX*4), Y7
	VFMADD231PS  (R11), Y7, Y3
	ADDQ         R9, R11
	ADDQ         $4, AX
	CMPQ         AX, BX
	JLT          quad

tail:
	CMPQ         AX, CX
	JGE          sum
	VBROADCASTSS (SI)(AX*4), Y4
	VFMADD231PS  (R11), Y4, Y0
	ADDQ         R9, R11
	INCQ         AX
	JMP          tail

sum:
	VADDPS  Y1, Y0, Y0
	VADDPS  Y3, Y2, Y2
	VADDPS  Y2, Y0, Y0
	VMOVUPS Y0, (DI)(R10*1)
	ADDQ    $32, R10
	CMPQ    R10, R9
	JLT     block
	VZEROUPPER
	RET

// func outerF32(p, a, b *float32, k, m int)
//
// p[j*m+l] += a[j]*b[l] for j < k and l < m (a fused multiply-add), m a
// positive multiple of 8.
TEXT ·outerF32(SB), NOSPLIT, $0-40
	MOVQ p+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ k+24(FP), CX
	MOVQ m+32(FP), R9
	SHLQ $2, R9 // bytes per row of p
	XORQ AX, AX

orow:
	VBROADCASTSS (SI)(AX*4), Y4
	XORQ         R10, R10

ocol:
	VMOVUPS     (DI)(R10*1), Y0
	VFMADD231PS (DX)(R10*1), Y4, Y0
	VMOVUPS     Y0, (DI)(R10*1)
	ADDQ        $32, R10
	CMPQ        R10, R9
	JLT         ocol
	ADDQ        R9, DI
	INCQ        AX
	CMPQ        AX, CX
	JLT         orow
	VZEROUPPER
	RET
