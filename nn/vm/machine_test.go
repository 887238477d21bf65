package vm_test

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/vm"
)

// model is a small expression graph mixing Gorgonia's ops (matmul,
// element-wise, reductions) with gnn's (a GraphConv,
// dropout, cross-entropy), its gradients, and the nodes to compare.
type model struct {
	params gorgonia.Nodes
	grads  gorgonia.Nodes
	loss   *gorgonia.Node
	logits *gorgonia.Node
	roots  gorgonia.Nodes // the loss and the gradients
	mode   *nn.Mode
}

func buildModel(t *testing.T, dt tensor.Dtype) *model {
	t.Helper()
	const n, f, h, c = 40, 6, 5, 3
	src, dst := make([]int32, 0, 3*n), make([]int32, 0, 3*n)
	for i := range int32(n) {
		for _, d := range []int32{0, 1, 7} {
			src, dst = append(src, i), append(dst, (i+d)%n)
		}
	}
	g, err := graph.FromCOO(n, n, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(n, f), gorgonia.WithName("x"), gorgonia.WithValue(wave(dt, n, f, 0.3)))
	w := gorgonia.NewMatrix(eg, dt, gorgonia.WithShape(h, c), gorgonia.WithName("w"), gorgonia.WithValue(wave(dt, h, c, 0.7)))
	mode := nn.NewMode()
	l1, err := gcn.New(eg, f, h, gcn.WithSeed(1), gcn.WithDtype(dt), gcn.WithName("l1"))
	if err != nil {
		t.Fatal(err)
	}
	must := func(n *gorgonia.Node, err error) *gorgonia.Node {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	z := must(l1.Forward(g, x))
	z = must(gorgonia.Rectify(z))
	z = must(nn.Dropout(z, 0.3, 5, mode))
	a := must(gorgonia.Mul(z, w))
	logits := must(gorgonia.Tanh(must(gorgonia.Add(a, must(gorgonia.HadamardProd(a, a))))))
	labels := make([]int32, n)
	nodes := make([]int32, n/2)
	for i := range labels {
		labels[i] = int32(i % c)
	}
	for i := range nodes {
		nodes[i] = int32(2 * i)
	}
	xent := must(nn.CrossEntropy(logits, labels, nodes))
	loss := must(gorgonia.Add(xent, must(gorgonia.Mean(must(gorgonia.Square(w))))))
	params := append(l1.Learnables(), w)
	grads, err := gorgonia.Grad(loss, params...)
	if err != nil {
		t.Fatal(err)
	}
	return &model{params: params, grads: grads, loss: loss, mode: mode, logits: logits,
		roots: append(gorgonia.Nodes{loss}, grads...)}
}

// wave returns an r x c matrix of dt holding sin(k*i + 1), i the element
// index: fixed, varied values.
func wave(dt tensor.Dtype, r, c int, k float64) *tensor.Dense {
	t := tensor.New(tensor.WithShape(r, c), tensor.Of(dt))
	for i := range r * c {
		v := math.Sin(k*float64(i) + 1)
		if dt == tensor.Float32 {
			t.Data().([]float32)[i] = float32(v)
		} else {
			t.Data().([]float64)[i] = v
		}
	}
	return t
}

// snapshot copies the values of nodes.
func snapshot(ns gorgonia.Nodes) []any {
	out := make([]any, len(ns))
	for i, n := range ns {
		switch d := n.Value().Data().(type) {
		case []float32:
			out[i] = append([]float32(nil), d...)
		case []float64:
			out[i] = append([]float64(nil), d...)
		default:
			out[i] = d
		}
	}
	return out
}

func sameBits(t *testing.T, what string, got, want []any) {
	t.Helper()
	for i := range want {
		switch w := want[i].(type) {
		case []float32:
			g := got[i].([]float32)
			for j := range w {
				if math.Float32bits(g[j]) != math.Float32bits(w[j]) {
					t.Fatalf("%s: value %d element %d is %v, the tape machine gives %v", what, i, j, g[j], w[j])
				}
			}
		case []float64:
			g := got[i].([]float64)
			for j := range w {
				if math.Float64bits(g[j]) != math.Float64bits(w[j]) {
					t.Fatalf("%s: value %d element %d is %v, the tape machine gives %v", what, i, j, g[j], w[j])
				}
			}
		default:
			if got[i] != want[i] {
				t.Fatalf("%s: value %d is %v, the tape machine gives %v", what, i, got[i], want[i])
			}
		}
	}
}

// TestMatchesTapeMachine checks that a Machine computes the roots of a
// graph to the bit as Gorgonia's TapeMachine, run after run (the runs
// after the first write into reused buffers): the loss and gradients of a
// training graph, and the logits of the forward alone. (The tape's value
// of a root the backward reads, such as the logits, can be overwritten by
// the backward's in-place ops, so the two are compared apart.)
func TestMatchesTapeMachine(t *testing.T) {
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		t.Run(dt.String()+"/train", func(t *testing.T) { matchTape(t, dt, false) })
		t.Run(dt.String()+"/forward", func(t *testing.T) { matchTape(t, dt, true) })
	}
}

