//go:build amd64 && !purego

#include "textflag.h"

// The weight-gradient kernel with the features of a broadcast and the
// columns of b in the vector lanes, in register tiles of 12 (then 4, then
// 1) rows of p by 8 columns; every element of p is one chain of fused
// multiply-adds over the rows in order.

// LOADP12 loads Y0..Y11 from twelve rows of p, R9 bytes apart from AX;
// STOREP12 stores them back.
#define LOADP12 \
	VMOVUPS (AX), Y0 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y1 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y2 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y3 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y4 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y5 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y6 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y7 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y8 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y9 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y10 \
	ADDQ    R9, AX \
	VMOVUPS (AX), Y11

#define STOREP12 \
	VMOVUPS Y0, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y1, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y2, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y3, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y4, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y5, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y6, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y7, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y8, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y9, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y10, (AX) \
	ADDQ    R9, AX \
	VMOVUPS Y11, (AX)

// func outerRowsF32(p, a, b *float32, n, k, lda, w int)
//
// p (k x w) += the transpose of a (n x k, rows lda floats apart) times b
// (n x w), w a positive multiple of 8, n and k positive: for each element of p, one chain of
// fused multiply-adds over the rows of a and b in order.
TEXT ·outerRowsF32(SB), NOSPLIT, $0-56
	MOVQ p+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ k+32(FP), R8
	MOVQ lda+40(FP), R12
	SHLQ $2, R12 // bytes per row of a
	MOVQ w+48(FP), R9
	SHLQ $2, R9 // bytes per row of b and p
	MOVQ n+24(FP), R13
	IMULQ R12, R13 // bytes of n rows of a: the distance to the next block

o12:
	CMPQ R8, $12
	JLT  o4
	XORQ R10, R10 // byte offset of the column block

o12col:
	LEAQ (DI)(R10*1), AX
	LOADP12
	MOVQ SI, AX
	LEAQ (DX)(R10*1), R14
	MOVQ n+24(FP), CX

o12loop:
	PREFETCHT0   64(AX)
	PREFETCHT0   (AX)(R13*1)
	VMOVUPS      (R14), Y12
	VBROADCASTSS (AX), Y13
	VFMADD231PS  Y12, Y13, Y0
	VBROADCASTSS 4(AX), Y14
	VFMADD231PS  Y12, Y14, Y1
	VBROADCASTSS 8(AX), Y15
	VFMADD231PS  Y12, Y15, Y2
	VBROADCASTSS 12(AX), Y13
	VFMADD231PS  Y12, Y13, Y3
	VBROADCASTSS 16(AX), Y14
	VFMADD231PS  Y12, Y14, Y4
	VBROADCASTSS 20(AX), Y15
	VFMADD231PS  Y12, Y15, Y5
	VBROADCASTSS 24(AX), Y13
	VFMADD231PS  Y12, Y13, Y6
	VBROADCASTSS 28(AX), Y14
	VFMADD231PS  Y12, Y14, Y7
	VBROADCASTSS 32(AX), Y15
	VFMADD231PS  Y12, Y15, Y8
	VBROADCASTSS 36(AX), Y13
	VFMADD231PS  Y12, Y13, Y9
	VBROADCASTSS 40(AX), Y14
	VFMADD231PS  Y12, Y14, Y10
	VBROADCASTSS 44(AX), Y15
	VFMADD231PS  Y12, Y15, Y11
	ADDQ         R12, AX
	ADDQ         R9, R14
	DECQ         CX
	JNZ          o12loop

	LEAQ (DI)(R10*1), AX
	STOREP12
	ADDQ $32, R10
	CMPQ R10, R9
	JLT  o12col

	ADDQ $48, SI
	LEAQ (R9)(R9*2), AX
	LEAQ (DI)(AX*4), DI
	SUBQ $12, R8
	JMP  o12

o4:
	CMPQ R8, $4
	JLT  o1
	XORQ R10, R10

o4col:
	LEAQ    (DI)(R10*1), AX
	VMOVUPS (AX), Y0
	VMOVUPS (AX)(R9*1), Y1
	VMOVUPS (AX)(R9*2), Y2
	LEAQ    (AX)(R9*2), AX
	VMOVUPS (AX)(R9*1), Y3
	MOVQ    SI, AX
	LEAQ    (DX)(R10*1), R14
	MOVQ    n+24(FP), CX

o4loop:
	VMOVUPS      (R14), Y12
	VBROADCASTSS (AX), Y13
	VFMADD231PS  Y12, Y13, Y0
	VBROADCASTSS 4(AX), Y14
	VFMADD231PS  Y12, Y14, Y1
	VBROADCASTSS 8(AX), Y15
	VFMADD231PS  Y12, Y15, Y2
	VBROADCASTSS 12(AX), Y13
	VFMADD231PS  Y12, Y13, Y3
	ADDQ         R12, AX
	ADDQ         R9, R14
	DECQ         CX
	JNZ          o4loop

	LEAQ    (DI)(R10*1), AX
	VMOVUPS Y0, (AX)
	VMOVUPS Y1, (AX)(R9*1)
	VMOVUPS Y2, (AX)(R9*2)
	LEAQ    (AX)(R9*2), AX
	VMOVUPS Y3, (AX)(R9*1)
	ADDQ    $32, R10
	CMPQ    R10, R9
	JLT     o4col

	ADDQ $16, SI
	LEAQ (DI)(R9*4), DI
	SUBQ $4, R8
	JMP  o4

