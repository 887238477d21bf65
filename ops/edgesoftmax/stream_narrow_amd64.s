//go:build amd64 && !purego

#include "textflag.h"
#include "exp_amd64.h"

// The kernels of the streaming edge softmax (stream_amd64.s) for rows of w
// = 2 or 4 floats: the same arithmetic, on each edge's row and its group's
// table rows, in the same order, so with the same results. The
// exponential and scaling passes pack the rows of 4 (w = 2) or 2 (w = 4)
// consecutive edges, one vector of the edge stream, and gather their table
// rows into a vector; the passes that scatter into the tables go edge by
// edge (consecutive edges may share a group), on 2- or 4-lane vectors.
// Edge rows start at x, out, y, dy or ds and follow each other; float32
// table rows are w floats, float64 ones w doubles; keys in R8, n in CX,
// the edge index in R13.

// KEY sets AX to keys[R13+i] shifted left by sh (the byte offset of its
// table row).
#define KEY(i, sh) \
	MOVLQSX i(R8)(R13*4), AX \
	SHLQ    $sh, AX

// NPF prefetches, when edge R13+off+R11 (R11 the prefetch distance) is
// below n, the first lines of its group's rows of the float32 table at R9
// (the row's byte offset: the key shifted left by sh) and of the float64
// table at R10, using BX.
#define NPF(off, sh) \
	LEAQ       off(R13)(R11*1), BX \
	CMPQ       BX, CX \
	JGE        6(PC) \
	MOVLQSX    (R8)(BX*4), BX \
	SHLQ       $sh, BX \
	PREFETCHT0 (R9)(BX*1) \
	SHLQ       $1, BX \
	PREFETCHT0 (R10)(BX*1)

// func maxScatterNF32(m, x *float32, keys *int32, n, w int)
//
// maxScatterF32 for w = 2 or 4.
TEXT ·maxScatterNF32(SB), NOSPLIT, $0-40
	MOVQ  m+0(FP), DI
	MOVQ  x+8(FP), SI
	MOVQ  keys+16(FP), R8
	MOVQ  n+24(FP), CX
	XORQ  R13, R13
	TESTQ CX, CX
	JZ    mndone
	CMPQ  w+32(FP), $2
	JNE   mn4

mn2:
	KEY(0, 3)
	VMOVSD (SI), X0
	VMOVSD (DI)(AX*1), X1
	VMAXPS X1, X0, X0
	VMOVSD X0, (DI)(AX*1)
	ADDQ   $8, SI
	INCQ   R13
	CMPQ   R13, CX
	JLT    mn2
	JMP    mndone

mn4:
	KEY(0, 4)
	VMOVUPS (SI), X0
	VMAXPS  (DI)(AX*1), X0, X0
	VMOVUPS X0, (DI)(AX*1)
	ADDQ    $16, SI
	INCQ    R13
	CMPQ    R13, CX
	JLT     mn4

mndone:
	VZEROUPPER
	RET

// func expScatterNF32(out, x, m *float32, s *float64, keys *int32, n, w, dist int)
//
// expScatterF32 for w = 2 or 4, prefetching the table rows of the edges
// dist positions ahead of each vector of edges (dist > 0).
TEXT ·expScatterNF32(SB), NOSPLIT, $0-64
	MOVQ out+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ m+16(FP), R9
	MOVQ s+24(FP), R10
	MOVQ keys+32(FP), R8
	MOVQ n+40(FP), CX
	MOVQ dist+56(FP), R11
	LOADEXP
	XORQ R13, R13
	CMPQ w+48(FP), $2
	JNE  en4

	MOVQ CX, R12
	ANDQ $-4, R12
	CMPQ R13, R12
	JGE  en2one

en2four:
	TESTQ R11, R11
	JZ    en2gather
	NPF(0, 3)
	NPF(1, 3)
	NPF(2, 3)
	NPF(3, 3)