func matchTape(t *testing.T, dt tensor.Dtype, forward bool) {
	m := buildModel(t, dt)
	if forward {
		m.roots = gorgonia.Nodes{m.logits}
	}
	tape := gorgonia.NewTapeMachine(m.loss.Graph().SubgraphRoots(m.roots...))
	defer nn.CloseVM(tape)
	mach, err := vm.New(m.roots)
	if err != nil {
		t.Fatal(err)
	}
	defer mach.Close()
	for run := range 3 {
		m.mode.Next()
		tape.Reset()
		if err := tape.RunAll(); err != nil {
			t.Fatal(err)
		}
		want := snapshot(m.roots)
		if err := mach.RunAll(); err != nil {
			t.Fatal(err)
		}
		sameBits(t, fmt.Sprintf("run %d", run+1), snapshot(m.roots), want)
	}
	if s := mach.Stats(); s.Runs != 3 {
		t.Errorf("stats %+v, want 3 runs", s)
	}
}

// TestSteadyState checks that runs after the first allocate no buffer,
// and that freeing values after their last reader lets a chain of
// same-sized ops share buffers.
func TestSteadyState(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(100, 10), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
	h := x
	var err error
	for i := range 10 {
		if h, err = gorgonia.Add(h, x); err != nil {
			t.Fatal(err)
		}
		_ = i
	}
	m, err := vm.New(gorgonia.Nodes{h})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.RunAll(); err != nil {
		t.Fatal(err)
	}
	first := m.Stats()
	for range 5 {
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
	}
	if s := m.Stats(); s.Buffers != first.Buffers || s.Fallbacks != 0 {
		t.Errorf("after 6 runs %+v, after 1 %+v: want no new buffer and no op allocating its own", s, first)
	}
	if first.Buffers > 2 {
		t.Errorf("a chain of 10 adds took %d buffers, want 2 (each value freed after its reader)", first.Buffers)
	}
	if got := h.Value().Data().([]float64)[0]; got != 11 {
		t.Errorf("result %v, want 11", got)
	}
}

// TestValueGrads checks that training with ValueGrads and Adam gives the
// parameters, to the bit, of the tape machine with dual values.
func TestValueGrads(t *testing.T) {
	train := func(useVM bool) []any {
		m := buildModel(t, tensor.Float32)
		solver := gorgonia.NewAdamSolver(gorgonia.WithLearnRate(0.01), gorgonia.WithL2Reg(1e-3))
		var tape gorgonia.VM
		var mach *vm.Machine
		var err error
		if useVM {
			if mach, err = vm.New(append(gorgonia.Nodes{m.loss}, m.grads...)); err != nil {
				t.Fatal(err)
			}
			defer mach.Close()
		} else {
			tape = gorgonia.NewTapeMachine(m.loss.Graph().SubgraphRoots(append(gorgonia.Nodes{m.loss}, m.grads...)...), gorgonia.BindDualValues(m.params...))
			defer nn.CloseVM(tape)
		}
		for range 5 {
			m.mode.Next()
			var model []gorgonia.ValueGrad
			if useVM {
				if err := mach.RunAll(); err != nil {
					t.Fatal(err)
				}
				if model, err = mach.ValueGrads(m.params, m.grads); err != nil {
					t.Fatal(err)
				}
			} else {
				tape.Reset()
				if err := tape.RunAll(); err != nil {
					t.Fatal(err)
				}
				model = gorgonia.NodesToValueGrads(m.params)
			}
			if err := solver.Step(model); err != nil {
				t.Fatal(err)
			}
		}
		return snapshot(m.params)
	}
	sameBits(t, "parameters after 5 steps", train(true), train(false))
}

