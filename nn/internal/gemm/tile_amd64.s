//go:build amd64 && !purego

#include "textflag.h"

// AVX2 and FMA kernels of the blocked float32 products: one block of
// columns of c (16 or 8 wide) times a panel of the shared dimension. As in
// gemm_amd64.s, every output element is one chain of fused multiply-adds
// over the shared dimension in order: a call with acc = 0 starts the chain
// at zero, and a call with acc != 0 continues it from the float32 in c, so
// splitting the shared dimension into panels, or the rows into tiles or
// tasks, leaves the bits unchanged.

// LOAD2 sets lo, hi to the 16 floats of c at (AX) and steps AX a row of c;
// STORE2 stores them; ZERO2 zeroes them.
#define ZERO2(lo, hi) \
	VXORPS lo, lo, lo \
	VXORPS hi, hi, hi

#define LOAD2(lo, hi) \
	VMOVUPS (AX), lo \
	VMOVUPS 32(AX), hi \
	ADDQ    R10, AX

#define STORE2(lo, hi) \
	VMOVUPS lo, (AX) \
	VMOVUPS hi, 32(AX) \
	ADDQ    R10, AX

// ROW2 adds the broadcast float at addr times Y12:Y13 to lo:hi, through
// the scratch register t.
#define ROW2(addr, t, lo, hi) \
	VBROADCASTSS addr, t \
	VFMADD231PS  Y12, t, lo \
	VFMADD231PS  Y13, t, hi

// STEP6 is one step of the shared dimension for the 6-row tile: b's row
// at R14 (then stepped a row), a's six rows at d(AX) and d(BX) with row
// stride R12.
#define STEP6(d) \
	VMOVUPS (R14), Y12 \
	VMOVUPS 32(R14), Y13 \
	ROW2(d(AX), Y14, Y0, Y1) \
	ROW2(d(AX)(R12*1), Y15, Y2, Y3) \
	ROW2(d(AX)(R12*2), Y14, Y4, Y5) \
	ROW2(d(BX), Y15, Y6, Y7) \
	ROW2(d(BX)(R12*1), Y14, Y8, Y9) \
	ROW2(d(BX)(R12*2), Y15, Y10, Y11) \
	ADDQ R9, R14

// func mul16F32(c, a, b *float32, n, k, lda, ldb, ldc, acc int)
//
// c (n x 16, rows ldc floats apart) = a (n x k, rows lda apart) times b
// (k x 16, rows ldb apart), plus c itself when acc != 0; n and k positive.
// Rows go in tiles of 6 (12 accumulators, two loads of b and six
// broadcasts of a for 12 FMAs), then 3, then 1.
TEXT ·mul16F32(SB), NOSPLIT, $0-72
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ lda+40(FP), R12
	SHLQ $2, R12
	LEAQ (R12)(R12*2), R13
	MOVQ ldb+48(FP), R9
	SHLQ $2, R9
	MOVQ ldc+56(FP), R10
	SHLQ $2, R10

t6:
	CMPQ  R8, $6
	JLT   t3
	MOVQ  DI, AX
	CMPQ  acc+64(FP), $0
	JZ    t6zero
	LOAD2(Y0, Y1)
	LOAD2(Y2, Y3)
	LOAD2(Y4, Y5)
	LOAD2(Y6, Y7)
	LOAD2(Y8, Y9)
	LOAD2(Y10, Y11)
	JMP   t6go

t6zero:
	ZERO2(Y0, Y1)
	ZERO2(Y2, Y3)
	ZERO2(Y4, Y5)
	ZERO2(Y6, Y7)
	ZERO2(Y8, Y9)
	ZERO2(Y10, Y11)

t6go:
	MOVQ SI, AX
	LEAQ (SI)(R13*1), BX
	LEAQ (BX)(R12*4), R11
	ADDQ R13, R11 // row 4 of the next tile
	MOVQ DX, R14
	MOVQ k+32(FP), CX

