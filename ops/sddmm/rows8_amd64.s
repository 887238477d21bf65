//go:build amd64 && !purego

#include "textflag.h"

// ELEMENTWISE is the loop of an elementwise mode, at label: the blocks of
// eight floats of the rows at AX (x) and BX (y), x OP y, into the row at
// DI, which then moves on by a row (R11 bytes) before the next edge.
#define ELEMENTWISE(label, OP) \
label: \
	VMOVUPS (AX)(R10*1), Y0 \
	OP      (BX)(R10*1), Y0, Y0 \
	VMOVUPS Y0, (DI)(R10*1) \
	ADDQ    $32, R10 \
	CMPQ    R10, R11 \
	JLT     label \
	ADDQ    R11, DI \
	JMP     next

// func rows8F32(mode int, o, x, y *float32, la, ra *int32, e0, n, avail, rowBytes, dist int)
//
// AVX2 kernels over rows of eight-float blocks for the n >= 1 edges e0,
// e0+1, …: the output row of edge e (rows follow one another from o)
// combines row la[e] of x with row ra[e] of y, rows of rowBytes bytes, a
// positive multiple of 256 for mode 0 and of 32 otherwise. A nil la or ra
// stands for the edge itself (row e).
//
// Mode 0 (modeDot): element k of the output row is the dot product of head
// k, the eight floats at byte 32*k, of the two rows. Each group of eight
// heads is eight products of eight lanes, reduced by a transpose of
// horizontal adds to one vector of eight sums, in the order of the Go
// code's dot8: ((p0+p1)+(p2+p3))+((p4+p5)+(p6+p7)).
//
// Mode 6 (modeDot2): heads of two floats. Each block of eight floats of
// the rows gives four dot products, p0+p1 of the two products of a head,
// by one horizontal add of the block's halves; rowBytes is a multiple of 32.
// Mode 7 (modeDot4): heads of four floats, two per block, each
// (p0+p1)+(p2+p3) by two horizontal adds. Neither fuses a product into a
// sum: the Go code's dot2 and dot4 give the same bits.
//
// Modes 1 to 4 (modeAdd, modeSub, modeMul, modeDiv): the output row, as
// long as the operand rows, is x OP y elementwise, one IEEE operation per
// element as the Go loops compute it. Mode 5 (modeCopy) copies the x row;
// y is not read (the caller passes x and a nil ra).
//
// While computing edge e, the kernel prefetches every cache line of the
// gathered rows (those read through la or ra) of edge e+dist, as long as
// e+dist < e0+avail: the caller passes the edges of its whole range as
// avail, so prefetching runs ahead across calls and the cache misses of
// several edges overlap.
TEXT ·rows8F32(SB), NOSPLIT, $0-88
	MOVQ mode+0(FP), R15
	MOVQ o+8(FP), DI
	MOVQ x+16(FP), SI
	MOVQ y+24(FP), DX
	MOVQ la+32(FP), R8
	MOVQ ra+40(FP), R9
	MOVQ e0+48(FP), CX
	MOVQ n+56(FP), R13
	ADDQ CX, R13       // end of the edges
	MOVQ avail+64(FP), R12
	ADDQ CX, R12
	SUBQ dist+80(FP), R12 // prefetch while e < R12
	MOVQ rowBytes+72(FP), R11

edge:
	CMPQ CX, R12
	JGE  rows

	// Prefetch the gathered rows of edge e+dist.
	MOVQ  CX, BX
	ADDQ  dist+80(FP), BX
	TESTQ R8, R8
	JZ    pfy
	MOVLQSX (R8)(BX*4), AX
	IMULQ R11, AX
	ADDQ  SI, AX
	PREFETCHT0 -1(AX)(R11*1)
	XORQ  R10, R10

pfx:
	PREFETCHT0 (AX)(R10*1)
	ADDQ $64, R10
	CMPQ R10, R11
	JLT  pfx

pfy:
	TESTQ R9, R9
	JZ    rows
	MOVLQSX (R9)(BX*4), AX
	IMULQ R11, AX
	ADDQ  DX, AX
	PREFETCHT0 -1(AX)(R11*1)
	XORQ  R10, R10

pfyl:
	PREFETCHT0 (AX)(R10*1)
	ADDQ $64, R10
	CMPQ R10, R11
	JLT  pfyl

rows:
	// AX = row of x, BX = row of y.
	MOVQ  CX, AX
	TESTQ R8, R8
	JZ    xrow
	MOVLQSX (R8)(CX*4), AX

