//go:build amd64 && !purego

#include "textflag.h"

// func dotPairsF32(o, x, y *float32, la, ra *int, n, h, d, dist int)
//
// For each of the n >= 1 edges i, the h dot products of the heads of d >= 1
// floats of row la[i] of x and row ra[i] of y, rows of h*d floats, into h
// floats of o, one edge after another. A head's two partial sums, of its
// even and its odd positions, are the two low lanes of X0, started at +0:
// each pair of floats is one 64-bit load of each row, one multiply (rounded)
// and one add, in order; an odd last float goes to the even sum alone; the
// sum is even + odd. This is the order of the Go code's dot, so both give
// the same bits. While computing edge i the kernel prefetches the first and
// last bytes of the two rows of edge i+dist, when i+dist < n: rows this
// short (GAT's output layer: one head of as many floats as classes) are a
// line or two, gathered at random.
TEXT ·dotPairsF32(SB), NOSPLIT, $0-72
	MOVQ o+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ la+24(FP), R8
	MOVQ ra+32(FP), R9
	MOVQ n+40(FP), R13
	MOVQ d+56(FP), R15
	MOVQ h+48(FP), R11
	IMULQ R15, R11
	SHLQ $2, R11 // bytes per row
	MOVQ R13, R12
	SUBQ dist+64(FP), R12 // prefetch while i < R12
	XORQ CX, CX

edge:
	CMPQ CX, R12
	JGE  rows
	MOVQ CX, BX
	ADDQ dist+64(FP), BX
	MOVQ (R8)(BX*8), AX
	IMULQ R11, AX
	ADDQ SI, AX
	PREFETCHT0 (AX)
	PREFETCHT0 -1(AX)(R11*1)
	MOVQ (R9)(BX*8), AX
	IMULQ R11, AX
	ADDQ DX, AX
	PREFETCHT0 (AX)
	PREFETCHT0 -1(AX)(R11*1)

rows:
	MOVQ  (R8)(CX*8), AX
	IMULQ R11, AX
	ADDQ  SI, AX
	MOVQ  (R9)(CX*8), BX
	IMULQ R11, BX
	ADDQ  DX, BX
	MOVQ  h+48(FP), R10

head:
	VXORPS X0, X0, X0
	MOVQ   R15, R14

pair:
	CMPQ   R14, $2
	JLT    odd
	VMOVSD (AX), X1
	VMOVSD (BX), X2
	VMULPS X2, X1, X1
	VADDPS X1, X0, X0
	ADDQ   $8, AX
	ADDQ   $8, BX
	SUBQ   $2, R14
	JMP    pair

odd:
	TESTQ  R14, R14
	JZ     sum
	VMOVSS (AX), X1
	VMOVSS (BX), X2
	VMULSS X2, X1, X1
	VADDSS X1, X0, X0
	ADDQ   $4, AX
	ADDQ   $4, BX

sum:
	VMOVSHDUP X0, X1
	VADDSS    X1, X0, X0
	VMOVSS    X0, (DI)
	ADDQ      $4, DI
	DECQ      R10
	JNZ       head

	INCQ CX
	CMPQ CX, R13
	JLT  edge
	RET
