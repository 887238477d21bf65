//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 kernels of GATv2's scores and their gradients in float32, one
// group of edges (the in-edges of a destination, or the out-edges of a
// source) per call: the group node's row is fixed, the other ends' rows
// are gathered, rows are H*F floats, a multiple of 8. They compute what the
// Go loops of gatv2_rows.go compute, operation for operation (no FMA), so
// the results have the same bits.

// Offsets of the fields of gatv2Args (gatv2_accel.go).
#define A_FIXED 0
#define A_TABLE 8
#define A_A 16
#define A_EF 24
#define A_WE 32
#define A_IDX 40
#define A_EIDS 48
#define A_N 56
#define A_ROW 64
#define A_F 72
#define A_H 80
#define A_D 88
#define A_SLOPE 96
#define A_SCRATCH 104
#define A_OUT 112
#define A_DS 120
#define A_ACC 128
#define A_DA 136
#define A_DEF 144
#define A_DWE 152
#define A_MODE 160
#define A_K 168
#define A_COMPACT 176
#define A_TMP 184
#define A_AVAIL 192
#define A_DIST 200

// perm2 spreads four score gradients over the pairs of lanes of heads of
// two features, perm4 two over the halves of heads of four.
DATA perm2<>+0(SB)/4, $0
DATA perm2<>+4(SB)/4, $0
DATA perm2<>+8(SB)/4, $1
DATA perm2<>+12(SB)/4, $1
DATA perm2<>+16(SB)/4, $2
DATA perm2<>+20(SB)/4, $2
DATA perm2<>+24(SB)/4, $3
DATA perm2<>+28(SB)/4, $3
GLOBL perm2<>(SB), RODATA|NOPTR, $32

DATA perm4<>+0(SB)/4, $0
DATA perm4<>+4(SB)/4, $0
DATA perm4<>+8(SB)/4, $0
DATA perm4<>+12(SB)/4, $0
DATA perm4<>+16(SB)/4, $1
DATA perm4<>+20(SB)/4, $1
DATA perm4<>+24(SB)/4, $1
DATA perm4<>+28(SB)/4, $1
GLOBL perm4<>(SB), RODATA|NOPTR, $32

// unzip4 puts the head sums [h0 h2 h4 h6 | h1 h3 h5 h7] of heads of four
// features in order.
DATA unzip4<>+0(SB)/4, $0
DATA unzip4<>+4(SB)/4, $4
DATA unzip4<>+8(SB)/4, $1
DATA unzip4<>+12(SB)/4, $5
DATA unzip4<>+16(SB)/4, $2
DATA unzip4<>+20(SB)/4, $6
DATA unzip4<>+24(SB)/4, $3
DATA unzip4<>+28(SB)/4, $7
GLOBL unzip4<>(SB), RODATA|NOPTR, $32

// EDGEROWS sets, for edge i = CX of the group, BX to its gathered row, R12
// to its edge ID and R13 to its row of edge features (meaningless without
// them).
#define EDGEROWS \
	MOVQ    A_IDX(R15), AX; \
	MOVLQSX (AX)(CX*4), BX; \
	IMULQ   R11, BX; \
	ADDQ    A_TABLE(R15), BX; \
	MOVQ    A_EIDS(R15), AX; \
	MOVLQSX (AX)(CX*4), R12; \
	MOVQ    R12, R13; \
	IMULQ   A_D(R15), R13; \
	SHLQ    $2, R13; \
	ADDQ    A_EF(R15), R13

// PREFETCH prefetches the gathered row, the row of OUT (a field: the
// scores or their gradients) and the row of edge features of the edge
// a.dist positions after edge CX, while that is below a.avail. It uses AX,
// DX and R10.
#define PREFETCH(OUT, loop, done) \
	MOVQ       CX, AX; \
	ADDQ       A_DIST(R15), AX; \
	CMPQ       AX, A_AVAIL(R15); \
	JGE        done; \
	MOVQ       A_IDX(R15), DX; \
	MOVLQSX    (DX)(AX*4), DX; \
	IMULQ      R11, DX; \
	ADDQ       A_TABLE(R15), DX; \
	PREFETCHT0 -1(DX)(R11*1); \
	XORQ       R10, R10; \
