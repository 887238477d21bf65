//go:build gnncuda

package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/gpu/internal/cuda"
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/testkit/kerneltest"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/ops/edgesoftmax"
)

func TestEdgeSoftmax(t *testing.T) {
	t.Run("float32", testEdgeSoftmax[float32])
	t.Run("float64", testEdgeSoftmax[float64])
}

// testEdgeSoftmax checks EdgeSoftmax and its backward against
// ops/edgesoftmax by destination and by source, including scores of -Inf
// (masked edges) and large scores, and in place.
func testEdgeSoftmax[T num.Float](t *testing.T) {
	eachGraph(t, func(c *cuda.Context, f testgraphs.Fixture, g *Graph) {
		h := f.G
		r := rand.New(rand.NewPCG(9, 9))
		for _, norm := range []edgesoftmax.Norm{edgesoftmax.ByDst, edgesoftmax.BySrc} {
			for _, w := range []int{1, 3, 8, 17} {
				t.Run(fmt.Sprintf("%s/%s/%v/w=%d", c.Name(), f.Name, norm, w), func(t *testing.T) {
					score := kerneltest.Uniform[T](r, h.NumEdges()*w, -30, 30)
					if len(score) > 3 {
						score[1] = T(math.Inf(-1))
						score[2] = 1e4
					}
					want := make([]T, len(score))
					edgesoftmax.Forward(want, h, norm, score, w)
					ds := toDevice(t, c, score)
					out := toDevice(t, c, make([]T, len(score))) // edges of no group stay 0
					if err := EdgeSoftmax[T](g, out, norm, ds, w); err != nil {
						t.Fatal(err)
					}
					compare(t, "y", toHost[T](t, c, out), want)
					if err := EdgeSoftmax[T](g, ds, norm, ds, w); err != nil {
						t.Fatal(err)
					}
					compare(t, "y in place", toHost[T](t, c, ds), want)

					dy := kerneltest.Uniform[T](r, len(score), -1, 1)
					wantG := make([]T, len(score))
					edgesoftmax.Backward(wantG, h, norm, want, dy, w)
					gs := filled[T](t, c, len(score))
					if err := EdgeSoftmaxBackward[T](g, gs, norm, out, toDevice(t, c, dy), w); err != nil {
						t.Fatal(err)
					}
					compare(t, "dScore", toHost[T](t, c, gs), wantG)
				})
			}
		}
	})
}

func TestAttention(t *testing.T) {
	t.Run("float32", testAttention[float32])
	t.Run("float64", testAttention[float64])
}

// testAttention checks GAT's fused attention and its backward against
// ops/edgesoftmax, for one, four and eight heads and slopes below and
// above 1.
func testAttention[T num.Float](t *testing.T) {
	eachGraph(t, func(c *cuda.Context, f testgraphs.Fixture, g *Graph) {
		h := f.G
		r := rand.New(rand.NewPCG(11, 11))
		for _, slope := range []float64{0.2, 1.5} {
			for _, w := range []int{1, 4, 8} {
				t.Run(fmt.Sprintf("%s/%s/slope=%v/w=%d", c.Name(), f.Name, slope, w), func(t *testing.T) {
					el := kerneltest.Uniform[T](r, h.NumSrc()*w, -3, 3)
					er := kerneltest.Uniform[T](r, h.NumDst()*w, -3, 3)
					want := make([]T, h.NumEdges()*w)
					edgesoftmax.Attention(want, h, el, er, slope, w)
					del, der := toDevice(t, c, el), toDevice(t, c, er)
					out := filled[T](t, c, len(want))
					if err := Attention[T](g, out, del, der, slope, w); err != nil {
						t.Fatal(err)
					}
					compare(t, "y", toHost[T](t, c, out), want)

					dy := kerneltest.Uniform[T](r, len(want), -1, 1)
					wantG := make([]T, len(want))
					edgesoftmax.AttentionBackward(wantG, h, el, er, slope, want, dy, w)
					gs := filled[T](t, c, len(want))
					if err := AttentionBackward[T](g, gs, del, der, slope, out, toDevice(t, c, dy), w); err != nil {
						t.Fatal(err)
					}
					compare(t, "dScore", toHost[T](t, c, gs), wantG)
				})
			}
		}
	})
}
