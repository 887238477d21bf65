//go:build amd64 && !purego

#include "textflag.h"

// func addF32(c, a, b *float32, n int)
// c[i] = a[i] + b[i] for i < n, n a multiple of 8.
TEXT ·addF32(SB), NOSPLIT, $0-32
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), BX
	MOVQ n+24(FP), DX
	XORQ CX, CX
	CMPQ DX, $32
	JLT  tail

loop32:
	VMOVUPS (SI)(CX*4), Y0
	VMOVUPS 32(SI)(CX*4), Y1
	VMOVUPS 64(SI)(CX*4), Y2
	VMOVUPS 96(SI)(CX*4), Y3
	VADDPS  (BX)(CX*4), Y0, Y0
	VADDPS  32(BX)(CX*4), Y1, Y1
	VADDPS  64(BX)(CX*4), Y2, Y2
	VADDPS  96(BX)(CX*4), Y3, Y3
	VMOVUPS Y0, (DI)(CX*4)
	VMOVUPS Y1, 32(DI)(CX*4)
	VMOVUPS Y2, 64(DI)(CX*4)
	VMOVUPS Y3, 96(DI)(CX*4)
	ADDQ    $32, CX
	LEAQ    32(CX), AX
	CMPQ    AX, DX
	JLE     loop32

tail:
	LEAQ 8(CX), AX
	CMPQ AX, DX
	JGT  done
	VMOVUPS (SI)(CX*4), Y0
	VADDPS  (BX)(CX*4), Y0, Y0
	VMOVUPS Y0, (DI)(CX*4)
	MOVQ    AX, CX
	JMP     tail

done:
	VZEROUPPER
	RET