loop: \
	PREFETCHT0 (DX)(R10*1); \
	ADDQ       $64, R10; \
	CMPQ       R10, R11; \
	JLT        loop; \
	MOVQ       A_EIDS(R15), DX; \
	MOVLQSX    (DX)(AX*4), AX; \
	MOVQ       AX, DX; \
	IMULQ      A_H(R15), DX; \
	SHLQ       $2, DX; \
	ADDQ       OUT(R15), DX; \
	PREFETCHT0 (DX); \
	MOVQ       A_D(R15), DX; \
	TESTQ      DX, DX; \
	JZ         done; \
	IMULQ      DX, AX; \
	SHLQ       $2, AX; \
	ADDQ       A_EF(R15), AX; \
	PREFETCHT0 (AX); \
	PREFETCHT0 -4(AX)(DX*4); \
done:

// PRE sets Y0 to block R10 (a byte offset) of t: the gathered row plus the
// fixed row (SI), plus the edge features' terms one feature at a time.
// It uses AX, DX and Y1.
#define PRE(loop, done) \
	VMOVUPS      (BX)(R10*1), Y0; \
	VADDPS       (SI)(R10*1), Y0, Y0; \
	MOVQ         A_D(R15), AX; \
	TESTQ        AX, AX; \
	JZ           done; \
	MOVQ         A_WE(R15), DX; \
	ADDQ         R10, DX; \
	XORQ         AX, AX; \
loop: \
	VBROADCASTSS (R13)(AX*4), Y1; \
	VMULPS       (DX), Y1, Y1; \
	VADDPS       Y1, Y0, Y0; \
	ADDQ         R11, DX; \
	INCQ         AX; \
	CMPQ         AX, A_D(R15); \
	JLT          loop; \
done:

// TRANSPOSE8 sets Y1 to the eight sums of the rows of eight floats at BX,
// each ((p0+p1)+(p2+p3))+((p4+p5)+(p6+p7)).
#define TRANSPOSE8 \
	VMOVUPS    (BX), Y0; \
	VMOVUPS    32(BX), Y1; \
	VMOVUPS    64(BX), Y2; \
	VMOVUPS    96(BX), Y3; \
	VMOVUPS    128(BX), Y4; \
	VMOVUPS    160(BX), Y5; \
	VMOVUPS    192(BX), Y6; \
	VMOVUPS    224(BX), Y7; \
	VHADDPS    Y1, Y0, Y0; \
	VHADDPS    Y3, Y2, Y2; \
	VHADDPS    Y5, Y4, Y4; \
	VHADDPS    Y7, Y6, Y6; \
	VHADDPS    Y2, Y0, Y0; \
	VHADDPS    Y6, Y4, Y4; \
	VBLENDPS   $0xf0, Y4, Y0, Y1; \
	VPERM2F128 $0x21, Y4, Y0, Y2; \
	VADDPS     Y2, Y1, Y1

// func gatv2FwdF32(a *gatv2Args)
//
// For each edge of the group: t block by block, the products A
// LeakyReLU(t) into the scratch row, then the head sums, eight heads at a
// time, into the edge's scores.
TEXT ·gatv2FwdF32(SB), NOSPLIT, $0-8
	MOVQ         a+0(FP), R15
	MOVQ         A_FIXED(R15), SI
	MOVQ         A_A(R15), R8
	MOVQ         A_ROW(R15), R11
	MOVQ         A_F(R15), R14
	SHLQ         $2, R14 // bytes per head
	VBROADCASTSS A_SLOPE(R15), Y15
	VXORPS       Y14, Y14, Y14
	XORQ         CX, CX