en2gather:
	// The maxima of the 4 edges' groups, gathered.
	KEY(0, 3)
	VMOVSD      (R9)(AX*1), X1
	KEY(4, 3)
	VMOVHPS     (R9)(AX*1), X1, X1
	KEY(8, 3)
	VMOVSD      (R9)(AX*1), X2
	KEY(12, 3)
	VMOVHPS     (R9)(AX*1), X2, X2
	VINSERTF128 $1, X2, Y1, Y1
	VMOVUPS     (SI), Y0
	VSUBPS      Y1, Y0, Y0
	EXP
	VMOVUPS     Y3, (DI)
	// The sums, edge after edge.
	VCVTPS2PD    X3, Y0
	VEXTRACTF128 $1, Y3, X3
	VCVTPS2PD    X3, Y3
	KEY(0, 4)
	VADDPD       (R10)(AX*1), X0, X1
	VMOVUPD      X1, (R10)(AX*1)
	KEY(4, 4)
	VEXTRACTF128 $1, Y0, X0
	VADDPD       (R10)(AX*1), X0, X1
	VMOVUPD      X1, (R10)(AX*1)
	KEY(8, 4)
	VADDPD       (R10)(AX*1), X3, X1
	VMOVUPD      X1, (R10)(AX*1)
	KEY(12, 4)
	VEXTRACTF128 $1, Y3, X3
	VADDPD       (R10)(AX*1), X3, X1
	VMOVUPD      X1, (R10)(AX*1)
	ADDQ         $32, SI
	ADDQ         $32, DI
	ADDQ         $4, R13
	CMPQ         R13, R12
	JLT          en2four

en2one:
	CMPQ      R13, CX
	JGE       endone
	KEY(0, 3)
	VMOVSD    (SI), X0
	VMOVSD    (R9)(AX*1), X1
	VSUBPS    X1, X0, X0
	EXP
	VMOVSD    X3, (DI)
	VCVTPS2PD X3, X0
	SHLQ      $1, AX
	VADDPD    (R10)(AX*1), X0, X0
	VMOVUPD   X0, (R10)(AX*1)
	ADDQ      $8, SI
	ADDQ      $8, DI
	INCQ      R13
	JMP       en2one

en4:
	MOVQ CX, R12
	ANDQ $-2, R12
	CMPQ R13, R12
	JGE  en4one

en4two:
	TESTQ R11, R11
	JZ    en4gather
	NPF(0, 4)
	NPF(1, 4)

en4gather:
	KEY(0, 4)
	VMOVUPS      (R9)(AX*1), X1
	KEY(4, 4)
	VINSERTF128  $1, (R9)(AX*1), Y1, Y1
	VMOVUPS      (SI), Y0
	VSUBPS       Y1, Y0, Y0
	EXP
	VMOVUPS      Y3, (DI)
	VCVTPS2PD    X3, Y0
	VEXTRACTF128 $1, Y3, X3
	VCVTPS2PD    X3, Y3
	KEY(0, 5)
	VADDPD       (R10)(AX*1), Y0, Y0
	VMOVUPD      Y0, (R10)(AX*1)
	KEY(4, 5)
	VADDPD       (R10)(AX*1), Y3, Y3
	VMOVUPD      Y3, (R10)(AX*1)
	ADDQ         $32, SI
	ADDQ         $32, DI
	ADDQ         $2, R13
	CMPQ         R13, R12
	JLT          en4two

en4one:
	CMPQ      R13, CX
	JGE       endone
	KEY(0, 4)
	VMOVUPS   (SI), X0
	VSUBPS    (R9)(AX*1), X0, X0
	EXP
	VMOVUPS   X3, (DI)
	VCVTPS2PD X3, Y0
	SHLQ      $1, AX
	VADDPD    (R10)(AX*1), Y0, Y0
	VMOVUPD   Y0, (R10)(AX*1)
	ADDQ      $16, SI
	ADDQ      $16, DI
	INCQ      R13
	JMP       en4one

endone:
	VZEROUPPER
	RET

// func scaleGatherNF32(out, r *float32, keys *int32, n, w int)
//
// scaleGatherF32 for w = 2 or 4.
TEXT ·scaleGatherNF32(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), DI
	MOVQ r+8(FP), SI
	MOVQ keys+16(FP), R8
	MOVQ n+24(FP), CX
	XORQ R13, R13
	CMPQ w+32(FP), $2
	JNE  sn4

	MOVQ CX, R12
	ANDQ $-4, R12
	CMPQ R13, R12
	JGE  sn2one

