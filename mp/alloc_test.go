package mp

import (
	"fmt"
	"runtime"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/ops/fn"
)

// step is one training step of UpdateAll: forward and backward of
// <R, h> with respect to the node features x and the edge weights w.
type step struct {
	vm gorgonia.VM
}

// newStep builds UpdateAll(msg, red) on g with x (N, f) and w (E, 1) in
// float32, and the gradients of sum(h) with respect to both.
func newStep(g *graph.Graph, f int, msg MessageFunc, red ReduceFunc, grads bool) (*step, error) {
	eg := gorgonia.NewGraph()
	n, e := g.NumNodes(), g.NumEdges()
	x := gorgonia.NewTensor(eg, tensor.Float32, 2, gorgonia.WithShape(n, f), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(n, f), tensor.Of(tensor.Float32))))
	w := gorgonia.NewTensor(eg, tensor.Float32, 2, gorgonia.WithShape(e, 1), gorgonia.WithName("w"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(e, 1), tensor.Of(tensor.Float32))))
	fr, err := NewFrame(g)
	if err != nil {
		return nil, err
	}
	fr.NodeData().Set("x", x)
	fr.EdgeData().Set("w", w)
	if err := fr.UpdateAll(msg, red, nil); err != nil {
		return nil, err
	}
	h, err := fr.NodeData().Get("h")
	if err != nil {
		return nil, err
	}
	cost, err := gorgonia.Sum(h)
	if err != nil {
		return nil, err
	}
	roots := gorgonia.Nodes{cost}
	if grads {
		gs, err := gorgonia.Grad(cost, x, w)
		if err != nil {
			return nil, err
		}
		roots = append(roots, gs...)
	}
	return &step{vm: gorgonia.NewTapeMachine(eg.SubgraphRoots(roots...))}, nil
}

func (s *step) run() error {
	s.vm.Reset()
	return s.vm.RunAll()
}

// udfUMulE is u_mul_e with a (E, 1) weight as an edge function.
var udfUMulE = EdgeFunc(func(b *EdgeBatch) (Fields, error) {
	x, err := b.Src("x")
	if err != nil {
		return nil, err
	}
	w, err := b.Data("w")
	if err != nil {
		return nil, err
	}
	m, err := gorgonia.BroadcastHadamardProd(x, w, nil, []byte{1})
	return Fields{"m": m}, err
})

// paths are the two ways to write h = sum over in-edges of x[u] * w[e].
var paths = []struct {
	name string
	msg  MessageFunc
	red  ReduceFunc
}{
	{"fused", fn.UMulE("x", "w", "m"), fn.Sum("m", "h")},
	{"udf", udfUMulE, udfReducer(fn.Sum("m", "h"))},
}

// TestMemory checks the point of the builtins: a training step of UpdateAll
// with u_mul_e + sum allocates nothing proportional to edges x features,
// while the same computation written as user-defined functions allocates
// several times E x F (gathered rows, mailboxes and their gradients).
func TestMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200k-edge graph")
	}
	const n, e, f = 2000, 200_000, 64
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		t.Fatal(err)
	}
	g.CSR()
	g.CSC()
	edgeBytes := uint64(e * f * 4)
	for _, p := range paths {
		s, err := newStep(g, f, p.msg, p.red, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.run(); err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := s.run(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		s.vm.Close()
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: %d bytes per step (%.2f x E x F x 4 = %d)", p.name, got, float64(got)/float64(edgeBytes), edgeBytes)
		switch {
		case p.name == "fused" && got > edgeBytes/4:
			t.Errorf("fused: a step allocated %d bytes; E x F x 4 is %d", got, edgeBytes)
		case p.name == "udf" && got < edgeBytes:
			t.Errorf("udf: a step allocated %d bytes, less than E x F x 4 = %d", got, edgeBytes)
		}
	}
}

// BenchmarkUpdateAll compares the fused builtin path of UpdateAll with the
// same computation as user-defined functions (gather, degree-bucketed
// mailbox, dense reduce), as in the seed's memory comparison: B/op is the
// memory one step allocates, ExF_bytes the size of one E x F float32 tensor.
// The default graph is uniform with 20000 nodes, 1M edges and F = 32; run
// with -benchtime=3x.
func BenchmarkUpdateAll(b *testing.B) {
	const n, e, f = 20000, 1_000_000, 32
	g, err := generate.Uniform(n, e, 1)
	if err != nil {
		b.Fatal(err)
	}
	g.CSR()
	g.CSC()
	for _, pass := range []string{"forward", "step"} {
		for _, p := range paths {
			name := fmt.Sprintf("path=%s/pass=%s/msg=u_mul_e/red=sum/n=%d/e=%d/f=%d", p.name, pass, n, e, f)
			b.Run(name, func(b *testing.B) {
				s, err := newStep(g, f, p.msg, p.red, pass == "step")
				if err != nil {
					b.Fatal(err)
				}
				defer s.vm.Close()
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					if err := s.run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(e*f*4), "ExF_bytes")
			})
		}
	}
}
