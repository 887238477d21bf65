//go:build amd64 && !purego

#include "textflag.h"
#include "exp_amd64.h"

// AVX2 and FMA kernels of the streaming edge softmax (stream.go): each call
// walks n consecutive edges in edge-ID order, rows of w floats (w a
// positive multiple of 8) that start at x, out, y, dy or ds and follow each
// other, and reaches the row of the edge's group, keys[i], in a per-group
// table: a float32 table row is w floats, a float64 one 2*w. Group rows are
// read and written in place; the tables are small enough to stay cached
// (stream.go chooses when), so the edge rows are the only memory stream.
// expScatterF32 prefetches the table rows of the edge dist positions ahead
// (dist > 0); the other kernels were faster without prefetching.

// KEYROW sets AX to the byte offset of the table row of keys[i] (keys in
// R8, i in R13, float32 row bytes in R11).
#define KEYROW(i) \
	MOVLQSX (R8)(i*4), AX \
	IMULQ   R11, AX

// PREFETCH prefetches the first line of the float32 table row at base of
// the edge dist (R12) positions ahead of R13, when that is below n (CX),
// using R10; float64 tables pass scale 2 to reach the same row.
#define PREFETCH(base, scale) \
	LEAQ       (R13)(R12*1), R10 \
	CMPQ       R10, CX \
	JGE        4(PC) \
	MOVLQSX    (R8)(R10*4), R10 \
	IMULQ      R11, R10 \
	PREFETCHT0 (base)(R10*scale)

// TABLEROWS is the edge loop of maxScatterF32 and scaleGatherF32: for edge
// R13 < CX, the blocks of eight floats of its row at E (which then moves on
// by a row, R11 bytes) combined by OP with its group's table row from T,
// stored to DST: AX (the table row) or E (the edge row).
#define TABLEROWS(edge, block, OP, E, T, DST) \
edge: \
	KEYROW(R13) \
	ADDQ    T, AX \
	XORQ    BX, BX \
block: \
	VMOVUPS (E)(BX*1), Y0 \
	OP      (AX)(BX*1), Y0, Y0 \
	VMOVUPS Y0, (DST)(BX*1) \
	ADDQ    $32, BX \
	CMPQ    BX, R11 \
	JLT     block \
	ADDQ    R11, E \
	INCQ    R13 \
	CMPQ    R13, CX \
	JLT     edge

// func maxScatterF32(m, x *float32, keys *int32, n, w int)
//
// Sets every table row m[keys[i]] to the elementwise maximum of itself and
// the row of edge i of x. A NaN in x leaves the maximum as it was (the
// exponential pass turns it into a NaN sum).
TEXT ·maxScatterF32(SB), NOSPLIT, $0-40
	MOVQ m+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ keys+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ w+32(FP), R11
	SHLQ $2, R11 // row bytes
	XORQ R13, R13
	TESTQ CX, CX
	JZ    mdone

	TABLEROWS(medge, mblock, VMAXPS, SI, DI, AX)

mdone:
	VZEROUPPER
	RET

