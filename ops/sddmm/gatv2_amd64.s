//go:build amd64 && !purego

#include "textflag.h"

// The AVX2 kernels of GATv2's scores and their gradients in float32, one
// group of edges (the in-edges of a destination, or the out-edges of a
// source) per call: the group node's row is fixed, the other ends' rows
// are gathered, rows are H*F floats, a multiple of 8. They compute what the
// Go loops of gatv2_rows.go compute, operation for operation (no FMA), so
// the results have the same bits.
//
// Each kernel has one loop per mode (heads of 1, 2, 4, 8 or 8k features)
// and per presence of edge features, selected once per call, so that the
// loops carry no per-block tests; the loops differ only in the lines that
// spread or sum heads and add edge features.

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
#define A_PFE 208

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

// PREFETCH prefetches the gathered row (each of its cache lines once) of
// the edge a.dist positions after edge CX, while that is below a.avail, and, when a.pfe is set (edge IDs
// not in the order of the group's view), its row of OUT (a field: the
// scores or their gradients) and of edge features. It uses AX, DX and
// R10.
#define PREFETCH(OUT, loop, done) \
	MOVQ       CX, AX; \
	ADDQ       A_DIST(R15), AX; \
	CMPQ       AX, A_AVAIL(R15); \
	JGE        done; \
	MOVQ       A_IDX(R15), DX; \
	MOVLQSX    (DX)(AX*4), DX; \
	IMULQ      R11, DX; \
	ADDQ       A_TABLE(R15), DX; \
	MOVQ       DX, R10; \
	ANDQ       $63, R10; \
	ADDQ       R11, R10; \
	ANDQ       $-64, DX; \
loop: \
	PREFETCHT0 (DX); \
	ADDQ       $64, DX; \
	SUBQ       $64, R10; \
	JGT        loop; \
	CMPQ       A_PFE(R15), $0; \
	JEQ        done; \
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

// TERM adds the edge features' terms of block R10 to T, one feature at a
// time (the row of WE of feature d times the feature). It uses AX, DX and
// TMP.
#define TERM(T, TMP, loop) \
	MOVQ         A_WE(R15), DX; \
	ADDQ         R10, DX; \
	XORQ         AX, AX; \
loop: \
	VBROADCASTSS (R13)(AX*4), TMP; \
	VMULPS       (DX), TMP, TMP; \
	VADDPS       TMP, T, T; \
	ADDQ         R11, DX; \
	INCQ         AX; \
	CMPQ         AX, A_D(R15); \
	JLT          loop

// TRANSPOSE8 sets Y1 to the eight sums of Y0 to Y7, each
// ((p0+p1)+(p2+p3))+((p4+p5)+(p6+p7)).
#define TRANSPOSE8 \
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
// For each edge of the group and each group of 8 heads: t block by block
// (the gathered row plus the fixed row, plus the edge features' terms),
// the products A LeakyReLU(t) into Y0-Y7 (zero beyond the row), their
// head sums (a tree of VHADDPS, in the order of headSum) into the edge's
// scores. Heads of 8k features sum each head's k blocks first, in order.
TEXT ·gatv2FwdF32(SB), NOSPLIT, $0-8
	MOVQ         a+0(FP), R15
	MOVQ         A_FIXED(R15), SI
	MOVQ         A_A(R15), R8
	MOVQ         A_ROW(R15), R11
	VBROADCASTSS A_SLOPE(R15), Y15
	VXORPS       Y14, Y14, Y14
	VMOVUPS      unzip4<>(SB), Y13
	XORQ         CX, CX
	MOVQ      A_MODE(R15), AX
	CMPQ      A_D(R15), $0
	JNE       f_edge
	CMPQ      AX, $0
	JEQ       f_f1_n
	CMPQ      AX, $1
	JEQ       f_f2_n
	CMPQ      AX, $2
	JEQ       f_f4_n
	CMPQ      AX, $3
	JEQ       f_f8_n
	CMPQ      AX, $4
	JEQ       f_f8k_n
	JMP       f_f8k_n