t6loop16:
	CMPQ       CX, $16
	JLT        t6tail
	PREFETCHT0 (AX)(R13*2)
	PREFETCHT0 (BX)(R12*4)
	PREFETCHT0 (AX)(R12*8)
	PREFETCHT0 (BX)(R13*2)
	PREFETCHT0 (R11)
	PREFETCHT0 (BX)(R12*8)
	STEP6(0)
	STEP6(4)
	STEP6(8)
	STEP6(12)
	STEP6(16)
	STEP6(20)
	STEP6(24)
	STEP6(28)
	STEP6(32)
	STEP6(36)
	STEP6(40)
	STEP6(44)
	STEP6(48)
	STEP6(52)
	STEP6(56)
	STEP6(60)
	ADDQ       $64, AX
	ADDQ       $64, BX
	ADDQ       $64, R11
	SUBQ       $16, CX
	JMP        t6loop16

t6tail:
	TESTQ CX, CX
	JZ    t6store

t6loop:
	STEP6(0)
	ADDQ $4, AX
	ADDQ $4, BX
	DECQ CX
	JNZ  t6loop

t6store:
	MOVQ DI, AX
	STORE2(Y0, Y1)
	STORE2(Y2, Y3)
	STORE2(Y4, Y5)
	STORE2(Y6, Y7)
	STORE2(Y8, Y9)
	STORE2(Y10, Y11)
	MOVQ AX, DI
	LEAQ (SI)(R13*2), SI
	SUBQ $6, R8
	JMP  t6

t3:
	CMPQ  R8, $3
	JLT   t1
	MOVQ  DI, AX
	CMPQ  acc+64(FP), $0
	JZ    t3zero
	LOAD2(Y0, Y1)
	LOAD2(Y2, Y3)
	LOAD2(Y4, Y5)
	JMP   t3go

t3zero:
	ZERO2(Y0, Y1)
	ZERO2(Y2, Y3)
	ZERO2(Y4, Y5)

t3go:
	MOVQ SI, AX
	MOVQ DX, R14
	MOVQ k+32(FP), CX

t3loop:
	VMOVUPS (R14), Y12
	VMOVUPS 32(R14), Y13
	ROW2((AX), Y14, Y0, Y1)
	ROW2((AX)(R12*1), Y15, Y2, Y3)
	ROW2((AX)(R12*2), Y14, Y4, Y5)
	ADDQ $4, AX
	ADDQ R9, R14
	DECQ CX
	JNZ  t3loop

	MOVQ DI, AX
	STORE2(Y0, Y1)
	STORE2(Y2, Y3)
	STORE2(Y4, Y5)
	MOVQ AX, DI
	ADDQ R13, SI
	SUBQ $3, R8
	JMP  t3

t1:
	TESTQ R8, R8
	JZ    t16done
	MOVQ  DI, AX
	CMPQ  acc+64(FP), $0
	JZ    t1zero
	LOAD2(Y0, Y1)
	JMP   t1go

t1zero:
	ZERO2(Y0, Y1)

t1go:
	MOVQ SI, AX
	MOVQ DX, R14
	MOVQ k+32(FP), CX

t1loop:
	VBROADCASTSS (AX), Y14
	VFMADD231PS  (R14), Y14, Y0
	VFMADD231PS  32(R14), Y14, Y1
	ADDQ         $4, AX
	ADDQ         R9, R14
	DECQ         CX
	JNZ          t1loop

	MOVQ DI, AX
	STORE2(Y0, Y1)
	MOVQ AX, DI
	ADDQ R12, SI
	DECQ R8
	JMP  t1

t16done:
	VZEROUPPER
	RET

// LOAD1 sets Y(r) to the 8 floats of c at (AX) and steps AX a row of c;
// STORE1 stores it.
#define LOAD1(r) \
	VMOVUPS (AX), r \
	ADDQ    R10, AX

#define STORE1(r) \
	VMOVUPS r, (AX) \
	ADDQ    R10, AX

#define ROW1(addr, t, acc) \
	VBROADCASTSS addr, t \
	VFMADD231PS  Y12, t, acc

// func mul8F32(c, a, b *float32, n, k, lda, ldb, ldc, acc int)
//
// mul16F32 for a block 8 columns wide: rows in tiles of 12 (12
// accumulators, one load of b and twelve broadcasts of a for 12 FMAs),
// then 4, then 1.
TEXT ·mul8F32(SB), NOSPLIT, $0-72
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ lda+40(FP), R12
	SHLQ $2, R12
	LEAQ (R12)(R12*2), R13
	MOVQ ldb+48(FP), R9
	SHLQ $2, R9
	MOVQ ldc+56(FP), R10
	SHLQ $2, R10
	MOVQ acc+64(FP), R11

