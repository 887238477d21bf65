package generate_test

import (
	"fmt"

	"github.com/gnngo/gnn/graph/generate"
)

func ExamplePath() {
	g := generate.Path(4)
	src, dst := g.COO()
	fmt.Println(g.NumNodes(), src, dst)
	// Output: 4 [0 1 2] [1 2 3]
}

func ExampleStar() {
	// Star points the centre at the leaves; Reverse points the leaves at the
	// centre.
	g := generate.Star(4)
	fmt.Println(g.OutDegrees(), g.Reverse().OutDegrees())
	// Output: [3 0 0 0] [0 1 1 1]
}

func ExampleUniformDensity() {
	// The smallest DGL ablation graph: 32K nodes at density 0.0008.
	g, err := generate.UniformDensity(32768, 0.0008, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(g.NumNodes(), g.NumEdges())
	// Output: 32768 858993
}

func ExampleRMAT() {
	// A Graph500 graph of scale 10: 1024 nodes, 16 edges per node on average.
	g, err := generate.RMAT(10, 16<<10, 0.57, 0.19, 0.19, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(g.NumNodes(), g.NumEdges())
	// Output: 1024 16384
}