o1:
	TESTQ R8, R8
	JZ    odone
	XORQ  R10, R10

o1col:
	VMOVUPS (DI)(R10*1), Y0
	MOVQ    SI, AX
	LEAQ    (DX)(R10*1), R14
	MOVQ    n+24(FP), CX

o1loop:
	VBROADCASTSS (AX), Y13
	VFMADD231PS  (R14), Y13, Y0
	ADDQ         R12, AX
	ADDQ         R9, R14
	DECQ         CX
	JNZ          o1loop

	VMOVUPS Y0, (DI)(R10*1)
	ADDQ    $32, R10
	CMPQ    R10, R9
	JLT     o1col

	ADDQ $4, SI
	ADDQ R9, DI
	DECQ R8
	JMP  o1

odone:
	VZEROUPPER
	RET

// ROWB adds the broadcast float at addr times Y12:Y13 to lo:hi, through t.
#define ROWB(addr, t, lo, hi) \
	VBROADCASTSS addr, t \
	VFMADD231PS  Y12, t, lo \
	VFMADD231PS  Y13, t, hi

// LOADQ and STOREQ move lo:hi from and to 16 floats of p at (BX), then
// step BX a row of p (R9 bytes).
#define LOADQ(lo, hi) \
	VMOVUPS (BX), lo \
	VMOVUPS 32(BX), hi \
	ADDQ    R9, BX

#define STOREQ(lo, hi) \
	VMOVUPS lo, (BX) \
	VMOVUPS hi, 32(BX) \
	ADDQ    R9, BX

// func outer16F32(p, a, b *float32, n, k, lda, w int)
//
// p (k x w) += the transpose of a (n x k, rows lda floats apart) times b
// (n x w), w a positive multiple of 16, n and k positive: tiles of 6 rows of p by 16 columns (12
// accumulators, two loads of b and six broadcasts of a for 12 FMAs), then
// single rows. Each element of p is one chain of fused multiply-adds over
// the rows in order. The loop prefetches the same columns n rows further,
// which the next call reads in the same order.
TEXT ·outer16F32(SB), NOSPLIT, $0-56
	MOVQ  p+0(FP), DI
	MOVQ  a+8(FP), SI
	MOVQ  b+16(FP), DX
	MOVQ  k+32(FP), R8
	MOVQ  lda+40(FP), R12
	SHLQ  $2, R12 // bytes per row of a
	MOVQ  w+48(FP), R9
	SHLQ  $2, R9 // bytes per row of b and p
	MOVQ  n+24(FP), R13
	IMULQ R12, R13 // bytes of n rows of a

q6:
	CMPQ R8, $6
	JLT  q1
	XORQ R10, R10 // byte offset of the column block

q6col:
	LEAQ (DI)(R10*1), BX
	LOADQ(Y0, Y1)
	LOADQ(Y2, Y3)
	LOADQ(Y4, Y5)
	LOADQ(Y6, Y7)
	LOADQ(Y8, Y9)
	LOADQ(Y10, Y11)
	MOVQ SI, AX
	LEAQ (DX)(R10*1), R14
	MOVQ n+24(FP), CX

q6loop:
	PREFETCHT0 (AX)(R13*1)
	VMOVUPS    (R14), Y12
	VMOVUPS    32(R14), Y13
	ROWB((AX), Y14, Y0, Y1)
	ROWB(4(AX), Y15, Y2, Y3)
	ROWB(8(AX), Y14, Y4, Y5)
	ROWB(12(AX), Y15, Y6, Y7)
	ROWB(16(AX), Y14, Y8, Y9)
	ROWB(20(AX), Y15, Y10, Y11)
	ADDQ       R12, AX
	ADDQ       R9, R14
	DECQ       CX
	JNZ        q6loop

	LEAQ (DI)(R10*1), BX
	STOREQ(Y0, Y1)
	STOREQ(Y2, Y3)
	STOREQ(Y4, Y5)
	STOREQ(Y6, Y7)
	STOREQ(Y8, Y9)
	STOREQ(Y10, Y11)
	ADDQ $64, R10
	CMPQ R10, R9
	JLT  q6col

	ADDQ $24, SI
	LEAQ (R9)(R9*2), AX
	LEAQ (DI)(AX*2), DI
	SUBQ $6, R8
	JMP  q6

q1:
	TESTQ R8, R8
	JZ    qdone
	XORQ  R10, R10

q1col:
	LEAQ (DI)(R10*1), BX
	LOADQ(Y0, Y1)
	MOVQ SI, AX
	LEAQ (DX)(R10*1), R14
	MOVQ n+24(FP), CX

q1loop:
	VBROADCASTSS (AX), Y14
	VFMADD231PS  (R14), Y14, Y0
	VFMADD231PS  32(R14), Y14, Y1
	ADDQ         R12, AX
	ADDQ         R9, R14
	DECQ         CX
	JNZ          q1loop

	LEAQ (DI)(R10*1), BX
	STOREQ(Y0, Y1)
	ADDQ $64, R10
	CMPQ R10, R9
	JLT  q1col

	ADDQ $4, SI
	ADDQ R9, DI
	DECQ R8
	JMP  q1

qdone:
	VZEROUPPER
	RET
