// The float32 exponential shared by the AVX2 kernels of this package
// (rows_amd64.s, attention_amd64.s, stream_amd64.s): its constants and the
// LOADEXP, EXP, SUM and RECIP macros. Each including file gets its own copy of the file-local
// expConsts.

// Scalar constants, broadcast to vectors: those of the float32 exponential
// (Cephes' expf) and float64 1.
DATA expConsts<>+0(SB)/4, $0xc2aeac50  // -87.33655: below, e^x is taken as 0
DATA expConsts<>+4(SB)/4, $0x3fb8aa3b  // log2(e)
DATA expConsts<>+8(SB)/4, $0x3f318000  // C1 = 0.693359375, ln 2 rounded
DATA expConsts<>+12(SB)/4, $0xb95e8083 // C2 = -2.12194440e-4 = ln 2 - C1
DATA expConsts<>+16(SB)/4, $0x39506967 // P0 = 1.9875691500e-4
DATA expConsts<>+20(SB)/4, $0x3ab743ce // P1 = 1.3981999507e-3
DATA expConsts<>+24(SB)/4, $0x3c088908 // P2 = 8.3334519073e-3
DATA expConsts<>+28(SB)/4, $0x3d2aa9c1 // P3 = 4.1665795894e-2
DATA expConsts<>+32(SB)/4, $0x3e2aaaaa // P4 = 1.6666665459e-1
DATA expConsts<>+36(SB)/4, $0x3f000000 // P5 = 0.5
DATA expConsts<>+40(SB)/4, $0x3f800000 // 1.0
DATA expConsts<>+44(SB)/4, $0x3f800000 // 127<<23: the exponent bias in place
DATA expConsts<>+48(SB)/8, $1.0        // float64 1.0
GLOBL expConsts<>(SB), RODATA|NOPTR, $56

#define LO 0
#define LOG2E 4
#define C1 8
#define C2 12
#define P0 16
#define P1 20
#define P2 24
#define P3 28
#define P4 32
#define P5 36
#define ONE 40
#define BIAS 44
#define ONE64 48

// LOADEXP loads the constants of EXP into DX and Y5-Y11.
#define LOADEXP \
	LEAQ         expConsts<>(SB), DX; \
	VBROADCASTSS LO(DX), Y5; \
	VBROADCASTSS LOG2E(DX), Y6; \
	VBROADCASTSS C1(DX), Y7; \
	VBROADCASTSS C2(DX), Y8; \
	VBROADCASTSS P0(DX), Y9; \
	VBROADCASTSS P1(DX), Y10; \
	VBROADCASTSS ONE(DX), Y11

// EXP sets Y3 to e^Y0 for Y0 <= 0 (or NaN), clobbering Y0-Y4: Y0 = k*ln2 + r
// with k = round(Y0*log2(e)) and r = Y0 - k*C1 - k*C2 (|r| <= ln2/2), e^r =
// 1 + r + r*r*P(r) with Cephes' degree-5 P (relative error about 1e-7), and
// 2^k added to the exponent bits. Below LO (e^x not a normal float32, and
// -Inf) the result is 0; NaN stays NaN. Y5-Y11 hold LO, log2(e), C1, C2,
// P0, P1 and 1; DX points at expConsts.
#define EXP \
	VCMPPS       $0x11, Y5, Y0, Y4 \
	VMULPS       Y6, Y0, Y1 \
	VROUNDPS     $0, Y1, Y1 \
	VMOVAPS      Y0, Y2 \
	VFNMADD231PS Y7, Y1, Y2 \
	VFNMADD231PS Y8, Y1, Y2 \
	VMOVAPS      Y9, Y3 \
	VFMADD213PS  Y10, Y2, Y3 \
	VBROADCASTSS P2(DX), Y0 \
	VFMADD213PS  Y0, Y2, Y3 \
	VBROADCASTSS P3(DX), Y0 \
	VFMADD213PS  Y0, Y2, Y3 \
	VBROADCASTSS P4(DX), Y0 \
	VFMADD213PS  Y0, Y2, Y3 \
	VBROADCASTSS P5(DX), Y0 \
	VFMADD213PS  Y0, Y2, Y3 \
	VMULPS       Y2, Y2, Y0 \
	VFMADD213PS  Y2, Y0, Y3 \
	VADDPS       Y11, Y3, Y3 \
	VCVTPS2DQ    Y1, Y1 \
	VPSLLD       $23, Y1, Y1 \
	VBROADCASTSS BIAS(DX), Y0 \
	VPADDD       Y0, Y1, Y1 \
	VMULPS       Y1, Y3, Y3 \
	VANDNPS      Y3, Y4, Y3

// SUM adds the eight floats of Y3 in float64 to Y14 (lanes 0-3) and Y13
// (lanes 4-7), clobbering Y0 and Y3.
#define SUM \
	VCVTPS2PD    X3, Y0 \
	VEXTRACTF128 $1, Y3, X3 \
	VCVTPS2PD    X3, Y3 \
	VADDPD       Y0, Y14, Y14 \
	VADDPD       Y3, Y13, Y13

// RECIP sets Y14 to the eight float32 reciprocals of the float64 sums in
// Y14 and Y13, clobbering Y0 and Y13.
#define RECIP \
	VBROADCASTSD ONE64(DX), Y0 \
	VDIVPD       Y14, Y0, Y14 \
	VDIVPD       Y13, Y0, Y13 \
	VCVTPD2PSY   Y14, X14 \
	VCVTPD2PSY   Y13, X13 \
	VINSERTF128  $1, X13, Y14, Y14