f_edge:
	CMPQ      AX, $0
	JEQ       f_f1_e
	CMPQ      AX, $1
	JEQ       f_f2_e
	CMPQ      AX, $2
	JEQ       f_f4_e
	CMPQ      AX, $3
	JEQ       f_f8_e
	CMPQ      AX, $4
	JEQ       f_f8k_e
	JMP       f_f8k_e

f_f1_n:
	PREFETCH(A_OUT, pf1, pfd2)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g3:
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	ADDQ      $32, R10
	CMPQ      DX, $8
	JLT       part6
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g3
	JMP       next7
part6:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp8:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp8
next7:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f1_n
	VZEROUPPER
	RET

f_f2_n:
	PREFETCH(A_OUT, pf9, pfd10)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g11:
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y0
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z14
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	JMP       d15
z14:
	VXORPS    Y1, Y1, Y1
d15:
	ADDQ      $32, R10
	VHADDPS   Y1, Y0, Y1
	VPERMPD   $0xd8, Y1, Y1
	CMPQ      DX, $8
	JLT       part16
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g11
	JMP       next17
part16:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp18:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp18
next17:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f2_n
	VZEROUPPER
	RET

f_f4_n:
	PREFETCH(A_OUT, pf19, pfd20)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g21:
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y0
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z24
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	JMP       d25
z24:
	VXORPS    Y1, Y1, Y1
d25:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z26
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y2
	JMP       d27
z26:
	VXORPS    Y2, Y2, Y2
d27:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z28
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y3
	JMP       d29
z28:
	VXORPS    Y3, Y3, Y3
d29:
	ADDQ      $32, R10
	VHADDPS   Y1, Y0, Y0
	VHADDPS   Y3, Y2, Y2
	VHADDPS   Y2, Y0, Y0
	VPERMPS   Y0, Y13, Y1
	CMPQ      DX, $8
	JLT       part30
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g21
	JMP       next31
part30:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp32:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp32
next31:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f4_n
	VZEROUPPER
	RET

f_f8_n:
	PREFETCH(A_OUT, pf33, pfd34)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g35:
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y0
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z38
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	JMP       d39
z38:
	VXORPS    Y1, Y1, Y1
d39:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z40
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y2
	JMP       d41
z40:
	VXORPS    Y2, Y2, Y2
d41:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z42
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y3
	JMP       d43
z42:
	VXORPS    Y3, Y3, Y3
d43:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z44
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y4
	JMP       d45
z44:
	VXORPS    Y4, Y4, Y4
d45:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z46
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y5
	JMP       d47
z46:
	VXORPS    Y5, Y5, Y5
d47:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z48
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y6
	JMP       d49
z48:
	VXORPS    Y6, Y6, Y6
d49:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z50
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y7
	JMP       d51
z50:
	VXORPS    Y7, Y7, Y7
d51:
	ADDQ      $32, R10
	TRANSPOSE8
	CMPQ      DX, $8
	JLT       part52
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g35
	JMP       next53
part52:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp54:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp54
next53:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f8_n
	VZEROUPPER
	RET

f_f8k_n:
	PREFETCH(A_OUT, pf55, pfd56)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g57:
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y0
	ADDQ      $32, R10
	MOVQ      $1, AX
k60:
	CMPQ      AX, A_K(R15)
	JGE       kd61
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z62
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d63
z62:
	VXORPS    Y11, Y11, Y11
d63:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y0, Y0
	INCQ      AX
	JMP       k60
kd61:
	CMPQ      R10, R11
	JGE       z64
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	JMP       d65
z64:
	VXORPS    Y1, Y1, Y1
d65:
	ADDQ      $32, R10
	MOVQ      $1, AX
k66:
	CMPQ      AX, A_K(R15)
	JGE       kd67
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z68
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d69
z68:
	VXORPS    Y11, Y11, Y11
d69:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y1, Y1
	INCQ      AX
	JMP       k66