fedge:
	PREFETCH(A_OUT, fpf, fpfdone)
	EDGEROWS
	MOVQ A_SCRATCH(R15), DI
	XORQ R10, R10

fblock:
	PRE(fterm, fpre)
	VMULPS    Y15, Y0, Y1
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    (R8)(R10*1), Y1, Y1
	VMOVUPS   Y1, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       fblock

	// R9 = the edge's scores, DX = heads left, DI = the group's products.
	MOVQ  R12, R9
	IMULQ A_H(R15), R9
	SHLQ  $2, R9
	ADDQ  A_OUT(R15), R9
	MOVQ  A_H(R15), DX

fgroup:
	MOVQ A_MODE(R15), AX
	CMPQ AX, $1
	JLT  f1
	JEQ  f2
	CMPQ AX, $3
	JLT  f4
	JEQ  f8

	// Heads of 8k features: the sums of each head's k blocks of eight
	// lanes, in order, into the compact rows, then as heads of 8.
	MOVQ DI, BX
	MOVQ A_COMPACT(R15), R13
	MOVQ $8, AX

fkhead:
	VMOVUPS (BX), Y0
	MOVQ    $32, R10

fkblock:
	VADDPS (BX)(R10*1), Y0, Y0
	ADDQ   $32, R10
	CMPQ   R10, R14
	JLT    fkblock
	VMOVUPS Y0, (R13)
	ADDQ    $32, R13
	ADDQ    R14, BX
	DECQ    AX
	JNZ     fkhead
	MOVQ    A_COMPACT(R15), BX
	TRANSPOSE8
	JMP     fstore

f8:
	MOVQ DI, BX
	TRANSPOSE8
	JMP  fstore

f1:
	VMOVUPS (DI), Y1
	JMP     fstore

f2:
	// [h0 h1 h4 h5 | h2 h3 h6 h7], then in order.
	VMOVUPS (DI), Y0
	VHADDPS 32(DI), Y0, Y1
	VPERMPD $0xd8, Y1, Y1
	JMP     fstore

f4:
	VMOVUPS (DI), Y0
	VHADDPS 32(DI), Y0, Y0
	VMOVUPS 64(DI), Y2
	VHADDPS 96(DI), Y2, Y2
	VHADDPS Y2, Y0, Y0
	VMOVUPS unzip4<>(SB), Y3
	VPERMPS Y0, Y3, Y1

fstore:
	CMPQ    DX, $8
	JLT     fpart
	VMOVUPS Y1, (R9)
	ADDQ    $32, R9
	SUBQ    $8, DX
	JZ      fnext
	MOVQ    R14, AX
	SHLQ    $3, AX
	ADDQ    AX, DI
	JMP     fgroup

fpart:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ    A_TMP(R15), AX
	VMOVUPS Y1, (AX)
	XORQ    R10, R10

fpcopy:
	MOVL (AX)(R10*4), BX
	MOVL BX, (R9)(R10*4)
	INCQ R10
	CMPQ R10, DX
	JLT  fpcopy

fnext:
	INCQ CX
	CMPQ CX, A_N(R15)
	JLT  fedge
	VZEROUPPER
	RET

// func gatv2BwdF32(a *gatv2Args)
//
// For each edge of the group, block by block: t, the mask t > 0, the score
// gradients spread over their heads' lanes (Y4), the terms of dA, and m =
// g A (times the slope where t <= 0), added to the node's row and kept in
// the scratch row for the edge features' gradients; then, per edge
// feature, its term of dWE and its gradient, summed in eight lanes and
// then as a tree.
TEXT ·gatv2BwdF32(SB), NOSPLIT, $0-8
	MOVQ         a+0(FP), R15
	MOVQ         A_FIXED(R15), SI
	MOVQ         A_A(R15), R8
	MOVQ         A_ROW(R15), R11
	MOVQ         A_ACC(R15), DI
	VBROADCASTSS A_SLOPE(R15), Y15
	VXORPS       Y14, Y14, Y14
	MOVQ         A_MODE(R15), AX
	CMPQ         AX, $1
	JNE          bperm4
	VMOVUPS      perm2<>(SB), Y13
	JMP          bstart