sn2four:
	KEY(0, 3)
	VMOVSD      (SI)(AX*1), X1
	KEY(4, 3)
	VMOVHPS     (SI)(AX*1), X1, X1
	KEY(8, 3)
	VMOVSD      (SI)(AX*1), X2
	KEY(12, 3)
	VMOVHPS     (SI)(AX*1), X2, X2
	VINSERTF128 $1, X2, Y1, Y1
	VMULPS      (DI), Y1, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, DI
	ADDQ        $4, R13
	CMPQ        R13, R12
	JLT         sn2four

sn2one:
	CMPQ   R13, CX
	JGE    sndone
	KEY(0, 3)
	VMOVSD (SI)(AX*1), X1
	VMOVSD (DI), X0
	VMULPS X1, X0, X0
	VMOVSD X0, (DI)
	ADDQ   $8, DI
	INCQ   R13
	JMP    sn2one

sn4:
	MOVQ CX, R12
	ANDQ $-2, R12
	CMPQ R13, R12
	JGE  sn4one

sn4two:
	KEY(0, 4)
	VMOVUPS     (SI)(AX*1), X1
	KEY(4, 4)
	VINSERTF128 $1, (SI)(AX*1), Y1, Y1
	VMULPS      (DI), Y1, Y0
	VMOVUPS     Y0, (DI)
	ADDQ        $32, DI
	ADDQ        $2, R13
	CMPQ        R13, R12
	JLT         sn4two

sn4one:
	CMPQ    R13, CX
	JGE     sndone
	KEY(0, 4)
	VMOVUPS (DI), X0
	VMULPS  (SI)(AX*1), X0, X0
	VMOVUPS X0, (DI)
	ADDQ    $16, DI
	INCQ    R13
	JMP     sn4one

sndone:
	VZEROUPPER
	RET

// func dotScatterNF32(s *float64, y, dy *float32, keys *int32, n, w int)
//
// dotScatterF32 for w = 2 or 4.
TEXT ·dotScatterNF32(SB), NOSPLIT, $0-48
	MOVQ  s+0(FP), DI
	MOVQ  y+8(FP), SI
	MOVQ  dy+16(FP), DX
	MOVQ  keys+24(FP), R8
	MOVQ  n+32(FP), CX
	XORQ  R13, R13
	TESTQ CX, CX
	JZ    dndone
	CMPQ  w+40(FP), $2
	JNE   dn4

dn2:
	KEY(0, 4)
	VCVTPS2PD   (SI), X0
	VCVTPS2PD   (DX), X2
	VMOVUPD     (DI)(AX*1), X4
	VFMADD231PD X2, X0, X4
	VMOVUPD     X4, (DI)(AX*1)
	ADDQ        $8, SI
	ADDQ        $8, DX
	INCQ        R13
	CMPQ        R13, CX
	JLT         dn2
	JMP         dndone

dn4:
	KEY(0, 5)
	VCVTPS2PD   (SI), Y0
	VCVTPS2PD   (DX), Y2
	VMOVUPD     (DI)(AX*1), Y4
	VFMADD231PD Y2, Y0, Y4
	VMOVUPD     Y4, (DI)(AX*1)
	ADDQ        $16, SI
	ADDQ        $16, DX
	INCQ        R13
	CMPQ        R13, CX
	JLT         dn4

dndone:
	VZEROUPPER
	RET

// func gradGatherNF32(ds, y, dy *float32, s *float64, keys *int32, n, w int)
//
// gradGatherF32 for w = 2 or 4.
TEXT ·gradGatherNF32(SB), NOSPLIT, $0-56
	MOVQ  ds+0(FP), DI
	MOVQ  y+8(FP), SI
	MOVQ  dy+16(FP), DX
	MOVQ  s+24(FP), R9
	MOVQ  keys+32(FP), R8
	MOVQ  n+40(FP), CX
	XORQ  R13, R13
	TESTQ CX, CX
	JZ    gndone
	CMPQ  w+48(FP), $2
	JNE   gn4

