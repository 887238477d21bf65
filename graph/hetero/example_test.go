package hetero_test

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
)

func ExampleNew() {
	plays, _ := graph.FromCOO(3, 2, []int32{0, 2, 1}, []int32{1, 0, 1})
	follows, _ := graph.FromCOO(3, 3, []int32{0, 1}, []int32{1, 2})
	h, err := hetero.New(map[string]int{"user": 3, "game": 2}, map[hetero.EdgeType]*graph.Graph{
		{Src: "user", Rel: "plays", Dst: "game"}:   plays,
		{Src: "user", Rel: "follows", Dst: "user"}: follows,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ = h.AddReverse("rev-")
	fmt.Println(h.NodeTypes())
	fmt.Println(h.EdgeTypes())
	hom, _ := h.ToHomogeneous()
	fmt.Println(hom.Graph.NumNodes(), hom.Graph.NumEdges(), hom.NodeType)
	// Output:
	// [game user]
	// [(game, rev-plays, user) (user, follows, user) (user, plays, game) (user, rev-follows, user)]
	// 5 10 [0 0 1 1 1]
}
