package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
)

// TestSumsCache runs GIN's MLP (MatMulBias, BatchNormShift with ReLU,
// MatMulBias, BatchNormShift) forward and backward with the column sums
// handed from op to op (sumsCache) and without, and requires the same
// bits, and every cache used: the means of both batch norms, the first
// shift's gradient (from ReLU's gradient) and the biases' gradients (from
// the batch norms' dx); the last shift's gradient, of the output's
// gradient, has no producer to take it from. Sizes span several blocks of rows of both summations, and
// widths the AVX2 kernels take and one they do not.
func TestSumsCache(t *testing.T) {
	defer func() { useSumsCache = true }()
	for _, s := range [][3]int{{2100, 3, 16}, {700, 8, 24}, {50, 4, 5}} {
		n, k, f := s[0], s[1], s[2]
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("%dx%dx%d/%v", n, k, f, dt), func(t *testing.T) {
				run := func(cached bool) ([][]float64, *gorgonia.ExprGraph) {
					useSumsCache = cached
					eg := gorgonia.NewGraph()
					r := rand.New(rand.NewPCG(1, 2))
					x := gradcheck.Input(eg, dt, "x", []int{n, k}, gradcheck.Draw(r, n*k))
					var in gorgonia.Nodes
					h := x
					for l, kk := range []int{k, f} {
						w := gradcheck.Input(eg, dt, fmt.Sprintf("w%d", l), []int{kk, f}, gradcheck.Draw(r, kk*f))
						b := gradcheck.Input(eg, dt, fmt.Sprintf("b%d", l), []int{f}, gradcheck.Draw(r, f))
						g := gradcheck.Input(eg, dt, fmt.Sprintf("g%d", l), []int{f}, gradcheck.Draw(r, f))
						beta := gradcheck.Input(eg, dt, fmt.Sprintf("beta%d", l), []int{f}, gradcheck.Draw(r, f))
						in = append(in, w, b, g, beta)
						var err error
						if h, err = MatMulBias(h, w, b); err != nil {
							t.Fatal(err)
						}
						if h, err = BatchNormShift(h, g, beta, 1e-5, l == 0); err != nil {
							t.Fatal(err)
						}
					}
					grads := gradcheck.Gradients(t, h, in, rand.New(rand.NewPCG(3, 4)))
					return append(gradcheck.Values(gorgonia.Nodes{h}), grads...), eg
				}
				want, _ := run(false)
				got, eg := run(true)
				for i := range want {
					gradcheck.Expect(t, fmt.Sprintf("value %d", i), got[i], want[i], 0)
				}
				var means, biases int
				for _, node := range eg.AllNodes() {
					if op, ok := specOf[*batchNormShiftOp](node); ok && op.bn.cache.means != nil {
						means += op.bn.cache.means.hits
					}
					if op, ok := specOf[*biasGradOp](node); ok && op.sums != nil {
						biases += op.sums.hits
					}
				}
				if means != 2 || biases != 3 {
					t.Errorf("the caches were used for %d means (want 2) and %d bias gradients (want 3)", means, biases)
				}
			})
		}
	}
}