xrow:
	IMULQ R11, AX
	ADDQ  SI, AX
	MOVQ  CX, BX
	TESTQ R9, R9
	JZ    yrow
	MOVLQSX (R9)(CX*4), BX

yrow:
	IMULQ R11, BX
	ADDQ  DX, BX
	XORQ  R10, R10 // byte offset of the group of heads, or of the block
	TESTQ R15, R15
	JZ    group
	CMPQ  R15, $2
	JLT   add
	JEQ   sub
	CMPQ  R15, $4
	JLT   mul
	JEQ   div
	CMPQ  R15, $6
	JLT   copy
	JEQ   dot2
	JMP   dot4

group:
	VMOVUPS (AX)(R10*1), Y0
	VMOVUPS 32(AX)(R10*1), Y1
	VMOVUPS 64(AX)(R10*1), Y2
	VMOVUPS 96(AX)(R10*1), Y3
	VMOVUPS 128(AX)(R10*1), Y4
	VMOVUPS 160(AX)(R10*1), Y5
	VMOVUPS 192(AX)(R10*1), Y6
	VMOVUPS 224(AX)(R10*1), Y7
	VMULPS  (BX)(R10*1), Y0, Y0
	VMULPS  32(BX)(R10*1), Y1, Y1
	VMULPS  64(BX)(R10*1), Y2, Y2
	VMULPS  96(BX)(R10*1), Y3, Y3
	VMULPS  128(BX)(R10*1), Y4, Y4
	VMULPS  160(BX)(R10*1), Y5, Y5
	VMULPS  192(BX)(R10*1), Y6, Y6
	VMULPS  224(BX)(R10*1), Y7, Y7

	// Lane pairs: Y0 = [p0 01, p0 23, p1 01, p1 23 | p0 45, p0 67, p1 45, p1 67].
	VHADDPS Y1, Y0, Y0
	VHADDPS Y3, Y2, Y2
	VHADDPS Y5, Y4, Y4
	VHADDPS Y7, Y6, Y6

	// Half sums: Y0 = [p0..p3 over lanes 0-3 | p0..p3 over lanes 4-7],
	// Y4 likewise for p4..p7.
	VHADDPS Y2, Y0, Y0
	VHADDPS Y6, Y4, Y4

	// Y1 = [Y0 low | Y4 high], Y2 = [Y0 high | Y4 low]; their sum holds the
	// eight dot products in order.
	VBLENDPS   $0xf0, Y4, Y0, Y1
	VPERM2F128 $0x21, Y4, Y0, Y2
	VADDPS     Y2, Y1, Y1
	VMOVUPS    Y1, (DI)

	ADDQ $32, DI
	ADDQ $256, R10
	CMPQ R10, R11
	JLT  group

next:
	INCQ CX
	CMPQ CX, R13
	JLT  edge

	VZEROUPPER
	RET

	// The elementwise modes: one block of eight floats at a time, then the
	// output row pointer moves on by a row.
	ELEMENTWISE(add, VADDPS)
	ELEMENTWISE(sub, VSUBPS)
	ELEMENTWISE(mul, VMULPS)
	ELEMENTWISE(div, VDIVPS)

copy:
	VMOVUPS (AX)(R10*1), Y0
	VMOVUPS Y0, (DI)(R10*1)
	ADDQ    $32, R10
	CMPQ    R10, R11
	JLT     copy
	ADDQ    R11, DI
	JMP     next

	// Heads of two floats: block [a0 a1 b0 b1 c0 c1 d0 d1] of products,
	// halves added pairwise into the four dot products [a b c d].
dot2:
	VMOVUPS      (AX)(R10*1), Y0
	VMULPS       (BX)(R10*1), Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VHADDPS      X1, X0, X0
	VMOVUPS      X0, (DI)
	ADDQ         $16, DI
	ADDQ         $32, R10
	CMPQ         R10, R11
	JLT          dot2
	JMP          next

	// Heads of four floats: block [a0 a1 a2 a3 b0 b1 b2 b3] of products;
	// the first add gives [a01 a23 b01 b23], the second [a b a b], whose
	// low two floats are stored.
dot4:
	VMOVUPS      (AX)(R10*1), Y0
	VMULPS       (BX)(R10*1), Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VHADDPS      X1, X0, X0
	VHADDPS      X0, X0, X0
	VMOVSD       X0, (DI)
	ADDQ         $8, DI
	ADDQ         $32, R10
	CMPQ         R10, R11
	JLT          dot4
	JMP          next
