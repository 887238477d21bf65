package readout_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/readout"
)

// testBatch batches a path of 4 nodes, a graph without nodes, a single node
// and a triangle: 8 nodes in 4 graphs.
func testBatch(t *testing.T) *graph.Batched {
	b, err := graph.Batch([]*graph.Graph{
		gradcheck.Graph(t, 4, 4, []int32{0, 1, 2}, []int32{1, 2, 3}),
		gradcheck.Graph(t, 0, 0, nil, nil),
		gradcheck.Graph(t, 1, 1, nil, nil),
		gradcheck.Graph(t, 3, 3, []int32{0, 1, 2}, []int32{1, 2, 0}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const in, out = 3, 2

// model builds the pooling with a linear gate x wg and, with feat, a linear
// feature network x wf, on inputs drawn from r.
func model(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand, b *graph.Batched, feat bool) (x, wg, wf *gorgonia.Node, p *readout.GlobalAttentionPooling, err error) {
	x = gradcheck.Input(eg, dt, "x", []int{b.NumSrc(), in}, gradcheck.Draw(r, b.NumSrc()*in))
	wg = gradcheck.Input(eg, dt, "wg", []int{in, 1}, gradcheck.Draw(r, in))
	wf = gradcheck.Input(eg, dt, "wf", []int{in, out}, gradcheck.Draw(r, in*out))
	gate := func(h *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Mul(h, wg) }
	var opts []readout.Option
	if feat {
		opts = append(opts, readout.WithFeat(func(h *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Mul(h, wf) }, wf))
	}
	p, err = readout.NewGlobalAttentionPooling(gate, gorgonia.Nodes{wg}, opts...)
	return x, wg, wf, p, err
}

// reference is the dense formula: per graph, softmax of x wg over its nodes,
// times x (or x wf), summed.
func reference(b *graph.Batched, x, wg, wf []float64, feat bool) (r, att []float64) {
	n := b.NumSrc()
	f := in
	h := x
	if feat {
		f = out
		h = make([]float64, n*out)
		for v := range n {
			for j := range out {
				for k := range in {
					h[v*out+j] += x[v*in+k] * wf[k*out+j]
				}
			}
		}
	}
	score := make([]float64, n)
	for v := range n {
		for k := range in {
			score[v] += x[v*in+k] * wg[k]
		}
	}
	off := b.NodeOffsets()
	r = make([]float64, b.NumGraphs()*f)
	att = make([]float64, n)
	for i := range b.NumGraphs() {
		var s float64
		for v := off[i]; v < off[i+1]; v++ {
			s += math.Exp(score[v])
		}
		for v := off[i]; v < off[i+1]; v++ {
			att[v] = math.Exp(score[v]) / s
			for j := range f {
				r[i*f+j] += att[v] * h[int(v)*f+j]
			}
		}
	}
	return r, att
}

// TestGlobalAttentionPooling checks the readout and the attention weights
// against the dense formula, with and without a feature network, and the
// gradients with respect to the features and both networks' weights by
// finite differences, in float64 and float32.
func TestGlobalAttentionPooling(t *testing.T) {
	b := testBatch(t)
	for _, feat := range []bool{false, true} {
		for _, dt := range gradcheck.Dtypes {
			t.Run(fmt.Sprintf("feat=%v/%v", feat, dt), func(t *testing.T) {
				eg := gorgonia.NewGraph()
				x, wg, wf, p, err := model(eg, dt, rand.New(rand.NewPCG(1, 2)), b, feat)
				if err != nil {
					t.Fatal(err)
				}
				want := gorgonia.Nodes{wg}
				if feat {
					want = append(want, wf)
				}
				if got := p.Learnables(); len(got) != len(want) || got[0] != wg || feat && got[1] != wf {
					t.Errorf("Learnables %v, want %v", got, want)
				}
				r, att, err := p.ForwardAttention(b, x)
				if err != nil {
					t.Fatal(err)
				}
				res := gradcheck.Run(t, r, att)
				wantR, wantAtt := reference(b, gradcheck.Floats(x.Value()), gradcheck.Floats(wg.Value()), gradcheck.Floats(wf.Value()), feat)
				tol := 1e-12
				if dt == tensor.Float32 {
					tol = 2e-5
				}
				gradcheck.Expect(t, "readout", res[0], wantR, tol)
				gradcheck.Expect(t, "attention", res[1], wantAtt, tol)

				gradcheck.Check(t, dt, func(eg *gorgonia.ExprGraph, dt tensor.Dtype, r *rand.Rand) (*gorgonia.Node, gorgonia.Nodes, error) {
					x, wg, wf, p, err := model(eg, dt, r, b, feat)
					if err != nil {
						return nil, nil, err
					}
					y, err := p.Forward(b, x)
					wrt := gorgonia.Nodes{x, wg}
					if feat {
						wrt = append(wrt, wf)
					}
					return y, wrt, err
				}, gradcheck.Options{Seed: 3, Stream: 4, Float32Tol: 1e-4})
			})
		}
	}
}

// TestGlobalAttentionPoolingErrors checks the argument checks.
func TestGlobalAttentionPoolingErrors(t *testing.T) {
	b := testBatch(t)
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(b.NumSrc(), in), gorgonia.WithName("x"))
	short := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(b.NumGraphs(), in), gorgonia.WithName("short"))
	w := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(in, 2), gorgonia.WithName("w"))
	wide := func(h *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Mul(h, w) }
	none := func(*gorgonia.Node) (*gorgonia.Node, error) { return nil, nil }
	w1 := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(in, 1), gorgonia.WithName("w1"))
	gate1 := func(h *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Mul(h, w1) }
	fails := func(*gorgonia.Node) (*gorgonia.Node, error) { return nil, fmt.Errorf("boom") }
	build := func(gate nn.Activation, params gorgonia.Nodes, opts ...readout.Option) error {
		_, err := readout.NewGlobalAttentionPooling(gate, params, opts...)
		return err
	}
	forward := func(gate nn.Activation, x *gorgonia.Node, opts ...readout.Option) error {
		p, err := readout.NewGlobalAttentionPooling(gate, nil, opts...)
		if err != nil {
			return err
		}
		_, err = p.Forward(b, x)
		return err
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil gate", build(nil, nil), "nil gate network"},
		{"nil gate param", build(wide, gorgonia.Nodes{w, nil}), "gate parameter 1 is nil"},
		{"nil feat", build(wide, nil, readout.WithFeat(nil)), "nil feature network"},
		{"nil feat param", build(wide, nil, readout.WithFeat(wide, nil)), "feature parameter 0 is nil"},
		{"rows", forward(wide, short), `features "short" have shape (4, 3), want (8, F)`},
		{"gate width", forward(wide, x), "gate network returned shape (8, 2), want (8, 1)"},
		{"gate none", forward(none, x), "gate network returned no node"},
		{"gate fails", forward(fails, x), "gate network: boom"},
		{"feat fails", forward(gate1, x, readout.WithFeat(fails)), "feature network: boom"},
		{"feat none", forward(gate1, x, readout.WithFeat(none)), "feature network returned no node"},
		{"feat rows", forward(gate1, x, readout.WithFeat(func(*gorgonia.Node) (*gorgonia.Node, error) { return short, nil })), "feature network returned shape (4, 3), want (8, F')"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
	p, _ := readout.NewGlobalAttentionPooling(func(h *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Mul(h, short) }, nil)
	if _, err := p.Forward(nil, x); err == nil || !strings.Contains(err.Error(), "needs a batch") {
		t.Errorf("nil batch: error %v", err)
	}
}
