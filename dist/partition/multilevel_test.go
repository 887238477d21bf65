package partition

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
)

// planetoidDir returns the directory of the named converted Planetoid
// dataset, or skips the test when the data is absent.
func planetoidDir(t testing.TB, name string) string {
	t.Helper()
	dir := findPlanetoid(name)
	if dir == "" {
		t.Skipf("Planetoid %s not found; set GNN_PLANETOID_DIR to the planetoid data folder", name)
	}
	return dir
}

// findPlanetoid returns the named dataset's directory under
// $GNN_PLANETOID_DIR or shared/data/planetoid beside the repository, or "".
func findPlanetoid(name string) string {
	roots := []string{"../../../shared/data/planetoid", "../../shared/data/planetoid"}
	if env := os.Getenv("GNN_PLANETOID_DIR"); env != "" {
		roots = []string{env}
	}
	for _, root := range roots {
		dir := filepath.Join(root, name)
		if _, err := os.Stat(filepath.Join(dir, "meta.txt")); err == nil {
			return dir
		}
	}
	return ""
}

func rmat(t testing.TB, scale int, edges int64) *graph.Graph {
	t.Helper()
	g, err := generate.RMAT(scale, edges, 0.57, 0.19, 0.19, 7)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// checkBalance fails when a part holds more than MaxImbalance times its
// share, with a node of slack per bisection level for small graphs.
func checkBalance(t *testing.T, owner []int32, parts int) {
	t.Helper()
	sizes, err := PartSizes(owner, parts)
	if err != nil {
		t.Fatal(err)
	}
	levels := 0
	for k := 1; k < parts; k *= 2 {
		levels++
	}
	limit := int(math.Ceil(MaxImbalance*float64(len(owner))/float64(parts))) + levels
	for r, s := range sizes {
		if s > limit {
			t.Fatalf("part %d holds %d nodes, more than %d (sizes %v)", r, s, limit, sizes)
		}
	}
}

// cutVsRandom partitions g and returns its cut and the mean cut of random
// balanced partitions.
func cutVsRandom(t *testing.T, g *graph.Graph, parts int) (cut, random int64) {
	t.Helper()
	owner, err := Partition(g, parts, 1)
	if err != nil {
		t.Fatal(err)
	}
	checkBalance(t, owner, parts)
	if cut, err = EdgeCut(g, owner); err != nil {
		t.Fatal(err)
	}
	for s := range int64(3) {
		r, _ := Random(g.NumNodes(), parts, s)
		c, _ := EdgeCut(g, r)
		random += c
	}
	return cut, random / 3
}

func TestPartitionGrid(t *testing.T) {
	// A 32x32 grid: 4 parts of 16x16 cut 64 undirected edges, 128 directed.
	g := generate.Grid(32, 32)
	for _, parts := range []int{2, 4} {
		cut, random := cutVsRandom(t, g, parts)
		best := map[int]int64{2: 64, 4: 128}[parts]
		t.Logf("grid 32x32, %d parts: cut %d (optimum %d), random %d", parts, cut, best, random)
		if float64(cut) > 1.5*float64(best) {
			t.Errorf("%d parts: cut %d, more than 1.5x the optimum %d", parts, cut, best)
		}
	}
}

func TestPartitionRMAT(t *testing.T) {
	g := rmat(t, 12, 16<<12)
	for _, parts := range []int{2, 3, 8} {
		cut, random := cutVsRandom(t, g, parts)
		t.Logf("R-MAT scale 12, %d edges, %d parts: cut %d (%.1f%%), random %d (%.1f%%)", g.NumEdges(), parts,
			cut, 100*float64(cut)/float64(g.NumEdges()), random, 100*float64(random)/float64(g.NumEdges()))
		if cut >= random {
			t.Errorf("%d parts: cut %d is no better than random %d", parts, cut, random)
		}
	}
}

func TestPartitionCora(t *testing.T) {
	ds, err := dataset.LoadPlanetoid(planetoidDir(t, "cora"))
	if err != nil {
		t.Fatal(err)
	}
	for _, parts := range []int{2, 4, 8} {
		cut, random := cutVsRandom(t, ds.Graph, parts)
		t.Logf("Cora, %d parts: cut %d of %d edges (%.1f%%), random %d (%.1f%%)", parts, cut, ds.Graph.NumEdges(),
			100*float64(cut)/float64(ds.Graph.NumEdges()), random, 100*float64(random)/float64(ds.Graph.NumEdges()))
		// Cora splits well: a good partitioner cuts a small fraction of what
		// a random one does.
		if float64(cut) > 0.25*float64(random) {
			t.Errorf("%d parts: cut %d is more than a quarter of random %d", parts, cut, random)
		}
	}
}

func TestPartitionDeterministic(t *testing.T) {
	g := rmat(t, 10, 8<<10)
	a, err := Partition(g, 4, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Partition(g, 4, 42)
	if !slices.Equal(a, b) {
		t.Fatal("the same seed gave two partitions")
	}
	c, _ := Partition(g, 4, 43)
	if slices.Equal(a, c) {
		t.Fatal("seeds 42 and 43 gave the same partition")
	}
}

// TestPartitionSmallAndOdd: fixtures with self-loops, parallel edges,
// isolated nodes, more parts than nodes, and components.
func TestPartitionSmallAndOdd(t *testing.T) {
	graphs := map[string]*graph.Graph{
		"empty":     generate.Empty(0),
		"isolated":  generate.Empty(10),
		"selfloops": generate.SelfLoops(7),
		"parallel":  generate.ParallelEdges(6, 3),
		"star":      generate.Star(50),
		"cycle":     generate.Cycle(33),
		"complete":  generate.Complete(9),
	}
	for _, f := range testgraphs.Fixtures(t) {
		if f.G.Homogeneous() {
			graphs[f.Name] = f.G
		}
	}
	for name, g := range graphs {
		for _, parts := range []int{1, 2, 3, 4, 7, 16} {
			t.Run(fmt.Sprintf("%s/parts=%d", name, parts), func(t *testing.T) {
				owner, err := Partition(g, parts, 5)
				if err != nil {
					t.Fatal(err)
				}
				if err := CheckOwner(owner, g.NumNodes(), parts); err != nil {
					t.Fatal(err)
				}
				checkBalance(t, owner, parts)
			})
		}
	}
}

func TestPartitionErrors(t *testing.T) {
	g := generate.Cycle(4)
	if _, err := Partition(g, 0, 1); err == nil || !strings.Contains(err.Error(), "0 parts") {
		t.Errorf("got %v", err)
	}
	bip := testgraphs.Must(t, 2, 3, nil, nil)
	if _, err := Partition(bip, 2, 1); err == nil || !strings.Contains(err.Error(), "homogeneous") {
		t.Errorf("got %v", err)
	}
	if _, err := Partition(nil, 2, 1); err == nil {
		t.Error("nil graph accepted")
	}
}

// TestUndirected: weights count directed edges both ways, loops dropped.
func TestUndirected(t *testing.T) {
	g := testgraphs.Must(t, 4, 4, []int32{0, 1, 0, 2, 2, 3}, []int32{1, 0, 1, 2, 3, 2})
	w := undirected(g)
	want := map[[2]int32]int32{{0, 1}: 3, {1, 0}: 3, {2, 3}: 2, {3, 2}: 2}
	got := map[[2]int32]int32{}
	for v := range w.n() {
		for p := w.xadj[v]; p < w.xadj[v+1]; p++ {
			got[[2]int32{int32(v), w.adj[p]}] = w.ew[p]
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// The wgraph cut of a split equals the directed edge cut.
	side := []int8{0, 1, 0, 1}
	owner := []int32{0, 1, 0, 1}
	c, _ := EdgeCut(g, owner)
	if w.cut(side) != c {
		t.Fatalf("wgraph cut %d, edge cut %d", w.cut(side), c)
	}
}

func BenchmarkPartitionRMAT(b *testing.B) {
	g := rmat(b, 16, 16<<16)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Partition(g, 8, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(g.NumEdges())*float64(b.N)/b.Elapsed().Seconds(), "edges/s")
}
