package heteroconv_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/nn"
	"github.com/gnngo/gnn/nn/gcn"
	"github.com/gnngo/gnn/nn/heteroconv"
)

// Users follow users and play games: a GraphConv per relation, the users'
// two inputs (from follows and from rev-plays) summed.
func ExampleNew() {
	plays, _ := graph.FromCOO(3, 2, []int32{0, 2, 1}, []int32{1, 0, 1})
	follows, _ := graph.FromCOO(3, 3, []int32{0, 1, 2}, []int32{1, 2, 0})
	h, _ := hetero.New(map[string]int{"user": 3, "game": 2}, map[hetero.EdgeType]*graph.Graph{
		{Src: "user", Rel: "plays", Dst: "game"}:   plays,
		{Src: "user", Rel: "follows", Dst: "user"}: follows,
	})
	h, _ = h.AddReverse("rev-")

	eg := gorgonia.NewGraph()
	mods := map[hetero.EdgeType]nn.Layer{}
	for _, et := range h.EdgeTypes() {
		l, err := gcn.New(eg, 4, 8, gcn.WithDtype(tensor.Float64), gcn.WithAllowZeroInDegree(true))
		if err != nil {
			log.Fatal(err)
		}
		mods[et] = l
	}
	conv, err := heteroconv.New(mods, mp.CrossSum)
	if err != nil {
		log.Fatal(err)
	}
	x := map[string]*gorgonia.Node{
		"user": gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(3, 4), gorgonia.WithName("xu"), gorgonia.WithInit(gorgonia.Ones())),
		"game": gorgonia.NewMatrix(eg, tensor.Float64, gorgonia.WithShape(2, 4), gorgonia.WithName("xg"), gorgonia.WithInit(gorgonia.Ones())),
	}
	y, err := conv.Forward(h, x)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(y["user"].Shape(), y["game"].Shape(), len(conv.Learnables()))
	// Output: (3, 8) (2, 8) 8
}
