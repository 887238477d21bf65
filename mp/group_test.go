package mp

import (
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops/fn"
)

// TestRowGroupGrad checks the row group's backward hand-over: the gradient
// of a degree-bucketed reduce (three parts of one group, one per in-degree)
// reaches x through the token, with the parts' gradients assembled.
func TestRowGroupGrad(t *testing.T) {
	t.Parallel()
	// In-degrees 1, 2 and 3 (three buckets); out-degrees 3, 2, 1.
	src, dst := []int32{0, 0, 1, 0, 1, 2}, []int32{0, 1, 1, 2, 2, 2}
	g := gradcheck.Graph(t, 3, 3, src, dst)
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(3, 2), gorgonia.WithName("x"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(3, 2), tensor.WithBacking([]float64{1, 2, 3, 4, 5, 6}))))
	f, err := NewFrame(g)
	if err != nil {
		t.Fatal(err)
	}
	f.NodeData().Set("x", x)
	sum := NodeFunc(func(b *NodeBatch) (Fields, error) {
		mb, err := b.Mailbox("m")
		if err != nil {
			return nil, err
		}
		h, err := gorgonia.Sum(mb, 1)
		return Fields{"h": h}, err
	})
	if err := f.UpdateAll(fn.CopyU("x", "m"), sum, nil); err != nil {
		t.Fatal(err)
	}
	h, err := f.NodeData().Get("h")
	if err != nil {
		t.Fatal(err)
	}
	sq, err := gorgonia.HadamardProd(h, h)
	if err != nil {
		t.Fatal(err)
	}
	c2, err := gorgonia.Sum(sq)
	if err != nil {
		t.Fatal(err)
	}
	g2, err := gorgonia.Grad(c2, x)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	// d sum(h²)/dx[u] = 2 sum over u's out-edges of h[v], with
	// h = (1 2; 4 6; 9 12).
	want := []float64{2 * (1 + 4 + 9), 2 * (2 + 6 + 12), 2 * (4 + 9), 2 * (6 + 12), 2 * 9, 2 * 12}
	got := g2[0].Value().Data().([]float64)
	for k := range got {
		if got[k] != want[k] {
			t.Fatalf("gradient %v, want %v", got, want)
		}
	}
}

// TestGroupGrads checks the hand-over of a row group's gradients: a part's
// gradient is recorded once, take returns the recorded ones in part order
// and clears them.
func TestGroupGrads(t *testing.T) {
	t.Parallel()
	eg := gorgonia.NewGraph()
	a := gorgonia.NewScalar(eg, tensor.Float64, gorgonia.WithName("a"))
	c := gorgonia.NewScalar(eg, tensor.Float64, gorgonia.WithName("c"))
	b := &rowGroup{id: 7}
	if err := b.record(2, c); err != nil {
		t.Fatal(err)
	}
	if err := b.record(0, a); err != nil {
		t.Fatal(err)
	}
	if err := b.record(2, a); err == nil {
		t.Error("a part's second gradient was accepted")
	}
	parts, grads := b.take()
	if len(parts) != 2 || parts[0] != 0 || parts[1] != 2 || grads[0] != a || grads[1] != c {
		t.Errorf("take gave parts %v, gradients %v", parts, grads)
	}
	if parts, _ := b.take(); len(parts) != 0 {
		t.Errorf("a second take gave parts %v", parts)
	}
}
