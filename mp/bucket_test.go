package mp

import (
	"math"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/ops"
	"github.com/gnngo/gnn/ops/fn"
)

// TestMailboxOrder checks what a reduce function sees: buckets of equal
// in-degree with nodes in increasing order, and mailboxes holding the
// messages in increasing edge-ID order (DGL's
// test_degree_bucket_edge_ordering), on the whole graph and on a subset of
// edges given out of order.
func TestMailboxOrder(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"]
	for _, eids := range [][]int64{nil, {13, 4, 1, 7, 5, 6, 0}} {
		eg := gorgonia.NewGraph()
		f, err := NewFrame(g)
		if err != nil {
			t.Fatal(err)
		}
		ids := make([]float64, g.NumEdges())
		for e := range ids {
			ids[e] = float64(e)
		}
		if err := f.EdgeData().Set("id", gradcheck.Input(eg, tensor.Float64, "id", []int{len(ids), 1}, ids)); err != nil {
			t.Fatal(err)
		}
		type call struct {
			nodes []int32
			deg   int
			mail  *gorgonia.Node
		}
		var calls []call
		red := NodeFunc(func(b *NodeBatch) (Fields, error) {
			mb, err := b.Mailbox("m")
			if err != nil {
				return nil, err
			}
			calls = append(calls, call{b.Nodes(), b.Degree(), mb})
			s, err := gorgonia.Sum(mb, 1)
			return Fields{"h": s}, err
		})
		if eids == nil {
			err = f.UpdateAll(fn.CopyE("id", "m"), red, nil)
		} else {
			err = f.SendAndRecv(eids, fn.CopyE("id", "m"), red, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		vm := gorgonia.NewTapeMachine(eg)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		_, dst := g.COO()
		var degs []int
		for _, c := range calls {
			degs = append(degs, c.deg)
			if !slices.IsSorted(c.nodes) {
				t.Errorf("bucket nodes %v are not in increasing order", c.nodes)
			}
			got := gradcheck.Floats(c.mail.Value())
			for i, v := range c.nodes {
				var want []float64
				for e := range dst {
					if dst[e] == v && (eids == nil || slices.Contains(eids, int64(e))) {
						want = append(want, float64(e))
					}
				}
				if row := got[i*c.deg : (i+1)*c.deg]; !slices.Equal(row, want) {
					t.Errorf("eids %v: mailbox of node %d = %v, want %v", eids, v, row, want)
				}
			}
		}
		if !slices.IsSorted(degs) {
			t.Errorf("buckets by degree %v, want increasing", degs)
		}
		vm.Close()
	}
}

// reduceCalls counts the calls of a reduce function.
type reduceCalls struct{ n int }

func (c *reduceCalls) sum() NodeFunc {
	return func(b *NodeBatch) (Fields, error) {
		c.n++
		mb, err := b.Mailbox("m")
		if err != nil {
			return nil, err
		}
		s, err := gorgonia.Sum(mb, 1)
		return Fields{"h": s}, err
	}
}

func (c *reduceCalls) max() NodeFunc {
	return func(b *NodeBatch) (Fields, error) {
		c.n++
		mb, err := b.Mailbox("m")
		if err != nil {
			return nil, err
		}
		s, err := gorgonia.Max(mb, 1)
		return Fields{"h": s}, err
	}
}

// TestBucketingAndPadding checks that degree bucketing, degree padding
// (powers of two, and explicit bounds) and the fused builtin agree on a
// power-law graph: sums with their gradients, and maxima.
func TestBucketingAndPadding(t *testing.T) {
	t.Parallel()
	g, err := generate.RMAT(8, 2048, 0.57, 0.19, 0.19, 3)
	if err != nil {
		t.Fatal(err)
	}
	degs := g.InDegrees()
	t.Logf("R-MAT: %d nodes, %d edges, max in-degree %d, %d distinct in-degrees",
		g.NumDst(), g.NumEdges(), slices.Max(degs), len(slices.Compact(slices.Sorted(slices.Values(degs)))))
	in := []input{{"x", ops.U, []int{4}}}
	batchings := map[string]Batching{
		"bucketing":  {},
		"pad-pow2":   {Pad: true},
		"pad-bounds": {Pad: true, Bounds: []int{2, 10, 50}},
	}
	with := func(b Batching, red ReduceFunc) program {
		return func(f *Frame) (*gorgonia.Node, error) {
			if err := f.SetBatching(b); err != nil {
				return nil, err
			}
			return updateAll(fn.CopyU("x", "m"), red, "h")(f)
		}
	}
	for _, dt := range gradcheck.Dtypes {
		want := evaluate(t, g, dt, in, updateAll(fn.CopyU("x", "m"), fn.Sum("m", "h"), "h"), 4)
		wantMax := forwardOnly(t, g, dt, in, updateAll(fn.CopyU("x", "m"), fn.Max("m", "h"), "h"), 4)
		for name, b := range batchings {
			var calls reduceCalls
			got := evaluate(t, g, dt, in, with(b, calls.sum()), 4)
			if err := compare(got, want, tol(dt)); err != nil {
				t.Errorf("%v %s sum: %v", dt, name, err)
			}
			sums := calls.n
			b.Value = math.Inf(-1)
			got = forwardOnly(t, g, dt, in, with(b, calls.max()), 4)
			if i := gradcheck.Mismatch(got.out, wantMax.out, tol(dt)); i >= 0 {
				t.Errorf("%v %s max: output[%d] = %v, want %v", dt, name, i, got.out[i], wantMax.out[i])
			}
			if dt == tensor.Float64 {
				t.Logf("%s: %d reduce calls", name, sums)
			}
		}
	}
}

// TestInitialValue checks that nodes without in-edges get the frame's
// initial value on the fused, two-stage and UDF paths, and that gradients
// are unaffected.
func TestInitialValue(t *testing.T) {
	t.Parallel()
	for gname, g := range gradcheck.Fixtures(t) {
		for _, m := range []fn.Message{fn.UMulE("au", "be", "m"), fn.UAddV("au", "bv", "m")} {
			for _, newRed := range reducers {
				r := newRed("m", "h")
				in := inputsOf(m, []int{2})
				init := func(p program) program {
					return func(f *Frame) (*gorgonia.Node, error) {
						f.SetInitial(-3)
						return p(f)
					}
				}
				fused := evaluate(t, g, tensor.Float64, in, init(updateAll(m, r, "h")), 6)
				udf := evaluate(t, g, tensor.Float64, in, init(updateAll(udfMessage(m), udfReducer(r), "h")), 6)
				if err := compare(fused, udf, 1e-10); err != nil {
					t.Errorf("%s %v %v: %v", gname, m, r, err)
				}
				zero := forwardOnly(t, g, tensor.Float64, in, updateAll(m, r, "h"), 6)
				for v, d := range g.InDegrees() {
					for k := range 2 {
						got, want := fused.out[2*v+k], zero.out[2*v+k]
						if d == 0 {
							want = -3
						}
						if got != want {
							t.Errorf("%s %v %v: node %d (in-degree %d) = %v, want %v", gname, m, r, v, d, got, want)
						}
					}
				}
			}
		}
	}
}

// TestPaddedBatch checks what a reduce function sees with degree padding:
// degree ranges, the padded length, the true in-degrees and the padding.
func TestPaddedBatch(t *testing.T) {
	t.Parallel()
	g := gradcheck.Fixtures(t)["homo"] // in-degrees 2 5 2 2 2 1 0
	eg := gorgonia.NewGraph()
	f, err := NewFrame(g)
	if err != nil {
		t.Fatal(err)
	}
	ones := make([]float64, g.NumNodes())
	for i := range ones {
		ones[i] = 1
	}
	if err := f.NodeData().Set("x", gradcheck.Input(eg, tensor.Float64, "x", []int{g.NumNodes(), 1}, ones)); err != nil {
		t.Fatal(err)
	}
	if err := f.SetBatching(Batching{Pad: true, Value: 9, Bounds: []int{1, 4}}); err != nil {
		t.Fatal(err)
	}
	type call struct {
		nodes []int32
		degs  []int
		deg   int
		mail  *gorgonia.Node
	}
	var calls []call
	err = f.UpdateAll(fn.CopyU("x", "m"), NodeFunc(func(b *NodeBatch) (Fields, error) {
		mb, err := b.Mailbox("m")
		if err != nil {
			return nil, err
		}
		calls = append(calls, call{b.Nodes(), b.InDegrees(), b.Degree(), mb})
		if b.NumNodes() != len(b.Nodes()) {
			t.Errorf("NumNodes %d, Nodes %v", b.NumNodes(), b.Nodes())
		}
		s, err := gorgonia.Sum(mb, 1)
		return Fields{"h": s}, err
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	want := []call{
		{nodes: []int32{5}, degs: []int{1}, deg: 1},
		{nodes: []int32{0, 2, 3, 4}, degs: []int{2, 2, 2, 2}, deg: 2},
		{nodes: []int32{1}, degs: []int{5}, deg: 5},
	}
	if len(calls) != len(want) {
		t.Fatalf("%d reduce calls, want %d", len(calls), len(want))
	}
	for i, c := range calls {
		w := want[i]
		if !slices.Equal(c.nodes, w.nodes) || !slices.Equal(c.degs, w.degs) || c.deg != w.deg {
			t.Errorf("call %d: nodes %v, in-degrees %v, degree %d; want %v, %v, %d", i, c.nodes, c.degs, c.deg, w.nodes, w.degs, w.deg)
		}
	}
	// With bounds 1, 4 and pad 9, no mailbox needs padding here; a bound of
	// 2 and 5 puts node 5 (degree 1) with the degree-2 nodes.
	if err := f.SetBatching(Batching{Pad: true, Value: 9, Bounds: []int{2}}); err != nil {
		t.Fatal(err)
	}
	var mail *gorgonia.Node
	err = f.UpdateAll(fn.CopyU("x", "m"), NodeFunc(func(b *NodeBatch) (Fields, error) {
		mb, err := b.Mailbox("m")
		if err == nil && b.Degree() == 2 {
			mail = mb
		}
		s, _ := gorgonia.Sum(mb, 1)
		return Fields{"h": s}, err
	}), nil)
	if err != nil {
		t.Fatal(err)
	}
	vm2 := gorgonia.NewTapeMachine(eg)
	defer vm2.Close()
	if err := vm2.RunAll(); err != nil {
		t.Fatal(err)
	}
	// Nodes 0, 2, 3, 4, 5: node 5 has one message and one pad.
	if got, want := gradcheck.Floats(mail.Value()), []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 9}; !slices.Equal(got, want) {
		t.Errorf("padded mailbox %v, want %v", got, want)
	}
}

func TestSetBatching(t *testing.T) {
	t.Parallel()
	f, err := NewFrame(gradcheck.Fixtures(t)["homo"])
	if err != nil {
		t.Fatal(err)
	}
	for _, bounds := range [][]int{{0}, {3, 3}, {4, 2}, {-1, 5}} {
		if err := f.SetBatching(Batching{Pad: true, Bounds: bounds}); err == nil {
			t.Errorf("bounds %v: no error", bounds)
		}
	}
	b := Batching{Pad: true, Value: 1, Bounds: []int{2, 8}}
	if err := f.SetBatching(b); err != nil {
		t.Fatal(err)
	}
	b.Bounds[0] = 5
	if got := f.Batching(); got.Bounds[0] != 2 || !got.Pad || got.Value != 1 {
		t.Errorf("Batching() = %+v after the caller changed its bounds", got)
	}
}

// TestReduceGradients checks gradients through reduce functions that read
// their mailbox in some buckets only, node data in others, and both twice,
// against finite differences, on the whole graph and on a pull.
func TestReduceGradients(t *testing.T) {
	t.Parallel()
	red := NodeFunc(func(b *NodeBatch) (Fields, error) {
		y, err := b.Data("y")
		if err != nil {
			return nil, err
		}
		if b.Degree() == 2 {
			// No message: only y's gradient flows, on these nodes.
			h, err := gorgonia.HadamardProd(y, y)
			return Fields{"h": h}, err
		}
		mb, err := b.Mailbox("m")
		if err != nil {
			return nil, err
		}
		again, _ := b.Mailbox("m")
		s, err := gorgonia.Max(mb, 1)
		if err != nil {
			return nil, err
		}
		s2, err := gorgonia.Sum(again, 1)
		if err != nil {
			return nil, err
		}
		h, err := gorgonia.HadamardProd(s, s2)
		if err != nil {
			return nil, err
		}
		y2, _ := b.Data("y")
		h, err = gorgonia.Add(h, y2)
		return Fields{"h": h}, err
	})
	in := []input{{"x", ops.U, []int{2}}, {"y", ops.V, []int{2}}, {"w", ops.E, []int{2}}}
	for gname, g := range gradcheck.Fixtures(t) {
		for name, run := range map[string]func(*Frame) error{
			"UpdateAll": func(f *Frame) error { return f.UpdateAll(fn.UMulE("x", "w", "m"), red, nil) },
			"Pull":      func(f *Frame) error { return f.Pull([]int32{3, 0, 1}, udfMessage(fn.UMulE("x", "w", "m")), red, nil) },
		} {
			t.Run(gname+"/"+name, func(t *testing.T) {
				gradCheck(t, g, in, func(f *Frame) (*gorgonia.Node, error) {
					if err := run(f); err != nil {
						return nil, err
					}
					return f.DstData().Get("h")
				}, 14)
			})
		}
	}
}
