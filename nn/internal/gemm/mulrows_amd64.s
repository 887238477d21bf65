//go:build amd64 && !purego

#include "textflag.h"

// The forward kernel for a short shared dimension: register tiles of 12
// (then 4, then 1) rows by 8 columns, each tile over all of c's columns in
// one call. Every output element is one chain of fused multiply-adds over
// the shared dimension in order, as in tile_amd64.s.

// FMA12 adds to Y0..Y11 Y12 times the broadcast floats at (P0), (P0)(S),
// (P0)(2S), (P0)(3S), then the same from P4 and P8: twelve rows of a
// (stride S in R12, 3S in R13) against one block of b.
#define FMA12(P0, P4, P8) \
	VBROADCASTSS (P0), Y13 \
	VFMADD231PS  Y12, Y13, Y0 \
	VBROADCASTSS (P0)(R12*1), Y14 \
	VFMADD231PS  Y12, Y14, Y1 \
	VBROADCASTSS (P0)(R12*2), Y15 \
	VFMADD231PS  Y12, Y15, Y2 \
	VBROADCASTSS (P0)(R13*1), Y13 \
	VFMADD231PS  Y12, Y13, Y3 \
	VBROADCASTSS (P4), Y14 \
	VFMADD231PS  Y12, Y14, Y4 \
	VBROADCASTSS (P4)(R12*1), Y15 \
	VFMADD231PS  Y12, Y15, Y5 \
	VBROADCASTSS (P4)(R12*2), Y13 \
	VFMADD231PS  Y12, Y13, Y6 \
	VBROADCASTSS (P4)(R13*1), Y14 \
	VFMADD231PS  Y12, Y14, Y7 \
	VBROADCASTSS (P8), Y15 \
	VFMADD231PS  Y12, Y15, Y8 \
	VBROADCASTSS (P8)(R12*1), Y13 \
	VFMADD231PS  Y12, Y13, Y9 \
	VBROADCASTSS (P8)(R12*2), Y14 \
	VFMADD231PS  Y12, Y14, Y10 \
	VBROADCASTSS (P8)(R13*1), Y15 \
	VFMADD231PS  Y12, Y15, Y11

// func mulRowsF32(c, a, b *float32, n, k, m int)
//
// c (n x m) = a (n x k) times b (k x m), m a positive multiple of 8, n and
// k positive.
TEXT ·mulRowsF32(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ k+32(FP), R12
	SHLQ $2, R12 // bytes per row of a
	LEAQ (R12)(R12*2), R13
	MOVQ m+40(FP), R9
	SHLQ $2, R9 // bytes per row of b and c

m12:
	CMPQ R8, $12
	JLT  m4
	XORQ R10, R10 // byte offset of the column block

m12col:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	MOVQ   SI, AX
	LEAQ   (SI)(R12*4), BX
	LEAQ   (BX)(R12*4), R11
	LEAQ   (DX)(R10*1), R14
	MOVQ   k+32(FP), CX

m12loop:
	VMOVUPS (R14), Y12
	FMA12(AX, BX, R11)
	ADDQ    $4, AX
	ADDQ    $4, BX
	ADDQ    $4, R11
	ADDQ    R9, R14
	DECQ    CX
	JNZ     m12loop

	LEAQ    (DI)(R10*1), AX
	VMOVUPS Y0, (AX)
	ADDQ    R9, AX
	VMOVUPS Y1, (AX)
	ADDQ    R9, AX
	VMOVUPS Y2, (AX)
	ADDQ    R9, AX
	VMOVUPS Y3, (AX)
	ADDQ    R9, AX
	VMOVUPS Y4, (AX)
	ADDQ    R9, AX
	VMOVUPS Y5, (AX)
	ADDQ    R9, AX
	VMOVUPS Y6, (AX)
	ADDQ    R9, AX
	VMOVUPS Y7, (AX)
	ADDQ    R9, AX
	VMOVUPS Y8, (AX)
	ADDQ    R9, AX
	VMOVUPS Y9, (AX)
	ADDQ    R9, AX
	VMOVUPS Y10, (AX)
	ADDQ    R9, AX
	VMOVUPS Y11, (AX)
	ADDQ    $32, R10
	CMPQ    R10, R9
	JLT     m12col

	LEAQ (SI)(R12*8), SI
	LEAQ (SI)(R12*4), SI
	LEAQ (R9)(R9*2), AX
	LEAQ (DI)(AX*4), DI
	SUBQ $12, R8
	JMP  m12

m4:
	CMPQ R8, $4
	JLT  m1
	XORQ R10, R10

m4col:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   SI, AX
	LEAQ   (DX)(R10*1), R14
	MOVQ   k+32(FP), CX

m4loop:
	VMOVUPS      (R14), Y12
	VBROADCASTSS (AX), Y13
	VFMADD231PS  Y12, Y13, Y0
	VBROADCASTSS (AX)(R12*1), Y14
	VFMADD231PS  Y12, Y14, Y1
	VBROADCASTSS (AX)(R12*2), Y15
	VFMADD231PS  Y12, Y15, Y2
	VBROADCASTSS (AX)(R13*1), Y13
	VFMADD231PS  Y12, Y13, Y3
	ADDQ         $4, AX
	ADDQ         R9, R14
	DECQ         CX
	JNZ          m4loop

	LEAQ    (DI)(R10*1), AX
	VMOVUPS Y0, (AX)
	ADDQ    R9, AX
	VMOVUPS Y1, (AX)
	ADDQ    R9, AX
	VMOVUPS Y2, (AX)
	ADDQ    R9, AX
	VMOVUPS Y3, (AX)
	ADDQ    $32, R10
	CMPQ    R10, R9
	JLT     m4col

	LEAQ (SI)(R12*4), SI
	LEAQ (DI)(R9*4), DI
	SUBQ $4, R8
	JMP  m4

m1:
	TESTQ R8, R8
	JZ    mdone
	XORQ  R10, R10

m1col:
	VXORPS Y0, Y0, Y0
	MOVQ   SI, AX
	LEAQ   (DX)(R10*1), R14
	MOVQ   k+32(FP), CX

m1loop:
	VBROADCASTSS (AX), Y13
	VFMADD231PS  (R14), Y13, Y0
	ADDQ         $4, AX
	ADDQ         R9, R14
	DECQ         CX
	JNZ          m1loop

	VMOVUPS Y0, (DI)(R10*1)
	ADDQ    $32, R10
	CMPQ    R10, R9
	JLT     m1col

	ADDQ R12, SI
	ADDQ R9, DI
	DECQ R8
	JMP  m1

mdone:
	VZEROUPPER
	RET
