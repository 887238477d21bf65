package generate

import (
	"slices"
	"testing"
)

func TestRMATSkew(t *testing.T) {
	t.Parallel()
	const scale, edgeFactor = 13, 16
	g, err := RMAT(scale, edgeFactor<<scale, 0.57, 0.19, 0.19, 1)
	if err != nil {
		t.Fatal(err)
	}
	mean, maxDeg, _ := degreeStats(g)
	if mean != edgeFactor {
		t.Errorf("mean out-degree %v, want %d", mean, edgeFactor)
	}
	// Graph500 graphs are heavy-tailed: at this scale the largest degree is
	// in the thousands, against about 35 for a uniform graph.
	if float64(maxDeg) < 50*mean {
		t.Errorf("max out-degree %d, want above %.0f (50 times the mean)", maxDeg, 50*mean)
	}
	// Many nodes are isolated or nearly so.
	var zero int
	for _, d := range g.OutDegrees() {
		if d == 0 {
			zero++
		}
	}
	if zero < 1<<scale/10 {
		t.Errorf("%d nodes of out-degree 0, want at least a tenth of %d", zero, 1<<scale)
	}
}

func TestRMATPermuted(t *testing.T) {
	t.Parallel()
	// Without relabelling, a = 1 puts every edge on node 0; with it, on one
	// node chosen by the seed.
	g, err := RMAT(10, 50, 1, 0, 0, 9)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := g.COO()
	hub := src[0]
	for e := range src {
		if src[e] != hub || dst[e] != hub {
			t.Fatalf("edge %d is %d -> %d, want %d -> %d", e, src[e], dst[e], hub, hub)
		}
	}
	// d = 1 puts every edge on the node that 2^scale-1 is relabelled to.
	h, _ := RMAT(10, 50, 0, 0, 0, 9)
	hs, _ := h.COO()
	if hs[0] == hub {
		t.Errorf("nodes 0 and 1023 both relabelled to %d", hub)
	}
}

func TestRMATQuadrants(t *testing.T) {
	t.Parallel()
	// With b = 1 every edge runs from the lower half to the upper half at
	// every level: from (relabelled) node 0 to node 2^scale-1.
	g, err := RMAT(5, 10, 0, 1, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := g.COO()
	if len(slices.Compact(slices.Clone(src))) != 1 || len(slices.Compact(slices.Clone(dst))) != 1 || src[0] == dst[0] {
		t.Errorf("b = 1: got edges %v -> %v, want one repeated non-loop edge", src, dst)
	}
}

func TestPermutation(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 1, 2, 100} {
		p := permutation(n, newSource(1, permStream))
		sorted := slices.Clone(p)
		slices.Sort(sorted)
		for i, v := range sorted {
			if v != int32(i) {
				t.Fatalf("permutation(%d) = %v is not a permutation", n, p)
			}
		}
	}
}
