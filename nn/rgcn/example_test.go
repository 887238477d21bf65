package rgcn_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/nn/rgcn"
)

// An R-GCN layer over a heterograph converted to homogeneous form: the
// edge-type column gives each edge its relation.
func ExampleNew() {
	plays, _ := graph.FromCOO(3, 2, []int32{0, 2, 1}, []int32{1, 0, 1})
	follows, _ := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{1, 2, 0})
	h, _ := hetero.New(map[string]int{"user": 3, "game": 2}, map[hetero.EdgeType]*graph.Graph{
		{Src: "user", Rel: "plays", Dst: "game"}:   plays,
		{Src: "user", Rel: "follows", Dst: "user"}: follows,
	})
	h, _ = h.AddReverse("rev-")
	hom, _ := h.ToHomogeneous()
	norm, _ := rgcn.RightNorm(hom.Graph, hom.EdgeType, h.NumEdgeTypes())
	rel, err := rgcn.Group(hom.Graph, hom.EdgeType, h.NumEdgeTypes(), norm)
	if err != nil {
		log.Fatal(err)
	}

	eg := gorgonia.NewGraph()
	l, err := rgcn.New(eg, 8, 4, h.NumEdgeTypes(), rgcn.WithBasis(2))
	if err != nil {
		log.Fatal(err)
	}
	x := gorgonia.NewMatrix(eg, gorgonia.Float32, gorgonia.WithShape(5, 8), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
	y, err := l.Forward(rel, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(y.Shape(), len(l.Learnables()))
	// Output: (5, 4) 4
}

// SegmentMatMul on its own: two relations over four nodes, block-diagonal
// weights of two (2, 1) blocks, and only the destinations 2 and 3 (their
// self-loop rows are x's rows 2 and 3).
func ExampleSegmentMatMul() {
	g, _ := graph.FromCOO(4, 4, []int32{0, 1, 2, 3, 0}, []int32{2, 3, 3, 2, 1})
	rel, err := rgcn.Group(g, []int32{0, 0, 1, 1, 1}, 2, nil)
	if err != nil {
		log.Fatal(err)
	}
	last, err := rel.DstRange(2, 4)
	if err != nil {
		log.Fatal(err)
	}
	eg := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(eg, gorgonia.Float64, gorgonia.WithShape(4, 4), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Ones()))
	w := gorgonia.NewTensor(eg, gorgonia.Float64, 4, gorgonia.WithShape(2, 2, 2, 1), gorgonia.WithName("blocks"), gorgonia.WithInit(gorgonia.Ones()))
	loop := gorgonia.NewMatrix(eg, gorgonia.Float64, gorgonia.WithShape(4, 2), gorgonia.WithName("loop"), gorgonia.WithInit(gorgonia.Ones()))
	y, err := rgcn.SegmentMatMul(last, x, w, loop, nil)
	if err != nil {
		log.Fatal(err)
	}
	vm := gorgonia.NewTapeMachine(eg)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		log.Fatal(err)
	}
	// Each destination has two in-edges, each message 2 per column, and a
	// self-loop of 4 per column.
	fmt.Println(y.Value())
	// Output:
	// ⎡8  8⎤
	// ⎣8  8⎦
}