kd67:
	CMPQ      R10, R11
	JGE       z70
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y2
	JMP       d71
z70:
	VXORPS    Y2, Y2, Y2
d71:
	ADDQ      $32, R10
	MOVQ      $1, AX
k72:
	CMPQ      AX, A_K(R15)
	JGE       kd73
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z74
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d75
z74:
	VXORPS    Y11, Y11, Y11
d75:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y2, Y2
	INCQ      AX
	JMP       k72
kd73:
	CMPQ      R10, R11
	JGE       z76
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y3
	JMP       d77
z76:
	VXORPS    Y3, Y3, Y3
d77:
	ADDQ      $32, R10
	MOVQ      $1, AX
k78:
	CMPQ      AX, A_K(R15)
	JGE       kd79
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z80
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d81
z80:
	VXORPS    Y11, Y11, Y11
d81:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y3, Y3
	INCQ      AX
	JMP       k78
kd79:
	CMPQ      R10, R11
	JGE       z82
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y4
	JMP       d83
z82:
	VXORPS    Y4, Y4, Y4
d83:
	ADDQ      $32, R10
	MOVQ      $1, AX
k84:
	CMPQ      AX, A_K(R15)
	JGE       kd85
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z86
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d87
z86:
	VXORPS    Y11, Y11, Y11
d87:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y4, Y4
	INCQ      AX
	JMP       k84
kd85:
	CMPQ      R10, R11
	JGE       z88
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y5
	JMP       d89
z88:
	VXORPS    Y5, Y5, Y5
d89:
	ADDQ      $32, R10
	MOVQ      $1, AX
k90:
	CMPQ      AX, A_K(R15)
	JGE       kd91
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z92
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d93
z92:
	VXORPS    Y11, Y11, Y11
d93:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y5, Y5
	INCQ      AX
	JMP       k90
kd91:
	CMPQ      R10, R11
	JGE       z94
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y6
	JMP       d95
z94:
	VXORPS    Y6, Y6, Y6
d95:
	ADDQ      $32, R10
	MOVQ      $1, AX
k96:
	CMPQ      AX, A_K(R15)
	JGE       kd97
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z98
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d99
z98:
	VXORPS    Y11, Y11, Y11
d99:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y6, Y6
	INCQ      AX
	JMP       k96
kd97:
	CMPQ      R10, R11
	JGE       z100
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y7
	JMP       d101
z100:
	VXORPS    Y7, Y7, Y7
d101:
	ADDQ      $32, R10
	MOVQ      $1, AX
k102:
	CMPQ      AX, A_K(R15)
	JGE       kd103
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z104
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d105
z104:
	VXORPS    Y11, Y11, Y11
d105:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y7, Y7
	INCQ      AX
	JMP       k102
kd103:
	TRANSPOSE8
	CMPQ      DX, $8
	JLT       part106
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g57
	JMP       next107
part106:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp108:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp108
next107:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f8k_n
	VZEROUPPER
	RET

f_f1_e:
	PREFETCH(A_OUT, pf109, pfd110)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g111:
	MOVQ      DX, R14
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t114)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	ADDQ      $32, R10
	MOVQ      R14, DX
	CMPQ      DX, $8
	JLT       part115
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g111
	JMP       next116
part115:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp117:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp117
next116:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f1_e
	VZEROUPPER
	RET

f_f2_e:
	PREFETCH(A_OUT, pf118, pfd119)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g120:
	MOVQ      DX, R14
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t123)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y0
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z124
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t126)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	JMP       d125
z124:
	VXORPS    Y1, Y1, Y1
d125:
	ADDQ      $32, R10
	VHADDPS   Y1, Y0, Y1
	VPERMPD   $0xd8, Y1, Y1
	MOVQ      R14, DX
	CMPQ      DX, $8
	JLT       part127
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g120
	JMP       next128
part127:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp129:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp129
next128:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f2_e
	VZEROUPPER
	RET

