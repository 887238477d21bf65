package ops

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Gorgonia v0.9.18's Grad adds package-level constant nodes (the seed
// gradient 1.0 of each dtype) to every graph it differentiates, and those
// nodes cache their hash on first use without synchronisation: two
// goroutines differentiating their own graphs for the first time race on
// it. Differentiating a trivial graph of each dtype at start-up fills the
// caches, after which concurrent Grad calls only read them.
func init() {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		eg := gorgonia.NewGraph()
		x := gorgonia.NewScalar(eg, dt, gorgonia.WithName("x"))
		if y, err := gorgonia.Square(x); err == nil {
			gorgonia.Grad(y, x)
		}
	}
}
