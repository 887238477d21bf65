package num

import (
	"math"
	"testing"
)

func TestDegreeFactor(t *testing.T) {
	for _, c := range []struct {
		deg   int64
		power float64
		want  float64
	}{
		{0, -0.5, 1}, {-3, -1, 1}, {4, -0.5, 0.5}, {4, -1, 0.25}, {4, 0, 1}, {4, 0.5, 2}, {3, -0.5, 1 / math.Sqrt(3)}, {8, 1.0 / 3, math.Pow(8, 1.0/3)},
	} {
		if got := DegreeFactor[float64](c.deg, c.power); got != c.want {
			t.Errorf("DegreeFactor(%d, %v) = %v, want %v", c.deg, c.power, got, c.want)
		}
		if got := DegreeFactor[float32](c.deg, c.power); got != float32(c.want) {
			t.Errorf("DegreeFactor[float32](%d, %v) = %v, want %v", c.deg, c.power, got, float32(c.want))
		}
	}
}