func TestErrors(t *testing.T) {
	if _, err := vm.New(nil); err == nil || !strings.Contains(err.Error(), "no roots") {
		t.Errorf("New(nil): %v", err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewVector(eg, tensor.Float32, gorgonia.WithShape(3), gorgonia.WithName("unbound"))
	y, err := gorgonia.Neg(x)
	if err != nil {
		t.Fatal(err)
	}
	other := gorgonia.NewScalar(gorgonia.NewGraph(), tensor.Float32, gorgonia.WithName("elsewhere"))
	if _, err := vm.New(gorgonia.Nodes{y, other}); err == nil || !strings.Contains(err.Error(), "root 1") {
		t.Errorf("a root of another graph: %v", err)
	}
	if _, err := vm.New(gorgonia.Nodes{y}, vm.WithKeep(other)); err == nil || !strings.Contains(err.Error(), "elsewhere") {
		t.Errorf("keeping a node the roots do not need: %v", err)
	}
	m, err := vm.New(gorgonia.Nodes{y})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.RunAll(); err == nil || !strings.Contains(err.Error(), "no value bound to unbound") {
		t.Errorf("an unbound input: %v", err)
	}
	m.Close()
	if err := m.RunAll(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("a closed machine: %v", err)
	}
	if _, err := m.ValueGrads(gorgonia.Nodes{x}, nil); err == nil {
		t.Errorf("ValueGrads with no gradients: no error")
	}
}

// TestViews checks that a view of a value (a reshape) keeps the value's
// buffer from being reused while the view is alive, against values
// computed here. (Gorgonia's tape machine gets this graph wrong: it
// leaves a, a*a and the reshape all holding the sum.)
func TestViews(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(4, 3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.RangedFrom(0)))
	w := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(3, 2), gorgonia.WithName("w"), gorgonia.WithInit(gorgonia.RangedFrom(1)))
	a := gorgonia.Must(gorgonia.Mul(x, w))
	r := gorgonia.Must(gorgonia.Reshape(a, tensor.Shape{2, 4}))
	// a is read for the last time here, r (its memory) is not.
	b := gorgonia.Must(gorgonia.HadamardProd(a, a))
	c := gorgonia.Must(gorgonia.Add(b, b)) // a's size: would take a's buffer if r did not hold it
	s := gorgonia.Must(gorgonia.Add(gorgonia.Must(gorgonia.Reshape(r, tensor.Shape{4, 2})), c))
	m, err := vm.New(gorgonia.Nodes{s})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	xs, ws := x.Value().Data().([]float64), w.Value().Data().([]float64)
	var want []float64
	for i := range 4 {
		for j := range 2 {
			var v float64
			for k := range 3 {
				v += xs[i*3+k] * ws[k*2+j]
			}
			want = append(want, v+2*v*v)
		}
	}
	for run := range 3 {
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := s.Value().Data().([]float64)
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("run %d: element %d is %v, want %v (all %v)", run+1, i, got[i], want[i], got)
			}
		}
	}
}

// TestPeakHolders checks that the peak's holders are the values alive at
// the peak, largest first, and add up to the pool's peak.
func TestPeakHolders(t *testing.T) {
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(10, 10), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
	big := gorgonia.Must(gorgonia.Add(x, x))                                             // 800 bytes, alive until the end
	small := gorgonia.Must(gorgonia.Sum(big, 1))                                         // a scalar per row: Sum allocates its own
	sq := gorgonia.Must(gorgonia.HadamardProd(big, big))                                 // 800 bytes
	out := gorgonia.Must(gorgonia.Add(sq, gorgonia.Must(gorgonia.HadamardProd(big, x)))) // peak: big, sq, big*x
	m, err := vm.New(gorgonia.Nodes{out, small})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for range 2 {
		if err := m.RunAll(); err != nil {
			t.Fatal(err)
		}
	}
	var sum int64
	for _, h := range m.PeakHolders() {
		sum += h.Bytes
	}
	if p := m.Stats().PeakInUse; sum != p || len(m.PeakHolders()) != 3 {
		t.Errorf("holders %v add up to %d bytes; the pool's peak is %d, want 3 holders", m.PeakHolders(), sum, p)
	}
}