f_f4_e:
	PREFETCH(A_OUT, pf130, pfd131)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g132:
	MOVQ      DX, R14
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t135)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y0
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z136
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t138)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	JMP       d137
z136:
	VXORPS    Y1, Y1, Y1
d137:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z139
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t141)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y2
	JMP       d140
z139:
	VXORPS    Y2, Y2, Y2
d140:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z142
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t144)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y3
	JMP       d143
z142:
	VXORPS    Y3, Y3, Y3
d143:
	ADDQ      $32, R10
	VHADDPS   Y1, Y0, Y0
	VHADDPS   Y3, Y2, Y2
	VHADDPS   Y2, Y0, Y0
	VPERMPS   Y0, Y13, Y1
	MOVQ      R14, DX
	CMPQ      DX, $8
	JLT       part145
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g132
	JMP       next146
part145:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp147:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp147
next146:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f4_e
	VZEROUPPER
	RET

f_f8_e:
	PREFETCH(A_OUT, pf148, pfd149)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g150:
	MOVQ      DX, R14
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t153)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y0
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z154
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t156)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	JMP       d155
z154:
	VXORPS    Y1, Y1, Y1
d155:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z157
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t159)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y2
	JMP       d158
z157:
	VXORPS    Y2, Y2, Y2
d158:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z160
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t162)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y3
	JMP       d161
z160:
	VXORPS    Y3, Y3, Y3
d161:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z163
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t165)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y4
	JMP       d164
z163:
	VXORPS    Y4, Y4, Y4
d164:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z166
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t168)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y5
	JMP       d167
z166:
	VXORPS    Y5, Y5, Y5
d167:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z169
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t171)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y6
	JMP       d170
z169:
	VXORPS    Y6, Y6, Y6
d170:
	ADDQ      $32, R10
	CMPQ      R10, R11
	JGE       z172
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t174)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y7
	JMP       d173
z172:
	VXORPS    Y7, Y7, Y7
d173:
	ADDQ      $32, R10
	TRANSPOSE8
	MOVQ      R14, DX
	CMPQ      DX, $8
	JLT       part175
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g150
	JMP       next176
part175:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp177:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp177
next176:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f8_e
	VZEROUPPER
	RET

f_f8k_e:
	PREFETCH(A_OUT, pf178, pfd179)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_OUT(R15), R9
	MOVQ      A_H(R15), DX
	XORQ      R10, R10
g180:
	MOVQ      DX, R14
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t183)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y0
	ADDQ      $32, R10
	MOVQ      $1, AX
k184:
	CMPQ      AX, A_K(R15)
	JGE       kd185
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z186
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t188)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d187
z186:
	VXORPS    Y11, Y11, Y11
d187:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y0, Y0
	INCQ      AX
	JMP       k184
kd185:
	CMPQ      R10, R11
	JGE       z189
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t191)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y1
	JMP       d190
z189:
	VXORPS    Y1, Y1, Y1
d190:
	ADDQ      $32, R10
	MOVQ      $1, AX
k192:
	CMPQ      AX, A_K(R15)
	JGE       kd193
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z194
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t196)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d195
z194:
	VXORPS    Y11, Y11, Y11
d195:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y1, Y1
	INCQ      AX
	JMP       k192
kd193:
	CMPQ      R10, R11
	JGE       z197
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t199)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y2
	JMP       d198
z197:
	VXORPS    Y2, Y2, Y2
d198:
	ADDQ      $32, R10
	MOVQ      $1, AX
k200:
	CMPQ      AX, A_K(R15)
	JGE       kd201
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z202
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t204)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d203
z202:
	VXORPS    Y11, Y11, Y11
d203:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y2, Y2
	INCQ      AX
	JMP       k200
kd201:
	CMPQ      R10, R11
	JGE       z205
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t207)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y3
	JMP       d206
z205:
	VXORPS    Y3, Y3, Y3
d206:
	ADDQ      $32, R10
	MOVQ      $1, AX
