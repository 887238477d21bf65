//go:build amd64 && !purego

#include "textflag.h"

// ROW sets reg to the address of row idx(off) of h: h + idx*stride.
#define ROW(idx, off, reg) \
	MOVLQSX off(idx), reg \
	IMULQ   R11, reg \
	ADDQ    SI, reg

// PREFETCH4 prefetches the first four cache lines of the row at reg.
#define PREFETCH4(reg) \
	PREFETCHT0 (reg) \
	PREFETCHT0 64(reg) \
	PREFETCHT0 128(reg) \
	PREFETCHT0 192(reg)

// REDUCE sums the accumulators a0..a3 (Y registers; x0 and x1 are the X
// forms of a0 and a1) as (a0 + a1) + (a2 + a3), then the eight lanes of the
// result as a tree, into the low float of x0.
#define REDUCE(a0, a1, a2, a3, x0, x1) \
	VADDPS       a1, a0, a0 \
	VADDPS       a3, a2, a2 \
	VADDPS       a2, a0, a0 \
	VEXTRACTF128 $1, a0, x1 \
	VADDPS       x1, x0, x0 \
	VMOVHLPS     x0, x0, x1 \
	VADDPS       x1, x0, x0 \
	VMOVSHDUP    x0, x1 \
	VADDSS       x1, x0, x0

// func dotRowsF32(out, h *float32, dim int, left, right *int32, n, dist int)
//
// For q < n, out[q] = sum_j h[left[q]*dim+j] * h[right[q]*dim+j], dim a
// positive multiple of 8. Each dot product is accumulated with fused
// multiply-adds in four vectors of eight lanes: block b of 8 floats goes
// to accumulator b mod 4. The four are added as (0 + 1) + (2 + 3) and the
// eight lanes summed as a tree: a fixed order, so the result depends only
// on the two rows. Pairs are computed two at a time (independent chains
// that hide the latency of the multiply-adds and of the reduction), the
// last one of an odd n alone, in the same order.
//
// With dist > 0, the first four cache lines (256 bytes) of rows
// right[q+dist] and right[q+dist+1] are prefetched while pairs q and q+1
// are computed, when they exist: the right rows are the ones read from all
// over the table.
//
// Registers: DI out, SI h, R11 the row stride in bytes, R9 left, R10
// right, CX pairs left, R12 dist, DX floats left in the rows; AX and BX the
// rows of the first pair, R13 and R8 those of the second.
TEXT ·dotRowsF32(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ dim+16(FP), R11
	SHLQ $2, R11
	MOVQ left+24(FP), R9
	MOVQ right+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ dist+48(FP), R12

two:
	CMPQ CX, $2
	JLT  one
	TESTQ R12, R12
	JZ    twoRows
	LEAQ  1(R12), AX
	CMPQ  CX, AX
	JLE   twoRows
	LEAQ  (R10)(R12*4), BX
	ROW(BX, 0, AX)
	PREFETCH4(AX)
	ROW(BX, 4, AX)
	PREFETCH4(AX)

twoRows:
	ROW(R9, 0, AX)
	ROW(R10, 0, BX)
	ROW(R9, 4, R13)
	ROW(R10, 4, R8)
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	MOVQ   R11, DX
	SHRQ   $2, DX

twoBlock32:
	CMPQ DX, $32
	JLT  twoRest
	VMOVUPS     (AX), Y8
	VMOVUPS     32(AX), Y9
	VMOVUPS     64(AX), Y10
	VMOVUPS     96(AX), Y11
	VFMADD231PS (BX), Y8, Y0
	VFMADD231PS 32(BX), Y9, Y1
	VFMADD231PS 64(BX), Y10, Y2
	VFMADD231PS 96(BX), Y11, Y3
	VMOVUPS     (R13), Y12
	VMOVUPS     32(R13), Y13
	VMOVUPS     64(R13), Y14
	VMOVUPS     96(R13), Y15
	VFMADD231PS (R8), Y12, Y4
	VFMADD231PS 32(R8), Y13, Y5
	VFMADD231PS 64(R8), Y14, Y6
	VFMADD231PS 96(R8), Y15, Y7
	ADDQ $128, AX
	ADDQ $128, BX
	ADDQ $128, R13
	ADDQ $128, R8
	SUBQ $32, DX
	JMP  twoBlock32

twoRest:
	TESTQ DX, DX
	JZ    twoReduce
	VMOVUPS     (AX), Y8
	VFMADD231PS (BX), Y8, Y0
	VMOVUPS     (R13), Y12
	VFMADD231PS (R8), Y12, Y4
	CMPQ DX, $8
	JEQ  twoReduce
	VMOVUPS     32(AX), Y8
	VFMADD231PS 32(BX), Y8, Y1
	VMOVUPS     32(R13), Y12
	VFMADD231PS 32(R8), Y12, Y5
	CMPQ DX, $16
	JEQ  twoReduce
	VMOVUPS     64(AX), Y8
	VFMADD231PS 64(BX), Y8, Y2
	VMOVUPS     64(R13), Y12
	VFMADD231PS 64(R8), Y12, Y6

twoReduce:
	REDUCE(Y0, Y1, Y2, Y3, X0, X1)
	REDUCE(Y4, Y5, Y6, Y7, X4, X5)
	VMOVSS X0, (DI)
	VMOVSS X4, 4(DI)
	ADDQ $8, DI
	ADDQ $8, R9
	ADDQ $8, R10
	SUBQ $2, CX
	JMP  two

one:
	TESTQ CX, CX
	JZ    done
	ROW(R9, 0, AX)
	ROW(R10, 0, BX)
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ   R11, DX
	SHRQ   $2, DX

oneBlock32:
	CMPQ DX, $32
	JLT  oneRest
	VMOVUPS     (AX), Y8
	VMOVUPS     32(AX), Y9
	VMOVUPS     64(AX), Y10
	VMOVUPS     96(AX), Y11
	VFMADD231PS (BX), Y8, Y0
	VFMADD231PS 32(BX), Y9, Y1
	VFMADD231PS 64(BX), Y10, Y2
	VFMADD231PS 96(BX), Y11, Y3
	ADDQ $128, AX
	ADDQ $128, BX
	SUBQ $32, DX
	JMP  oneBlock32

oneRest:
	TESTQ DX, DX
	JZ    oneReduce
	VMOVUPS     (AX), Y8
	VFMADD231PS (BX), Y8, Y0
	CMPQ DX, $8
	JEQ  oneReduce
	VMOVUPS     32(AX), Y8
	VFMADD231PS 32(BX), Y8, Y1
	CMPQ DX, $16
	JEQ  oneReduce
	VMOVUPS     64(AX), Y8
	VFMADD231PS 64(BX), Y8, Y2

oneReduce:
	REDUCE(Y0, Y1, Y2, Y3, X0, X1)
	VMOVSS X0, (DI)

done:
	VZEROUPPER
	RET
