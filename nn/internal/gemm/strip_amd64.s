//go:build amd64 && !purego

#include "textflag.h"

// The forward kernel for a short shared dimension and a wide output, such
// as the input gradient of a first layer (n x h times h x F, h 8 to 64, F
// in the hundreds or thousands): a strip of 6 rows of c is swept across
// the blocks of 16 columns that a table lists in one call, each block a
// register tile of 6 rows by 16 columns over the whole shared dimension,
// stored straight into c with ordinary or non-temporal stores. Every
// output element is one chain of fused multiply-adds over the shared
// dimension in order, as in tile_amd64.s.

// SROW2 adds the broadcast float at addr times Y12:Y13 to lo:hi, through
// the scratch register t.
#define SROW2(addr, t, lo, hi) \
	VBROADCASTSS addr, t \
	VFMADD231PS  Y12, t, lo \
	VFMADD231PS  Y13, t, hi

// SSTEP is one step of the shared dimension: b's row of the block at
// bo(R14), a's six rows at ao(AX) and ao(BX), row stride R12. Over the
// steps of a block, R13 prefetches the next strip's rows of a, 6 rows of
// lda floats in 48 bytes a pair of steps.
#define SSTEP(bo, ao) \
	VMOVUPS bo(R14), Y12 \
	VMOVUPS bo+32(R14), Y13 \
	SROW2(ao(AX), Y14, Y0, Y1) \
	SROW2(ao(AX)(R12*1), Y15, Y2, Y3) \
	SROW2(ao(AX)(R12*2), Y14, Y4, Y5) \
	SROW2(ao(BX), Y15, Y6, Y7) \
	SROW2(ao(BX)(R12*1), Y14, Y8, Y9) \
	SROW2(ao(BX)(R12*2), Y15, Y10, Y11)

// SSTORE stores the tile to the rows at (R9), R10 bytes apart (R11 three
// rows), with the store instruction op, through AX.
#define SSTORE(op) \
	LEAQ (R9)(R11*1), AX \
	op   Y0, (R9) \
	op   Y1, 32(R9) \
	op   Y2, (R9)(R10*1) \
	op   Y3, 32(R9)(R10*1) \
	op   Y4, (R9)(R10*2) \
	op   Y5, 32(R9)(R10*2) \
	op   Y6, (AX) \
	op   Y7, 32(AX) \
	op   Y8, (AX)(R10*1) \
	op   Y9, 32(AX)(R10*1) \
	op   Y10, (AX)(R10*2) \
	op   Y11, 32(AX)(R10*2)

// func stripF32(c, a, b *float32, n, k, lda, ldc int, blocks *int32)
//
// c (n x m, rows ldc floats apart) = a (n x k, rows lda apart) times b,
// n a positive multiple of 6 and k positive, over the blocks of 16 columns
// that blocks lists, ended by a negative entry: 4j+f for the block of
// columns j to j+15, b packed in the same order, each block its k rows of
// 16 floats one after another. Flag f is 1 for non-temporal stores, whose
// rows of c must start on 32-byte boundaries; 2 for ordinary stores
// followed by a prefetch of c's lines 4 blocks ahead; 0 for ordinary
// stores alone, beside non-temporal ones, whose lines must not be read
// into the caches. Blocks may overlap: the columns they share are
// computed again, to the same bits.
TEXT ·stripF32(SB), NOSPLIT, $0-64
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+24(FP), R8
	MOVQ lda+40(FP), R12
	SHLQ $2, R12
	MOVQ ldc+48(FP), R10
	SHLQ $2, R10
	LEAQ (R10)(R10*2), R11

strip:
	CMPQ R8, $6
	JLT  done
	MOVQ b+16(FP), R14
	MOVQ blocks+56(FP), DX

blk:
	MOVLQSX (DX), CX
	TESTQ   CX, CX
	JS      nextstrip
	SHRQ    $2, CX
	LEAQ    (DI)(CX*4), R9
	VXORPS  Y0, Y0, Y0
	VXORPS  Y1, Y1, Y1
	VXORPS  Y2, Y2, Y2
	VXORPS  Y3, Y3, Y3
	VXORPS  Y4, Y4, Y4
	VXORPS  Y5, Y5, Y5
	VXORPS  Y6, Y6, Y6
	VXORPS  Y7, Y7, Y7
	VXORPS  Y8, Y8, Y8
	VXORPS  Y9, Y9, Y9
	VXORPS  Y10, Y10, Y10
	VXORPS  Y11, Y11, Y11
	MOVQ    SI, AX
	LEAQ    (SI)(R12*2), BX
	ADDQ    R12, BX
	LEAQ    (BX)(R12*2), R13
	ADDQ    R12, R13          // the next strip's rows of a
	MOVQ    k+32(FP), CX
	TESTQ   $1, CX
	JZ      k2
	SSTEP(0, 0)
	ADDQ    $64, R14
	ADDQ    $4, AX
	ADDQ    $4, BX
	DECQ    CX
	JZ      kend

k2:
	PREFETCHT0 (R13)
	SSTEP(0, 0)
	SSTEP(64, 4)
	ADDQ       $128, R14
	ADDQ       $8, AX
	ADDQ       $8, BX
	ADDQ       $48, R13
	SUBQ       $2, CX
	JNZ        k2

kend:
	MOVL  (DX), CX
	ADDQ  $4, DX
	TESTL $1, CX
	JNZ   ntstore
	SSTORE(VMOVUPS)
	TESTL $2, CX
	JZ    blk

	// Prefetch c's lines 4 blocks ahead, which ordinary stores would
	// otherwise read on demand: short rows (PubMed's 500 columns) are
	// streams too short for the hardware to follow. Over 256 bytes
	// rather than 128 or 512, 19717 x 500 over 16 ran at 36-40
	// cpu-GFLOPS without, 39-48 with.
	PREFETCHT0 256(R9)
	PREFETCHT0 256(R9)(R10*1)
	PREFETCHT0 256(R9)(R10*2)
	PREFETCHT0 256(AX)
	PREFETCHT0 256(AX)(R10*1)
	PREFETCHT0 256(AX)(R10*2)
	JMP        blk

ntstore:
	SSTORE(VMOVNTPS)
	JMP blk

nextstrip:
	LEAQ (DI)(R11*2), DI
	LEAQ (SI)(R12*4), SI
	LEAQ (SI)(R12*2), SI
	SUBQ $6, R8
	JMP  strip

done:
	SFENCE
	VZEROUPPER
	RET