k208:
	CMPQ      AX, A_K(R15)
	JGE       kd209
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z210
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t212)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d211
z210:
	VXORPS    Y11, Y11, Y11
d211:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y3, Y3
	INCQ      AX
	JMP       k208
kd209:
	CMPQ      R10, R11
	JGE       z213
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t215)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y4
	JMP       d214
z213:
	VXORPS    Y4, Y4, Y4
d214:
	ADDQ      $32, R10
	MOVQ      $1, AX
k216:
	CMPQ      AX, A_K(R15)
	JGE       kd217
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z218
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t220)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d219
z218:
	VXORPS    Y11, Y11, Y11
d219:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y4, Y4
	INCQ      AX
	JMP       k216
kd217:
	CMPQ      R10, R11
	JGE       z221
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t223)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y5
	JMP       d222
z221:
	VXORPS    Y5, Y5, Y5
d222:
	ADDQ      $32, R10
	MOVQ      $1, AX
k224:
	CMPQ      AX, A_K(R15)
	JGE       kd225
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z226
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t228)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d227
z226:
	VXORPS    Y11, Y11, Y11
d227:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y5, Y5
	INCQ      AX
	JMP       k224
kd225:
	CMPQ      R10, R11
	JGE       z229
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t231)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y6
	JMP       d230
z229:
	VXORPS    Y6, Y6, Y6
d230:
	ADDQ      $32, R10
	MOVQ      $1, AX
k232:
	CMPQ      AX, A_K(R15)
	JGE       kd233
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z234
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t236)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d235
z234:
	VXORPS    Y11, Y11, Y11
d235:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y6, Y6
	INCQ      AX
	JMP       k232
kd233:
	CMPQ      R10, R11
	JGE       z237
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t239)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y7
	JMP       d238
z237:
	VXORPS    Y7, Y7, Y7
d238:
	ADDQ      $32, R10
	MOVQ      $1, AX
k240:
	CMPQ      AX, A_K(R15)
	JGE       kd241
	MOVQ      AX, R12
	CMPQ      R10, R11
	JGE       z242
	VMOVUPS   (BX)(R10*1), Y8
	VADDPS    (SI)(R10*1), Y8, Y8
	TERM(Y8, Y9, t244)
	VMULPS    Y15, Y8, Y9
	VCMPPS    $0x1e, Y14, Y8, Y10
	VBLENDVPS Y10, Y8, Y9, Y9
	VMULPS    (R8)(R10*1), Y9, Y11
	JMP       d243
z242:
	VXORPS    Y11, Y11, Y11
d243:
	ADDQ      $32, R10
	MOVQ      R12, AX
	VADDPS    Y11, Y7, Y7
	INCQ      AX
	JMP       k240
kd241:
	TRANSPOSE8
	MOVQ      R14, DX
	CMPQ      DX, $8
	JLT       part245
	VMOVUPS   Y1, (R9)
	ADDQ      $32, R9
	SUBQ      $8, DX
	JNZ       g180
	JMP       next246
part245:
	// The last group of fewer than 8 heads, through tmp.
	MOVQ      A_TMP(R15), AX
	VMOVUPS   Y1, (AX)
	XORQ      R10, R10
cp247:
	MOVL      (AX)(R10*4), BX
	MOVL      BX, (R9)(R10*4)
	INCQ      R10
	CMPQ      R10, DX
	JLT       cp247
next246:
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       f_f8k_e
	VZEROUPPER
	RET

// FEATURES computes, after the blocks of an edge, the edge features'
// gradients from m (the scratch row), when a.def or a.dwe is set: per
// feature d, its term of dWE (m times the feature, added to row d) and its
// gradient, the products of m with row d of WE summed in eight lanes and
// then as a tree.
#define FEATURES(skip, feat, row, blk, nowe, done) \
	MOVQ         A_DEF(R15), AX; \
	ORQ          A_DWE(R15), AX; \
	JZ           skip; \
	XORQ         DX, DX; \
