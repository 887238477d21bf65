//go:build amd64 && !purego

#include "textflag.h"

// LOADT3 loads Y(x), Y(y), Y(z) from the 24 floats at (AX), STORET3 stores
// them, each then stepping AX a row of p (R10 bytes).
#define LOADT3(x, y, z) \
	VMOVUPS (AX), x \
	VMOVUPS 32(AX), y \
	VMOVUPS 64(AX), z \
	ADDQ    R10, AX

#define STORET3(x, y, z) \
	VMOVUPS x, (AX) \
	VMOVUPS y, 32(AX) \
	VMOVUPS z, 64(AX) \
	ADDQ    R10, AX

// LOADT1 loads Y0..Y3 from the 8 floats at (AX) in four rows of p;
// STORET1 stores them; both leave AX a row past them.
#define LOADT1 \
	VMOVUPS (AX), Y0 \
	ADDQ    R10, AX \
	VMOVUPS (AX), Y1 \
	ADDQ    R10, AX \
	VMOVUPS (AX), Y2 \
	ADDQ    R10, AX \
	VMOVUPS (AX), Y3 \
	ADDQ    R10, AX

#define STORET1 \
	VMOVUPS Y0, (AX) \
	ADDQ    R10, AX \
	VMOVUPS Y1, (AX) \
	ADDQ    R10, AX \
	VMOVUPS Y2, (AX) \
	ADDQ    R10, AX \
	VMOVUPS Y3, (AX) \
	ADDQ    R10, AX

// BCAST1 adds the four floats at (BX), broadcast, times Y12 to Y0..Y3.
#define BCAST1 \
	VBROADCASTSS (BX), Y13 \
	VFMADD231PS  Y12, Y13, Y0 \
	VBROADCASTSS 4(BX), Y14 \
	VFMADD231PS  Y12, Y14, Y1 \
	VBROADCASTSS 8(BX), Y15 \
	VFMADD231PS  Y12, Y15, Y2 \
	VBROADCASTSS 12(BX), Y13 \
	VFMADD231PS  Y12, Y13, Y3

// BCAST3 adds the broadcast float at addr times Y12, Y13, Y14 to x, y, z.
#define BCAST3(addr, x, y, z) \
	VBROADCASTSS addr, Y15 \
	VFMADD231PS  Y12, Y15, x \
	VFMADD231PS  Y13, Y15, y \
	VFMADD231PS  Y14, Y15, z

// ROW3 is one row of a 4 x 24 tile: three vectors of a's row at (AX),
// four floats of b's row at (BX), both then stepped a row.
#define ROW3 \
	VMOVUPS (AX), Y12 \
	VMOVUPS 32(AX), Y13 \
	VMOVUPS 64(AX), Y14 \
	BCAST3((BX), Y0, Y1, Y2) \
	BCAST3(4(BX), Y3, Y4, Y5) \
	BCAST3(8(BX), Y6, Y7, Y8) \
	BCAST3(12(BX), Y9, Y10, Y11) \
	ADDQ R12, AX \
	ADDQ R9, BX

// func tmulF32(p, a, b *float32, r, f, h, lda, ldb, ldp int, mask *int32, next int)
//
// p (h x f, rows ldp floats apart, ldp at least f rounded up to 8) += the
// transpose of b (r x h, rows ldb apart) times a (r x f, rows lda apart):
// the weight gradient of a layer, transposed, with a's features in the
// vector lanes. h is a positive multiple of 4, r and f are positive; mask
// holds 8 int32, the lanes of a's last f mod 8 columns set, so that the
// masked load of the last vector of a row reads nothing past it. Tiles of
// p are 4 rows by 24 columns (12 accumulators: three loads of a and four
// broadcasts of b for 12 FMAs), then 4 by 8; each element of p is one chain
// of fused multiply-adds over the rows in order. The first group of rows
// of p of a tile prefetches, for each row of a, the tile's columns next
// bytes further (the rows of the next call, which reads them in the same
// order) and the next tile's: the rows are a stride apart, a pattern that
// the hardware does not follow.
TEXT ·tmulF32(SB), NOSPLIT, $0-88
	MOVQ p+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ next+80(FP), R8
	MOVQ lda+48(FP), R12
	SHLQ $2, R12
	MOVQ ldb+56(FP), R9
	SHLQ $2, R9
	MOVQ ldp+64(FP), R10
	SHLQ $2, R10
	XORQ R14, R14 // byte offset of the tile's columns

