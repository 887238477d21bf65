package mp_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/ops/fn"
)

// matrix returns an input node holding vals.
func matrix(eg *gorgonia.ExprGraph, name string, rows, cols int, vals ...float64) *gorgonia.Node {
	return gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(rows, cols), gorgonia.WithName(name),
		gorgonia.WithValue(tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(vals))))
}

func run(eg *gorgonia.ExprGraph) {
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
}

// A weighted sum over in-edges with builtins, which run as one fused SpMM,
// and the same computation with user-defined functions.
func ExampleFrame_UpdateAll() {
	// Edges 0 -> 2, 1 -> 2 and 2 -> 0; node 1 has no in-edges.
	g, err := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{2, 2, 0})
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	f, err := mp.NewFrame(g)
	if err != nil {
		log.Fatal(err)
	}
	f.NodeData().Set("h", matrix(eg, "h", 3, 2, 1, 2, 3, 4, 5, 6))
	f.EdgeData().Set("w", matrix(eg, "w", 3, 1, 10, 100, 1000))

	if err := f.UpdateAll(fn.UMulE("h", "w", "m"), fn.Sum("m", "h"), nil); err != nil {
		log.Fatal(err)
	}
	fused, _ := f.NodeData().Get("h")

	// The same with an edge function and a reduce function over the
	// degree-bucketed mailbox, on the original h.
	err = f.Local(func(l *mp.Frame) error {
		l.NodeData().Set("h", matrix(eg, "h0", 3, 2, 1, 2, 3, 4, 5, 6))
		msg := mp.EdgeFunc(func(e *mp.EdgeBatch) (mp.Fields, error) {
			h, err := e.Src("h")
			if err != nil {
				return nil, err
			}
			w, err := e.Data("w")
			if err != nil {
				return nil, err
			}
			m, err := gorgonia.BroadcastHadamardProd(h, w, nil, []byte{1})
			return mp.Fields{"m": m}, err
		})
		red := mp.NodeFunc(func(n *mp.NodeBatch) (mp.Fields, error) {
			mb, err := n.Mailbox("m") // (nodes, in-degree, 2)
			if err != nil {
				return nil, err
			}
			s, err := gorgonia.Sum(mb, 1)
			return mp.Fields{"h": s}, err
		})
		if err := l.UpdateAll(msg, red, nil); err != nil {
			return err
		}
		udf, _ := l.NodeData().Get("h")
		run(eg)
		fmt.Println(fused.Value().Data())
		fmt.Println(udf.Value().Data())
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	// Output:
	// [5000 6000 0 0 310 420]
	// [5000 6000 0 0 310 420]
}

// Pull updates only the nodes given; the others keep their fields.
func ExampleFrame_Pull() {
	g, err := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{2, 2, 0})
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	f, _ := mp.NewFrame(g)
	f.NodeData().Set("h", matrix(eg, "h", 3, 1, 1, 2, 3))
	if err := f.Pull([]int32{2}, fn.CopyU("h", "m"), fn.Max("m", "h"), nil); err != nil {
		log.Fatal(err)
	}
	h, _ := f.NodeData().Get("h")
	run(eg)
	fmt.Println(h.Value().Data())
	// Output: [1 2 2]
}

// Errors name what is missing and where.
func ExampleFrame_UpdateAll_error() {
	g, _ := graph.FromCOO(2, 2, []int32{0}, []int32{1})
	eg := gorgonia.NewGraph()
	f, _ := mp.NewFrame(g)
	f.NodeData().Set("x", matrix(eg, "x", 2, 1, 1, 2))
	err := f.UpdateAll(fn.CopyU("h", "m"), fn.Sum("m", "h"), nil)
	fmt.Println(err)
	// Output: mp: UpdateAll(copy_u(h -> m), sum(m -> h)): field "h" not found in node data (it has x)
}