feat: \
	VBROADCASTSS (R13)(DX*4), Y7; \
	MOVQ         A_SCRATCH(R15), BX; \
	MOVQ         DX, AX; \
	IMULQ        R11, AX; \
	MOVQ         A_DWE(R15), R9; \
	TESTQ        R9, R9; \
	JZ           row; \
	ADDQ         AX, R9; \
row: \
	ADDQ         A_WE(R15), AX; \
	VXORPS       Y9, Y9, Y9; \
	XORQ         R10, R10; \
blk: \
	VMOVUPS      (BX)(R10*1), Y5; \
	VMULPS       (AX)(R10*1), Y5, Y8; \
	VADDPS       Y8, Y9, Y9; \
	TESTQ        R9, R9; \
	JZ           nowe; \
	VMULPS       Y7, Y5, Y8; \
	VADDPS       (R9)(R10*1), Y8, Y8; \
	VMOVUPS      Y8, (R9)(R10*1); \
nowe: \
	ADDQ         $32, R10; \
	CMPQ         R10, R11; \
	JLT          blk; \
	MOVQ         A_DEF(R15), AX; \
	TESTQ        AX, AX; \
	JZ           done; \
	VEXTRACTF128 $1, Y9, X10; \
	VHADDPS      X10, X9, X9; \
	VHADDPS      X9, X9, X9; \
	VHADDPS      X9, X9, X9; \
	MOVQ         R12, R14; \
	IMULQ        A_D(R15), R14; \
	ADDQ         DX, R14; \
	VMOVSS       X9, (AX)(R14*4); \
done: \
	INCQ         DX; \
	CMPQ         DX, A_D(R15); \
	JLT          feat; \
skip:

// func gatv2BwdF32(a *gatv2Args)
//
// For each edge of the group, block by block: t, the mask t > 0, the score
// gradients spread over their heads' lanes (Y4), the terms of dA (when
// a.da is set), and m = g A (times the slope where t <= 0), added to the
// node's row and, with edge features, kept in the scratch row for their
// gradients (FEATURES).
TEXT ·gatv2BwdF32(SB), NOSPLIT, $0-8
	MOVQ         a+0(FP), R15
	MOVQ         A_FIXED(R15), SI
	MOVQ         A_A(R15), R8
	MOVQ         A_ROW(R15), R11
	MOVQ         A_ACC(R15), DI
	VBROADCASTSS A_SLOPE(R15), Y15
	VXORPS       Y14, Y14, Y14
	XORQ         CX, CX
	MOVQ         A_MODE(R15), AX
	CMPQ         AX, $1
	JNE          bperm4
	VMOVUPS      perm2<>(SB), Y13
	JMP          bgo

bperm4:
	CMPQ    AX, $2
	JNE     bgo
	VMOVUPS perm4<>(SB), Y13

bgo:
	// Modes 3 and 4 (8 and 8k features) share a loop.
	CMPQ      AX, $4
	JNE       bmode
	MOVQ      $3, AX

bmode:
	CMPQ      A_DA(R15), $0
	JEQ       bnoa
	CMPQ      A_D(R15), $0
	JNE       b_edge_a
	CMPQ      AX, $0
	JEQ       b_m1_n_a
	CMPQ      AX, $1
	JEQ       b_m2_n_a
	CMPQ      AX, $2
	JEQ       b_m4_n_a
	CMPQ      AX, $3
	JEQ       b_m8_n_a
	JMP       b_m8_n_a
b_edge_a:
	CMPQ      AX, $0
	JEQ       b_m1_e_a
	CMPQ      AX, $1
	JEQ       b_m2_e_a
	CMPQ      AX, $2
	JEQ       b_m4_e_a
	CMPQ      AX, $3
	JEQ       b_m8_e_a
	JMP       b_m8_e_a

