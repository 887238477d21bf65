package num

import (
	"math"
	"unsafe"
)

// expTable[j] is 2^(j/64).
var expTable = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()

const (
	// expMin is the smallest argument whose exponential is a normal
	// float64; below it the exponential is taken as 0.
	expMin = -708.0
	// ln2hi64 + ln2lo64 is ln(2)/64, split so that k*ln2hi64 is exact for
	// the |k| < 2^17 that occur.
	ln2hi64 = 6.93147180369123816490e-01 / 64
	ln2lo64 = 1.90821492927058770002e-10 / 64
	// roundMagic, added to a float64 below 2^51 in magnitude, rounds it to
	// an integer held in the low mantissa bits in two's complement.
	roundMagic = 0x1.8p52
)

// ExpSum sets o[h] = e^(x[h]-m[h]) and adds that value, unrounded, to s[h],
// for every h < len(o). It is the exponential of softmaxes (edge softmax,
// GAT attention, cross-entropy): x[h]-m[h] <= 0, and
// the result is within about 4e-16 relative of e^(x[h]-m[h]) before rounding
// to T. Below expMin, where e^x would be subnormal, and for -Inf it gives 0;
// NaN gives NaN.
//
// The method: x = (64k + j)·ln2/64 + r with 0 <= j < 64 and |r| <= ln2/128,
// so e^x = 2^k · 2^(j/64) · e^r, with 2^(j/64) from a table and e^r from a
// degree-5 Taylor polynomial whose truncation error is below 4e-17. The body
// is written out here, once per row, because the Go compiler does not inline
// a scalar function of this size.
func ExpSum[T Float](o, x, m []T, s []float64) {
	x, m, s = x[:len(o)], m[:len(o)], s[:len(o)]
	var z T
	single := unsafe.Sizeof(z) == 4
	for h := range o {
		d := float64(x[h]) - float64(m[h])
		if d < expMin {
			o[h] = 0
			continue
		}
		kf := d*(64/math.Ln2) + roundMagic
		k := int64(math.Float64bits(kf)) // low bits: round(d*64/ln2)
		kf -= roundMagic
		var p float64
		if single {
			r := d - kf*(math.Ln2/64)
			p = r * (1 + r*(1.0/2+r*(1.0/6)))
		} else {
			r := d - kf*ln2hi64 - kf*ln2lo64
			p = r * (1 + r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
		}
		t := expTable[k&63]
		// (k>>6)+1023 is the biased exponent of 2^(k>>6) once shifted into
		// place: the rounding constant's own bits shift out of the word.
		e := t * math.Float64frombits(uint64((k>>6)+1023)<<52)
		e += e * p
		o[h] = T(e)
		s[h] += e
	}
}
