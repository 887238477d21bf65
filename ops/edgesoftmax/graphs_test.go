package edgesoftmax

import (
	"math/rand/v2"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
)

// fixture is a named test graph.
type fixture = testgraphs.Fixture

func fixtures(t testing.TB) []fixture { return testgraphs.Fixtures(t) }

func randomGraph(t testing.TB, rng *rand.Rand, ns, nd, ne int) *graph.Graph {
	return testgraphs.Random(t, rng, ns, nd, ne)
}

func mustGraph(t testing.TB, ns, nd int, src, dst []int32) *graph.Graph {
	return testgraphs.Must(t, ns, nd, src, dst)
}
