package link_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn/link"
)

// BenchmarkLoss times a forward and backward step of each loss over p
// positives and k negatives each (float32 scores); scores/s counts the
// p*(k+1) scores.
func BenchmarkLoss(b *testing.B) {
	const p, k = 100_000, 10
	r := rand.New(rand.NewPCG(1, 1))
	pv, nv := gradcheck.Draw(r, p), gradcheck.Draw(r, p*k)
	for _, name := range []string{"bce", "margin", "softmax"} {
		b.Run(fmt.Sprintf("loss=%s/pos=%d/k=%d", name, p, k), func(b *testing.B) {
			eg := gorgonia.NewGraph()
			pos := gradcheck.Input(eg, tensor.Float32, "pos", []int{p, 1}, pv)
			neg := gradcheck.Input(eg, tensor.Float32, "neg", []int{p * k, 1}, nv)
			var l *gorgonia.Node
			var err error
			switch name {
			case "bce":
				l, err = link.BCEWithLogits(pos, neg, nil)
			case "margin":
				l, err = link.MarginRanking(pos, neg, k, 1)
			default:
				l, err = link.SoftmaxNegatives(pos, neg, k)
			}
			if err != nil {
				b.Fatal(err)
			}
			if _, err := gorgonia.Grad(l, pos, neg); err != nil {
				b.Fatal(err)
			}
			vm := gorgonia.NewTapeMachine(eg)
			defer vm.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				vm.Reset()
				if err := vm.RunAll(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p*(k+1))*float64(b.N)/b.Elapsed().Seconds(), "scores/s")
		})
	}
}
