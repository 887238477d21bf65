//go:build amd64 && !purego

#include "textflag.h"

// func dotRowsF32(out, h *float32, dim int, left, right *int32, n, dist int)
//
// For q < n, out[q] = sum_j h[left[q]*dim+j] * h[right[q]*dim+j], dim a
// positive multiple of 8. Each dot product is accumulated in two vectors of
// eight lanes with fused multiply-adds (blocks of 16 floats alternate
// between them, a last block of 8 goes to the first), then the two are
// added and the eight lanes summed as a tree: a fixed order, so the result
// depends only on the two rows.
//
// With dist > 0, the first four cache lines (256 bytes) of row
// right[q+dist] are prefetched while pair q is computed, when q+dist < n:
// the right rows are the ones read from all over the table.
TEXT ·dotRowsF32(SB), NOSPLIT, $0-56
	MOVQ out+0(FP), DI
	MOVQ h+8(FP), SI
	MOVQ dim+16(FP), R8
	MOVQ left+24(FP), R9
	MOVQ right+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ dist+48(FP), R12
	MOVQ R8, R11
	SHLQ $2, R11 // row stride in bytes

pair:
	TESTQ CX, CX
	JZ    done
	TESTQ R12, R12
	JZ    compute
	CMPQ  CX, R12
	JLE   compute
	MOVLQSX (R10)(R12*4), AX
	IMULQ R11, AX
	ADDQ  SI, AX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 128(AX)
	PREFETCHT0 192(AX)

compute:
	MOVLQSX (R9), AX
	MOVLQSX (R10), BX
	IMULQ R11, AX
	IMULQ R11, BX
	ADDQ  SI, AX
	ADDQ  SI, BX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ  R8, DX

block16:
	CMPQ DX, $16
	JLT  block8
	VMOVUPS     (AX), Y2
	VMOVUPS     32(AX), Y3
	VFMADD231PS (BX), Y2, Y0
	VFMADD231PS 32(BX), Y3, Y1
	ADDQ $64, AX
	ADDQ $64, BX
	SUBQ $16, DX
	JMP  block16

block8:
	TESTQ DX, DX
	JZ    reduce
	VMOVUPS     (AX), Y2
	VFMADD231PS (BX), Y2, Y0

reduce:
	VADDPS       Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS       X1, X0, X0
	VMOVHLPS     X0, X0, X1
	VADDPS       X1, X0, X0
	VMOVSHDUP    X0, X1
	VADDSS       X1, X0, X0
	VMOVSS       X0, (DI)
	ADDQ $4, DI
	ADDQ $4, R9
	ADDQ $4, R10
	DECQ CX
	JMP  pair

done:
	VZEROUPPER
	RET