bnoa:
	CMPQ      A_D(R15), $0
	JNE       b_edge_x
	CMPQ      AX, $0
	JEQ       b_m1_n_x
	CMPQ      AX, $1
	JEQ       b_m2_n_x
	CMPQ      AX, $2
	JEQ       b_m4_n_x
	CMPQ      AX, $3
	JEQ       b_m8_n_x
	JMP       b_m8_n_x
b_edge_x:
	CMPQ      AX, $0
	JEQ       b_m1_e_x
	CMPQ      AX, $1
	JEQ       b_m2_e_x
	CMPQ      AX, $2
	JEQ       b_m4_e_x
	CMPQ      AX, $3
	JEQ       b_m8_e_x
	JMP       b_m8_e_x

b_m1_n_a:
	PREFETCH(A_DS, pf248, pfd249)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk250:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VMOVUPS   (R9), Y4
	ADDQ      $32, R9
	MOVQ      A_DA(R15), AX
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk250
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m1_n_a
	VZEROUPPER
	RET

b_m2_n_a:
	PREFETCH(A_DS, pf251, pfd252)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk253:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTF128 (R9), Y4
	VPERMPS   Y4, Y13, Y4
	ADDQ      $16, R9
	MOVQ      A_DA(R15), AX
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk253
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m2_n_a
	VZEROUPPER
	RET

b_m4_n_a:
	PREFETCH(A_DS, pf254, pfd255)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk256:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTSD (R9), Y4
	VPERMPS   Y4, Y13, Y4
	ADDQ      $8, R9
	MOVQ      A_DA(R15), AX
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk256
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m4_n_a
	VZEROUPPER
	RET

b_m8_n_a:
	PREFETCH(A_DS, pf257, pfd258)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	MOVQ      A_K(R15), R14
	XORQ      R10, R10
blk259:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTSS (R9), Y4
	DECQ      R14
	JNZ       nk260
	ADDQ      $4, R9
	MOVQ      A_K(R15), R14
nk260:
	MOVQ      A_DA(R15), AX
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk259
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m8_n_a
	VZEROUPPER
	RET

b_m1_e_a:
	PREFETCH(A_DS, pf261, pfd262)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk263:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	TERM(Y0, Y1, t264)
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VMOVUPS   (R9), Y4
	ADDQ      $32, R9
	MOVQ      A_DA(R15), AX
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk263
	FEATURES(fa265, fb266, fc267, fd268, fe269, ff270)
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m1_e_a
	VZEROUPPER
	RET

b_m2_e_a:
	PREFETCH(A_DS, pf271, pfd272)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk273:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	TERM(Y0, Y1, t274)
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTF128 (R9), Y4
	VPERMPS   Y4, Y13, Y4
	ADDQ      $16, R9
	MOVQ      A_DA(R15), AX
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk273
	FEATURES(fa275, fb276, fc277, fd278, fe279, ff280)
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m2_e_a
	VZEROUPPER
	RET

b_m4_e_a:
	PREFETCH(A_DS, pf281, pfd282)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk283:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	TERM(Y0, Y1, t284)
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTSD (R9), Y4
	VPERMPS   Y4, Y13, Y4
	ADDQ      $8, R9
	MOVQ      A_DA(R15), AX
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk283
	FEATURES(fa285, fb286, fc287, fd288, fe289, ff290)
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m4_e_a
	VZEROUPPER
	RET

b_m8_e_a:
	PREFETCH(A_DS, pf291, pfd292)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	MOVQ      A_K(R15), R14
	XORQ      R10, R10
blk293:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	TERM(Y0, Y1, t294)
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTSS (R9), Y4
	DECQ      R14
	JNZ       nk295
	ADDQ      $4, R9
	MOVQ      A_K(R15), R14
nk295:
	MOVQ      A_DA(R15), AX
	VMULPS    Y15, Y0, Y1
	VBLENDVPS Y2, Y0, Y1, Y1
	VMULPS    Y1, Y4, Y1
	VADDPS    (AX)(R10*1), Y1, Y1
	VMOVUPS   Y1, (AX)(R10*1)
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk293
	FEATURES(fa296, fb297, fc298, fd299, fe300, ff301)
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m8_e_a
	VZEROUPPER
	RET

