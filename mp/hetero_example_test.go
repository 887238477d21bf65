package mp_test

import (
	"fmt"
	"log"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
	"github.com/gnngo/gnn/mp"
	"github.com/gnngo/gnn/ops/fn"
)

// Users receive the sum of their followers' features and of the features
// of the games they play (through the reverse relation), combined by sum.
func ExampleHeteroFrame_MultiUpdateAll() {
	plays, _ := graph.FromCOO(2, 2, []int32{0, 1, 1}, []int32{0, 0, 1}) // user -> game
	follows, _ := graph.FromCOO(2, 2, []int32{0}, []int32{1})           // user -> user
	h, err := hetero.New(map[string]int{"user": 2, "game": 2}, map[hetero.EdgeType]*graph.Graph{
		{Src: "user", Rel: "plays", Dst: "game"}:   plays,
		{Src: "user", Rel: "follows", Dst: "user"}: follows,
	})
	if err != nil {
		log.Fatal(err)
	}
	h, _ = h.AddReverse("rev-")
	eg := gorgonia.NewGraph()
	f, _ := mp.NewHeteroFrame(h)
	users, _ := f.Nodes("user")
	games, _ := f.Nodes("game")
	users.Set("h", matrix(eg, "hu", 2, 1, 1, 10))
	games.Set("h", matrix(eg, "hg", 2, 1, 100, 1000))
	sum := mp.Pass{Message: fn.CopyU("h", "m"), Reduce: fn.Sum("m", "h")}
	err = f.MultiUpdateAll(map[hetero.EdgeType]mp.Pass{
		{Src: "user", Rel: "follows", Dst: "user"}:   sum,
		{Src: "game", Rel: "rev-plays", Dst: "user"}: sum,
	}, mp.CrossSum)
	if err != nil {
		log.Fatal(err)
	}
	out, _ := users.Get("h")
	run(eg)
	fmt.Println(out.Value().Data())
	// Output: [100 1101]
}