e12:
	CMPQ  R8, $12
	JLT   e4
	MOVQ  DI, AX
	TESTQ R11, R11
	JZ    e12zero
	LOAD1(Y0)
	LOAD1(Y1)
	LOAD1(Y2)
	LOAD1(Y3)
	LOAD1(Y4)
	LOAD1(Y5)
	LOAD1(Y6)
	LOAD1(Y7)
	LOAD1(Y8)
	LOAD1(Y9)
	LOAD1(Y10)
	LOAD1(Y11)
	JMP   e12go

e12zero:
	ZERO2(Y0, Y1)
	ZERO2(Y2, Y3)
	ZERO2(Y4, Y5)
	ZERO2(Y6, Y7)
	ZERO2(Y8, Y9)
	ZERO2(Y10, Y11)

e12go:
	MOVQ SI, AX
	LEAQ (SI)(R12*4), BX
	LEAQ (BX)(R12*4), DX
	MOVQ b+16(FP), R14
	MOVQ k+32(FP), CX

e12loop:
	VMOVUPS (R14), Y12
	ROW1((AX), Y13, Y0)
	ROW1((AX)(R12*1), Y14, Y1)
	ROW1((AX)(R12*2), Y15, Y2)
	ROW1((AX)(R13*1), Y13, Y3)
	ROW1((BX), Y14, Y4)
	ROW1((BX)(R12*1), Y15, Y5)
	ROW1((BX)(R12*2), Y13, Y6)
	ROW1((BX)(R13*1), Y14, Y7)
	ROW1((DX), Y15, Y8)
	ROW1((DX)(R12*1), Y13, Y9)
	ROW1((DX)(R12*2), Y14, Y10)
	ROW1((DX)(R13*1), Y15, Y11)
	ADDQ $4, AX
	ADDQ $4, BX
	ADDQ $4, DX
	ADDQ R9, R14
	DECQ CX
	JNZ  e12loop

	MOVQ DI, AX
	STORE1(Y0)
	STORE1(Y1)
	STORE1(Y2)
	STORE1(Y3)
	STORE1(Y4)
	STORE1(Y5)
	STORE1(Y6)
	STORE1(Y7)
	STORE1(Y8)
	STORE1(Y9)
	STORE1(Y10)
	STORE1(Y11)
	MOVQ AX, DI
	LEAQ (SI)(R12*8), SI
	LEAQ (SI)(R12*4), SI
	SUBQ $12, R8
	JMP  e12

e4:
	MOVQ  b+16(FP), DX
	CMPQ  R8, $4
	JLT   e1
	MOVQ  DI, AX
	TESTQ R11, R11
	JZ    e4zero
	LOAD1(Y0)
	LOAD1(Y1)
	LOAD1(Y2)
	LOAD1(Y3)
	JMP   e4go

e4zero:
	ZERO2(Y0, Y1)
	ZERO2(Y2, Y3)

e4go:
	MOVQ SI, AX
	MOVQ DX, R14
	MOVQ k+32(FP), CX

e4loop:
	VMOVUPS (R14), Y12
	ROW1((AX), Y13, Y0)
	ROW1((AX)(R12*1), Y14, Y1)
	ROW1((AX)(R12*2), Y15, Y2)
	ROW1((AX)(R13*1), Y13, Y3)
	ADDQ $4, AX
	ADDQ R9, R14
	DECQ CX
	JNZ  e4loop

	MOVQ DI, AX
	STORE1(Y0)
	STORE1(Y1)
	STORE1(Y2)
	STORE1(Y3)
	MOVQ AX, DI
	LEAQ (SI)(R12*4), SI
	SUBQ $4, R8
	JMP  e4

e1:
	TESTQ R8, R8
	JZ    e8done
	VXORPS Y0, Y0, Y0
	TESTQ R11, R11
	JZ    e1go
	VMOVUPS (DI), Y0

e1go:
	MOVQ SI, AX
	MOVQ DX, R14
	MOVQ k+32(FP), CX

e1loop:
	VBROADCASTSS (AX), Y13
	VFMADD231PS  (R14), Y13, Y0
	ADDQ         $4, AX
	ADDQ         R9, R14
	DECQ         CX
	JNZ          e1loop

	VMOVUPS Y0, (DI)
	ADDQ    R10, DI
	ADDQ    R12, SI
	DECQ    R8
	JMP     e1

e8done:
	VZEROUPPER
	RET
