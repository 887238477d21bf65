//go:build amd64 && !purego

#include "textflag.h"

// The constants of mix (dropout.go): its index multiplier and the two
// multipliers of SplitMix64's finaliser, each in the four 64-bit lanes.
DATA mixK3<>+0(SB)/8, $0x94d049bb133111eb
DATA mixK3<>+8(SB)/8, $0x94d049bb133111eb
DATA mixK3<>+16(SB)/8, $0x94d049bb133111eb
DATA mixK3<>+24(SB)/8, $0x94d049bb133111eb
GLOBL mixK3<>(SB), RODATA|NOPTR, $32

DATA mixK2<>+0(SB)/8, $0xbf58476d1ce4e5b9
DATA mixK2<>+8(SB)/8, $0xbf58476d1ce4e5b9
DATA mixK2<>+16(SB)/8, $0xbf58476d1ce4e5b9
DATA mixK2<>+24(SB)/8, $0xbf58476d1ce4e5b9
GLOBL mixK2<>(SB), RODATA|NOPTR, $32

// mixSteps holds 0, 1, 2, 3 and 4 times mix's index multiplier, modulo
// 2^64: the offsets of a group's four counters and the step between groups.
DATA mixSteps<>+0(SB)/8, $0
DATA mixSteps<>+8(SB)/8, $0x94d049bb133111eb
DATA mixSteps<>+16(SB)/8, $0x29a09376266223d6
DATA mixSteps<>+24(SB)/8, $0xbe70dd31399335c1
DATA mixSteps<>+32(SB)/8, $0x534126ec4cc447ac
GLOBL mixSteps<>(SB), RODATA|NOPTR, $40

// MUL64(k, khi) sets Y0 to Y0 times k in each 64-bit lane, modulo 2^64,
// from 32-bit products: lo*klo + ((hi*klo + lo*khi) << 32); khi holds the
// high halves of k in the low halves of the lanes. Y1, Y2 are scratch.
#define MUL64(k, khi) \
	VPSRLQ   $32, Y0, Y1 \
	VPMULUDQ k, Y1, Y1 \
	VPMULUDQ khi, Y0, Y2 \
	VPADDQ   Y2, Y1, Y1 \
	VPSLLQ   $32, Y1, Y1 \
	VPMULUDQ k, Y0, Y0 \
	VPADDQ   Y1, Y0, Y0

// XSHR(s) sets Y0 to Y0 xor Y0 >> s in each 64-bit lane.
#define XSHR(s) \
	VPSRLQ $s, Y0, Y1 \
	VPXOR  Y1, Y0, Y0

// func maskF32(y, x *float32, groups int, key, ctr uint64, threshold uint64, scale float32, relu int)
//
// Register use: Y3 the counters (q+1)*K3 of the group's four hashes, Y4
// four times K3, Y5 key, Y6 K2, Y7 K2's high halves, Y8 K3, Y9 K3's high
// halves, Y10 the threshold in 16-bit lanes, Y11 scale, Y12 zero.
TEXT ·maskF32(SB), NOSPLIT, $0-64
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ groups+16(FP), CX
	TESTQ CX, CX
	JLE  done

	VMOVDQU mixK3<>(SB), Y8
	VPSRLQ  $32, Y8, Y9
	VMOVDQU mixK2<>(SB), Y6
	VPSRLQ  $32, Y6, Y7

	// Y3 = ctr + (0, 1, 2, 3) * K3; Y4 = 4 * K3 in every lane.
	VPBROADCASTQ ctr+32(FP), Y3
	VPADDQ       mixSteps<>(SB), Y3, Y3
	VPBROADCASTQ mixSteps<>+32(SB), Y4

	VPBROADCASTQ key+24(FP), Y5
	MOVQ         threshold+40(FP), AX
	VMOVQ        AX, X10
	VPBROADCASTW X10, Y10
	VBROADCASTSS scale+48(FP), Y11
	VXORPS       Y12, Y12, Y12
	MOVQ         relu+56(FP), DX

loop:
	// The four hashes of mix, lanes q..q+3: 64 bits each, the 16-bit draws
	// of 16 consecutive elements in order.
	VPXOR  Y5, Y3, Y0
	XSHR(30)
	MUL64(Y6, Y7)
	XSHR(27)
	MUL64(Y8, Y9)
	XSHR(31)
	VPADDQ Y4, Y3, Y3

	// Kept where the draw is at least the threshold: max(draw, t) == draw.
	VPMAXUW      Y10, Y0, Y1
	VPCMPEQW     Y0, Y1, Y1
	VPMOVSXWD    X1, Y13
	VEXTRACTI128 $1, Y1, X1
	VPMOVSXWD    X1, Y14

	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y2
	TESTQ   DX, DX
	JZ      scale

	// max(x, 0) as Go computes it: x when x is NaN, and +0 for -0 (the
	// maximum returns its second operand for two zeros; adding +0 makes
	// -0 +0 and leaves every other value as it is).
	VMAXPS Y0, Y12, Y0
	VADDPS Y12, Y0, Y0
	VMAXPS Y2, Y12, Y2
	VADDPS Y12, Y2, Y2

scale:
	VMULPS  Y11, Y0, Y0
	VMULPS  Y11, Y2, Y2
	VANDPS  Y13, Y0, Y0
	VANDPS  Y14, Y2, Y2
	VMOVUPS Y0, (DI)
	VMOVUPS Y2, 32(DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