b_m1_n_x:
	PREFETCH(A_DS, pf302, pfd303)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk304:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VMOVUPS   (R9), Y4
	ADDQ      $32, R9
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk304
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m1_n_x
	VZEROUPPER
	RET

b_m2_n_x:
	PREFETCH(A_DS, pf305, pfd306)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk307:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTF128 (R9), Y4
	VPERMPS   Y4, Y13, Y4
	ADDQ      $16, R9
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk307
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m2_n_x
	VZEROUPPER
	RET

b_m4_n_x:
	PREFETCH(A_DS, pf308, pfd309)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk310:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTSD (R9), Y4
	VPERMPS   Y4, Y13, Y4
	ADDQ      $8, R9
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk310
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m4_n_x
	VZEROUPPER
	RET

b_m8_n_x:
	PREFETCH(A_DS, pf311, pfd312)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	MOVQ      A_K(R15), R14
	XORQ      R10, R10
blk313:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTSS (R9), Y4
	DECQ      R14
	JNZ       nk314
	ADDQ      $4, R9
	MOVQ      A_K(R15), R14
nk314:
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk313
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m8_n_x
	VZEROUPPER
	RET

b_m1_e_x:
	PREFETCH(A_DS, pf315, pfd316)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk317:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	TERM(Y0, Y1, t318)
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VMOVUPS   (R9), Y4
	ADDQ      $32, R9
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk317
	FEATURES(fa319, fb320, fc321, fd322, fe323, ff324)
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m1_e_x
	VZEROUPPER
	RET

b_m2_e_x:
	PREFETCH(A_DS, pf325, pfd326)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk327:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	TERM(Y0, Y1, t328)
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTF128 (R9), Y4
	VPERMPS   Y4, Y13, Y4
	ADDQ      $16, R9
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk327
	FEATURES(fa329, fb330, fc331, fd332, fe333, ff334)
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m2_e_x
	VZEROUPPER
	RET

b_m4_e_x:
	PREFETCH(A_DS, pf335, pfd336)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	XORQ      R10, R10
blk337:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	TERM(Y0, Y1, t338)
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTSD (R9), Y4
	VPERMPS   Y4, Y13, Y4
	ADDQ      $8, R9
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk337
	FEATURES(fa339, fb340, fc341, fd342, fe343, ff344)
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m4_e_x
	VZEROUPPER
	RET

b_m8_e_x:
	PREFETCH(A_DS, pf345, pfd346)
	EDGEROWS
	MOVQ      R12, R9
	IMULQ     A_H(R15), R9
	SHLQ      $2, R9
	ADDQ      A_DS(R15), R9
	MOVQ      A_K(R15), R14
	XORQ      R10, R10
blk347:
	VMOVUPS   (BX)(R10*1), Y0
	VADDPS    (SI)(R10*1), Y0, Y0
	TERM(Y0, Y1, t348)
	VCMPPS    $0x1e, Y14, Y0, Y2 // t > 0 (ordered, quiet)
	VBROADCASTSS (R9), Y4
	DECQ      R14
	JNZ       nk349
	ADDQ      $4, R9
	MOVQ      A_K(R15), R14
nk349:
	VMULPS    (R8)(R10*1), Y4, Y5
	VMULPS    Y15, Y5, Y6
	VBLENDVPS Y2, Y5, Y6, Y5
	VADDPS    (DI)(R10*1), Y5, Y6
	VMOVUPS   Y6, (DI)(R10*1)
	MOVQ      A_SCRATCH(R15), AX
	VMOVUPS   Y5, (AX)(R10*1)
	ADDQ      $32, R10
	CMPQ      R10, R11
	JLT       blk347
	FEATURES(fa350, fb351, fc352, fd353, fe354, ff355)
	INCQ      CX
	CMPQ      CX, A_N(R15)
	JLT       b_m8_e_x
	VZEROUPPER
	RET
