package rgcn_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/internal/testkit/gradcheck"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
	"github.com/gnngo/gnn/nn/rgcn"
)

// wholeFixture is a graph of 2n nodes with relation 0 on edges into the
// first n nodes and relation 1 on edges into the others, with norms.
func wholeFixture(t *testing.T, n, m int) (*rgcn.Relations, []int32, []int32, []int32) {
	r := rand.New(rand.NewPCG(3, 4))
	src, dst := make([]int32, m), make([]int32, m)
	et, norm := make([]int32, m), make([]float64, m)
	for e := range src {
		src[e], dst[e] = int32(r.IntN(2*n)), int32(r.IntN(2*n))
		if dst[e] >= int32(n) {
			et[e] = 1
		}
		norm[e] = 0.1 + r.Float64()
	}
	rel, err := rgcn.Group(testgraphs.Must(t, 2*n, 2*n, src, dst), et, 2, norm)
	if err != nil {
		t.Fatal(err)
	}
	return rel, src, dst, et
}

// TestDstRangeSharesWholeRelations checks that a range holding all of a
// relation's destinations shares its edges instead of copying them: the
// range allocates less than 8 bytes per such edge (a copy of the edge
// lists alone is 8, with the norms 16), and holds the same edges,
// renumbered.
func TestDstRangeSharesWholeRelations(t *testing.T) {
	const n, m = 10000, 200000
	rel, src, dst, et := wholeFixture(t, n, m)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	sub, err := rel.DstRange(0, n)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	whole := m - int(sumInt32(et))
	if got := after.TotalAlloc - before.TotalAlloc; got >= uint64(8*whole) {
		t.Errorf("DstRange allocated %d bytes for a range holding relation 0's %d edges whole; want under %d", got, whole, 8*whole)
	}
	if sub.NumEdges() != whole {
		t.Errorf("range has %d edges, want %d", sub.NumEdges(), whole)
	}
	var ws, wd []int32
	for e := range src {
		if et[e] == 0 {
			ws, wd = append(ws, src[e]), append(wd, dst[e])
		}
	}
	gs, gd := sub.Graph(0).COO()
	if !slices.Equal(gs, ws) || !slices.Equal(gd, wd) {
		t.Errorf("relation 0 in the range differs from its edges")
	}
	if s, d := sub.Touched(1); s != 0 || d != 0 {
		t.Errorf("relation 1 touches %d sources and %d destinations in the range, want none", s, d)
	}
	// A range past the first node renumbers the destinations.
	shifted, err := rel.DstRange(n, 2*n)
	if err != nil {
		t.Fatal(err)
	}
	_, gd = shifted.Graph(1).COO()
	for k, v := range gd {
		if v < 0 || v >= n {
			t.Fatalf("edge %d of relation 1 in [n, 2n) has destination %d, want in [0, %d)", k, v, n)
		}
	}
}

func sumInt32(xs []int32) (s int64) {
	for _, x := range xs {
		s += int64(x)
	}
	return s
}

// TestFloat32Norms checks that Relations.Float32 gives a float32 layer the
// same bits as the float64 norms do, on the whole graph and on a range
// that shares a relation.
func TestFloat32Norms(t *testing.T) {
	const n, m, in, out = 300, 3000, 8, 5
	rel, _, _, _ := wholeFixture(t, n, m)
	for _, hi := range []int{0, n} {
		a, b := rel, rel.Float32()
		if hi > 0 {
			var err error
			if a, err = a.DstRange(0, hi); err != nil {
				t.Fatal(err)
			}
			if b, err = b.DstRange(0, hi); err != nil {
				t.Fatal(err)
			}
		}
		var got [2][]float64
		for i, r := range []*rgcn.Relations{a, b} {
			eg := gorgonia.NewGraph()
			rng := rand.New(rand.NewPCG(5, 6))
			x := gradcheck.Input(eg, tensor.Float32, "x", []int{2 * n, in}, gradcheck.Draw(rng, 2*n*in))
			w := gradcheck.Input(eg, tensor.Float32, "w", []int{2, in, out}, gradcheck.Draw(rng, 2*in*out))
			y, err := rgcn.SegmentMatMul(r, x, w, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = gradcheck.Run(t, y)[0]
		}
		if !slices.Equal(got[0], got[1]) {
			t.Errorf("range to %d: float32 output with float32-only norms differs from the float64 norms'", hi)
		}
	}
}