f3:
	MOVQ f+32(FP), AX
	SHRQ $3, AX
	SHLQ $5, AX // bytes of a's full vectors
	LEAQ 96(R14), BX
	CMPQ BX, AX
	JGT  f1
	LEAQ (DI)(R14*1), R13 // the tile in p's first row
	XORQ R11, R11         // byte offset of the group's 4 rows of p in b's rows

f3group:
	MOVQ  R13, AX
	LOADT3(Y0, Y1, Y2)
	LOADT3(Y3, Y4, Y5)
	LOADT3(Y6, Y7, Y8)
	LOADT3(Y9, Y10, Y11)
	LEAQ  (SI)(R14*1), AX
	LEAQ  (DX)(R11*1), BX
	MOVQ  r+24(FP), CX
	TESTQ R11, R11
	JNZ   f3loop

f3first:
	PREFETCHT0 (AX)(R8*1)
	PREFETCHT0 64(AX)(R8*1)
	PREFETCHT0 192(AX)
	PREFETCHT0 224(AX)
	ROW3
	DECQ       CX
	JNZ        f3first
	JMP        f3store

f3loop:
	ROW3
	DECQ CX
	JNZ  f3loop

f3store:
	MOVQ R13, AX
	STORET3(Y0, Y1, Y2)
	STORET3(Y3, Y4, Y5)
	STORET3(Y6, Y7, Y8)
	STORET3(Y9, Y10, Y11)
	MOVQ AX, R13
	ADDQ $16, R11
	MOVQ h+40(FP), AX
	SHLQ $2, AX
	CMPQ R11, AX
	JLT  f3group

	ADDQ $96, R14
	JMP  f3

f1:
	MOVQ f+32(FP), AX
	SHRQ $3, AX
	SHLQ $5, AX
	CMPQ R14, AX
	JGE  fmask
	LEAQ (DI)(R14*1), R13
	XORQ R11, R11

f1group:
	MOVQ R13, AX
	LOADT1
	LEAQ (SI)(R14*1), AX
	LEAQ (DX)(R11*1), BX
	MOVQ r+24(FP), CX

f1loop:
	VMOVUPS (AX), Y12
	BCAST1
	ADDQ    R12, AX
	ADDQ    R9, BX
	DECQ    CX
	JNZ     f1loop

	MOVQ R13, AX
	STORET1
	MOVQ AX, R13
	ADDQ $16, R11
	MOVQ h+40(FP), AX
	SHLQ $2, AX
	CMPQ R11, AX
	JLT  f1group

	ADDQ $32, R14
	JMP  f1

fmask:
	MOVQ    f+32(FP), AX
	ANDQ    $7, AX
	JZ      fdone
	MOVQ    mask+72(FP), AX
	VMOVDQU (AX), Y11
	LEAQ    (DI)(R14*1), R13
	XORQ    R11, R11

fmgroup:
	MOVQ R13, AX
	LOADT1
	LEAQ (SI)(R14*1), AX
	LEAQ (DX)(R11*1), BX
	MOVQ r+24(FP), CX

fmloop:
	VMASKMOVPS (AX), Y11, Y12
	BCAST1
	ADDQ       R12, AX
	ADDQ       R9, BX
	DECQ       CX
	JNZ        fmloop

	MOVQ R13, AX
	STORET1
	MOVQ AX, R13
	ADDQ $16, R11
	MOVQ h+40(FP), AX
	SHLQ $2, AX
	CMPQ R11, AX
	JLT  fmgroup

fdone:
	VZEROUPPER
	RET
