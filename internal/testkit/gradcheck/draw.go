package gradcheck

import "math/rand/v2"

// Draw returns n values with magnitudes in [0.5, 1.5] and random signs,
// rounded to float32 so that float32 and float64 runs see the same numbers.
// They stay away from 0, where division blows up and ReLU and LeakyReLU have
// kinks, and are continuous, so that max and min have no ties except between
// equal operands.
func Draw(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		x := 0.5 + r.Float64()
		if r.IntN(2) == 0 {
			x = -x
		}
		v[i] = float64(float32(x))
	}
	return v
}