gn2:
	KEY(0, 4)
	VCVTPS2PD  (DX), X0
	VCVTPS2PD  (SI), X2
	VSUBPD     (R9)(AX*1), X0, X0
	VMULPD     X2, X0, X0
	VCVTPD2PSX X0, X0
	VMOVSD     X0, (DI)
	ADDQ       $8, SI
	ADDQ       $8, DX
	ADDQ       $8, DI
	INCQ       R13
	CMPQ       R13, CX
	JLT        gn2
	JMP        gndone

gn4:
	KEY(0, 5)
	VCVTPS2PD  (DX), Y0
	VCVTPS2PD  (SI), Y2
	VSUBPD     (R9)(AX*1), Y0, Y0
	VMULPD     Y2, Y0, Y0
	VCVTPD2PSY Y0, X0
	VMOVUPS    X0, (DI)
	ADDQ       $16, SI
	ADDQ       $16, DX
	ADDQ       $16, DI
	INCQ       R13
	CMPQ       R13, CX
	JLT        gn4

gndone:
	VZEROUPPER
	RET

// func attnGradGatherNF32(ds, y, dy, el, er *float32, s *float64, src, dst *int32, n, w int, slope float32)
//
// attnGradGather8 (stream_amd64.s) for w = 2 or 4 heads, as attnBwd2 and
// attnBwd4 compute it. ds may be y or dy.
TEXT ·attnGradGatherNF32(SB), NOSPLIT, $0-84
	MOVQ         ds+0(FP), DI
	MOVQ         y+8(FP), R12
	MOVQ         dy+16(FP), DX
	MOVQ         el+24(FP), SI
	MOVQ         er+32(FP), R8
	MOVQ         s+40(FP), R9
	MOVQ         src+48(FP), R10
	MOVQ         dst+56(FP), R11
	MOVQ         n+64(FP), CX
	VBROADCASTSS slope+80(FP), Y12
	VXORPS       Y13, Y13, Y13
	XORQ         R13, R13
	TESTQ        CX, CX
	JZ           agndone
	CMPQ         w+72(FP), $2
	JNE          agn4

agn2:
	MOVLQSX    (R10)(R13*4), AX
	MOVLQSX    (R11)(R13*4), BX
	VMOVSD     (SI)(AX*8), X7
	VMOVSD     (R8)(BX*8), X9
	VADDPS     X9, X7, X7
	SHLQ       $4, BX
	VCVTPS2PD  (R12), X1
	VCVTPS2PD  (DX), X4
	VSUBPD     (R9)(BX*1), X4, X4
	VMULPD     X4, X1, X1
	VCVTPD2PSX X1, X6
	VCMPPS     $0x02, X13, X7, X8
	VMULPS     X12, X6, X11
	VBLENDVPS  X8, X11, X6, X6
	VMOVSD     X6, (DI)
	ADDQ       $8, R12
	ADDQ       $8, DX
	ADDQ       $8, DI
	INCQ       R13
	CMPQ       R13, CX
	JLT        agn2
	JMP        agndone

agn4:
	MOVLQSX    (R10)(R13*4), AX
	MOVLQSX    (R11)(R13*4), BX
	SHLQ       $4, AX
	SHLQ       $4, BX
	VMOVUPS    (SI)(AX*1), X7
	VADDPS     (R8)(BX*1), X7, X7
	VCVTPS2PD  (R12), Y1
	VCVTPS2PD  (DX), Y4
	VSUBPD     (R9)(BX*2), Y4, Y4
	VMULPD     Y4, Y1, Y1
	VCVTPD2PSY Y1, X6
	VCMPPS     $0x02, X13, X7, X8
	VMULPS     X12, X6, X11
	VBLENDVPS  X8, X11, X6, X6
	VMOVUPS    X6, (DI)
	ADDQ       $16, R12
	ADDQ       $16, DX
	ADDQ       $16, DI
	INCQ       R13
	CMPQ       R13, CX
	JLT        agn4

agndone:
	VZEROUPPER
	RET