// func expScatterF32(out, x, m *float32, s *float64, keys *int32, n, w, dist int)
//
// Writes to the row of edge i of out e^(x - m[keys[i]]) (EXP) and adds it,
// in float64, to the table row s[keys[i]]. out may be x.
TEXT ·expScatterF32(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ m+16(FP), R9
	MOVQ keys+32(FP), R8
	MOVQ n+40(FP), CX
	MOVQ w+48(FP), R11
	SHLQ $2, R11 // row bytes
	MOVQ dist+56(FP), R12

	LOADEXP
	MOVQ         s+24(FP), R15 // after the last global access

	XORQ  R13, R13
	TESTQ CX, CX
	JZ    edone

eedge:
	TESTQ R12, R12
	JZ    erow
	PREFETCH(R9, 1)
	PREFETCH(R15, 2)

erow:
	KEYROW(R13)
	LEAQ (R15)(AX*2), BX // float64 table row
	ADDQ R9, AX          // float32 table row
	XORQ R10, R10        // byte offset of the block in the edge row

eblock:
	VMOVUPS      (SI)(R10*1), Y0
	VSUBPS       (AX)(R10*1), Y0, Y0
	EXP
	VMOVUPS      Y3, (DI)(R10*1)
	VCVTPS2PD    X3, Y0
	VEXTRACTF128 $1, Y3, X3
	VCVTPS2PD    X3, Y3
	VADDPD       (BX), Y0, Y0
	VADDPD       32(BX), Y3, Y3
	VMOVUPD      Y0, (BX)
	VMOVUPD      Y3, 32(BX)
	ADDQ         $64, BX
	ADDQ         $32, R10
	CMPQ         R10, R11
	JLT          eblock

	ADDQ R11, SI
	ADDQ R11, DI
	INCQ R13
	CMPQ R13, CX
	JLT  eedge

edone:
	VZEROUPPER
	RET

// func scaleGatherF32(out, r *float32, keys *int32, n, w int)
//
// Multiplies the row of edge i of out by the table row r[keys[i]].
TEXT ·scaleGatherF32(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ r+8(FP), SI
	MOVQ keys+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ w+32(FP), R11
	SHLQ $2, R11 // row bytes
	XORQ R13, R13
	TESTQ CX, CX
	JZ    sdone

	TABLEROWS(sedge, sblock, VMULPS, DI, SI, DI)

sdone:
	VZEROUPPER
	RET

// func dotScatterF32(s *float64, y, dy *float32, keys *int32, n, w int)
//
// Adds the float64 products y*dy of the rows of edge i to the table row
// s[keys[i]]. float32 products are exact in float64, so the fused
// multiply-add gives the bits of a product and a sum.
TEXT ·dotScatterF32(SB), NOSPLIT, $0-48
	MOVQ s+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ dy+16(FP), DX
	MOVQ keys+24(FP), R8
	MOVQ n+32(FP), CX
	MOVQ w+40(FP), R11
	SHLQ $2, R11 // row bytes
	XORQ R13, R13
	TESTQ CX, CX
	JZ    ddone

dedge:
	KEYROW(R13)
	LEAQ (DI)(AX*2), BX
	XORQ R10, R10

dblock:
	VCVTPS2PD   (SI)(R10*1), Y0
	VCVTPS2PD   16(SI)(R10*1), Y1
	VCVTPS2PD   (DX)(R10*1), Y2
	VCVTPS2PD   16(DX)(R10*1), Y3
	VMOVUPD     (BX), Y4
	VFMADD231PD Y2, Y0, Y4
	VMOVUPD     Y4, (BX)
	VMOVUPD     32(BX), Y4
	VFMADD231PD Y3, Y1, Y4
	VMOVUPD     Y4, 32(BX)
	ADDQ        $64, BX
	ADDQ        $32, R10
	CMPQ        R10, R11
	JLT         dblock

	ADDQ R11, SI
	ADDQ R11, DX
	INCQ R13
	CMPQ R13, CX
	JLT  dedge

ddone:
	VZEROUPPER
	RET

// func gradGatherF32(ds, y, dy *float32, s *float64, keys *int32, n, w int)
//
// Writes to the row of edge i of ds y*(dy - s[keys[i]]), computed in
// float64 as backwardGroupF32 does. ds may be y or dy.
TEXT ·gradGatherF32(SB), NOSPLIT, $0-56
	MOVQ ds+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ dy+16(FP), DX
	MOVQ s+24(FP), R9
	MOVQ keys+32(FP), R8
	MOVQ n+40(FP), CX
	MOVQ w+48(FP), R11
	SHLQ $2, R11 // row bytes
	XORQ R13, R13
	TESTQ CX, CX
	JZ    gdone

gedge:
	KEYROW(R13)
	LEAQ (R9)(AX*2), BX
	XORQ R10, R10

gblock:
	VCVTPS2PD   (DX)(R10*1), Y0
	VCVTPS2PD   16(DX)(R10*1), Y1
	VCVTPS2PD   (SI)(R10*1), Y2
	VCVTPS2PD   16(SI)(R10*1), Y3
	VSUBPD      (BX), Y0, Y0
	VSUBPD      32(BX), Y1, Y1
	VMULPD      Y2, Y0, Y0
	VMULPD      Y3, Y1, Y1
	VCVTPD2PSY  Y0, X0
	VCVTPD2PSY  Y1, X1
	VINSERTF128 $1, X1, Y0, Y0
	VMOVUPS     Y0, (DI)(R10*1)
	ADDQ        $64, BX
	ADDQ        $32, R10
	CMPQ        R10, R11
	JLT         gblock

	ADDQ R11, SI
	ADDQ R11, DX
	ADDQ R11, DI
	INCQ R13
	CMPQ R13, CX
	JLT  gedge

gdone:
	VZEROUPPER
	RET

// The streaming kernel of GAT's attention backward with eight heads (one
// 32-byte row per node and per edge): the sign of the score el[src[i]] +
// er[dst[i]] before the LeakyReLU is computed from node rows that stay
// cached; dst is the group of every edge. (A streaming forward, computing
// the scores in registers in the maxima and exponential passes, was no
// faster than attnFwd8: each edge gathers three or four node and table rows
// per pass.)

// func attnGradGather8(ds, y, dy, el, er *float32, s *float64, src, dst *int32, n int, slope float32)
//
// Writes to the row of edge i of ds y*(dy - s[dst[i]]), computed in float64
// and rounded, times slope where el[src[i]] + er[dst[i]] <= 0, as attnBwd8
// computes it. ds may be y or dy.
TEXT ·attnGradGather8(SB), NOSPLIT, $0-76
	MOVQ         ds+0(FP), DI
	MOVQ         y+8(FP), R12
	MOVQ         dy+16(FP), DX
	MOVQ         el+24(FP), SI
	MOVQ         er+32(FP), R8
	MOVQ         s+40(FP), R9
	MOVQ         src+48(FP), R10
	MOVQ         dst+56(FP), R11
	MOVQ         n+64(FP), CX
	VBROADCASTSS slope+72(FP), Y12
	VXORPS       Y13, Y13, Y13
	XORQ         R13, R13
	TESTQ        CX, CX
	JZ           agdone

agedge:
	MOVLQSX      (R10)(R13*4), AX
	SHLQ         $5, AX
	MOVLQSX      (R11)(R13*4), BX
	SHLQ         $5, BX
	VCVTPS2PD    (R12), Y1
	VCVTPS2PD    16(R12), Y2
	VCVTPS2PD    (DX), Y4
	VCVTPS2PD    16(DX), Y5
	VSUBPD       (R9)(BX*2), Y4, Y4
	VSUBPD       32(R9)(BX*2), Y5, Y5
	VMULPD       Y4, Y1, Y1
	VMULPD       Y5, Y2, Y2
	VCVTPD2PSY   Y1, X1
	VCVTPD2PSY   Y2, X2
	VINSERTF128  $1, X2, Y1, Y6
	VMOVUPS      (SI)(AX*1), Y7
	VADDPS       (R8)(BX*1), Y7, Y7
	VCMPPS       $0x02, Y13, Y7, Y8
	VMULPS       Y12, Y6, Y11
	VBLENDVPS    Y8, Y11, Y6, Y6
	VMOVUPS      Y6, (DI)
	ADDQ         $32, R12
	ADDQ         $32, DX
	ADDQ         $32, DI
	INCQ         R13
	CMPQ         R13, CX
	JLT          agedge

agdone:
	VZEROUPPER
	RET
