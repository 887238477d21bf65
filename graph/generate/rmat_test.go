package generate

import (
	"math"
	"slices"
	"strings"
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
	// Without scrambling, a = 1 puts every edge on node 0; with it, on one
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
	// d = 1 puts every edge on the node that 2^scale-1 is scrambled to.
	h, _ := RMAT(10, 50, 0, 0, 0, 9)
	hs, _ := h.COO()
	if hs[0] == hub {
		t.Errorf("nodes 0 and 1023 both scrambled to %d", hub)
	}
}

func TestRMATQuadrants(t *testing.T) {
	t.Parallel()
	// With b = 1 every edge runs from the lower half to the upper half at
	// every level: from (scrambled) node 0 to node 2^scale-1.
	g, err := RMAT(5, 10, 0, 1, 0, 2)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := g.COO()
	if len(slices.Compact(slices.Clone(src))) != 1 || len(slices.Compact(slices.Clone(dst))) != 1 || src[0] == dst[0] {
		t.Errorf("b = 1: got edges %v -> %v, want one repeated non-loop edge", src, dst)
	}
}

func TestScramblerBijective(t *testing.T) {
	t.Parallel()
	for scale := range 13 {
		for seed := range uint64(3) {
			r := newScrambler(scale, newSource(seed, setupStream))
			seen := make([]bool, 1<<scale)
			for v := range uint32(1 << scale) {
				w := r.apply(v)
				if w >= 1<<scale || seen[w] {
					t.Fatalf("scale %d, seed %d: node %d maps to %d, out of range or taken", scale, seed, v, w)
				}
				seen[w] = true
			}
		}
	}
	// The hubs of R-MAT, node 0 and nodes with one bit set, are spread out.
	r := newScrambler(20, newSource(1, setupStream))
	var low int
	for l := range 20 {
		if r.apply(1<<l) < 1<<10 {
			low++
		}
	}
	if low > 3 {
		t.Errorf("%d of the 20 one-bit nodes map below 2^10, want them spread over 2^20", low)
	}
}

func TestAliasTableExact(t *testing.T) {
	t.Parallel()
	quadrant := [4]float64{0.57, 0.19, 0.19, 0.05}
	for levels := 1; levels <= levelsPerDraw; levels++ {
		tab := newLevelTable(levels, quadrant)
		size := 1 << (2 * levels)
		// The probability the table gives each outcome: its own share of
		// its column, plus the rest of every column aliased to it.
		got := make([]float64, size)
		for k := range size {
			kept := float64(min(tab.keep[k], 1<<32)) / (1 << 32)
			got[k] += kept / float64(size)
			got[tab.alias[k]] += (1 - kept) / float64(size)
		}
		for k := range size {
			want := 1.0
			for l := range levels {
				want *= quadrant[2*(k>>(levels+l)&1)+k>>l&1]
			}
			if math.Abs(got[k]-want) > 1e-9 {
				t.Errorf("%d levels: outcome %d has probability %v, want %v", levels, k, got[k], want)
			}
		}
	}
}

func TestRMATSamplerLevels(t *testing.T) {
	t.Parallel()
	// Scale 6 uses one full table and a two-level one. At every level the
	// source bit is 1 with probability c+d, the destination bit with b+d,
	// and both with d.
	const scale, samples = 6, 200_000
	a, b, c, d := 0.5, 0.2, 0.1, 0.2
	s := newRMATSampler(scale, [4]float64{a, b, c, d})
	r := newSource(1, 0)
	var srcOnes, dstOnes, both [scale]float64
	for range samples {
		u, v := s.sample(r)
		if u >= 1<<scale || v >= 1<<scale {
			t.Fatalf("sample %d -> %d outside [0, %d)", u, v, 1<<scale)
		}
		for l := range scale {
			su, sv := float64(u>>l&1), float64(v>>l&1)
			srcOnes[l] += su / samples
			dstOnes[l] += sv / samples
			both[l] += su * sv / samples
		}
	}
	// Standard errors are below 0.0012; allow 5.
	for l := range scale {
		for _, q := range []struct {
			name      string
			got, want float64
		}{{"source", srcOnes[l], c + d}, {"destination", dstOnes[l], b + d}, {"both", both[l], d}} {
			if math.Abs(q.got-q.want) > 0.006 {
				t.Errorf("level %d: %s bit is 1 with frequency %.4f, want %.2f", l, q.name, q.got, q.want)
			}
		}
	}
}

// TestHugeEdgeCounts: an edge count that cannot be held is an error, not
// a makeslice panic or an out-of-memory kill.
func TestHugeEdgeCounts(t *testing.T) {
	if _, err := RMAT(10, 99999999999999, 0.57, 0.19, 0.19, 1); err == nil || !strings.Contains(err.Error(), "99999999999999 edges exceeds 2147483647") {
		t.Errorf("RMAT: got %v", err)
	}
	if _, err := Uniform(10, 3000000000, 1); err == nil || !strings.Contains(err.Error(), "3000000000 edges exceeds") {
		t.Errorf("Uniform: got %v", err)
	}
}