bperm4:
	CMPQ    AX, $2
	JNE     bstart
	VMOVUPS perm4<>(SB), Y13

bstart:
	XORQ CX, CX

bedge:
	PREFETCH(A_DS, bpf, bpfdone)
	EDGEROWS
	MOVQ  R12, R9
	IMULQ A_H(R15), R9
	SHLQ  $2, R9
	ADDQ  A_DS(R15), R9
	MOVQ  A_K(R15), R14
	XORQ  R10, R10

bblock:
	PRE(bterm, bpre)
	VCMPPS $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)

	// Y4 = the score gradients of the block's lanes; R9 moves on by the
	// heads of the block.
	MOVQ A_MODE(R15), AX
	CMPQ AX, $2
	JEQ  bds4
	JGT  bds8
	CMPQ AX, $1
	JEQ  bds2
	VMOVUPS (R9), Y4
	ADDQ    $32, R9
	JMP     bgrad

bds2:
	VBROADCASTF128 (R9), Y4
	VPERMPS        Y4, Y13, Y4
	ADDQ           $16, R9
	JMP            bgrad

bds4:
	VBROADCASTSD (R9), Y4
	VPERMPS      Y4, Y13, Y4
	ADDQ         $8, R9
	JMP          bgrad

bds8:
	VBROADCASTSS (R9), Y4
	DECQ         R14
	JNZ          bgrad
	ADDQ         $4, R9
	MOVQ         A_K(R15), R14

bgrad:
	MOVQ  A_DA(R15), AX
	TESTQ AX, AX
	JZ    bmsg
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)

bmsg:
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       bblock

	// The edge features' gradients, when wanted.
	MOVQ  A_D(R15), AX
	TESTQ AX, AX
	JZ    bnext
	MOVQ  A_DEF(R15), AX
	ORQ   A_DWE(R15), AX
	JZ    bnext
	XORQ  DX, DX

bfeat:
	VBROADCASTSS (R13)(DX*4), Y7
	MOVQ         A_SCRATCH(R15), BX
	MOVQ         DX, AX
	IMULQ        R11, AX
	MOVQ         A_DWE(R15), R9
	TESTQ        R9, R9
	JZ           bfrow
	ADDQ         AX, R9

bfrow:
	ADDQ   A_WE(R15), AX
	VXORPS Y9, Y9, Y9
	XORQ   R10, R10

bfblock:
	VMOVUPS (BX)(R10*1), Y5
	VMULPS  (AX)(R10*1), Y5, Y8
	VADDPS  Y8, Y9, Y9
	TESTQ   R9, R9
	JZ      bfnext
	VMULPS  Y7, Y5, Y8
	VADDPS  (R9)(R10*1), Y8, Y8
	VMOVUPS Y8, (R9)(R10*1)

bfnext:
	ADDQ $32, R10
	CMPQ R10, R11
	JLT  bfblock

	MOVQ  A_DEF(R15), AX
	TESTQ AX, AX
	JZ    bfdone
	VEXTRACTF128 $1, Y9, X10
	VHADDPS      X10, X9, X9
	VHADDPS      X9, X9, X9
	VHADDPS      X9, X9, X9
	MOVQ         R12, R14
	IMULQ        A_D(R15), R14
	ADDQ         DX, R14
	VMOVSS       X9, (AX)(R14*4)

bfdone:
	INCQ DX
	CMPQ DX, A_D(R15)
	JLT  bfeat

bnext:
	INCQ CX
	CMPQ CX, A_N(R15)
	JLT  bedge
	VZEROUPPER
	RET
