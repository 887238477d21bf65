package edgesoftmax

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/gnngo/gnn/graph"
)

// The streaming path runs on score arrays of at least streamMinBytes; these
// tests lower the threshold to reach it on small graphs. They toggle
// package variables, so they do not run in parallel with other tests.

// withStream makes every eligible call take the streaming path (on) or
// none (off) for the rest of the test.
func withStream(t *testing.T, on bool) {
	saved, savedMin := useStream, streamMinBytes
	useStream, streamMinBytes = on, 0
	t.Cleanup(func() { useStream, streamMinBytes = saved, savedMin })
}

// streamGraphs are unordered graphs on which the streaming path applies,
// with one chunk (mean in-degree below 2*streamChunkDegree) and with
// several (a hub of 3000 edges among twelve groups, some empty).
func streamGraphs(t *testing.T, rng *rand.Rand) []struct {
	name   string
	g      *graph.Graph
	chunks int
} {
	t.Helper()
	sizes := []int{0, 1, 2, 7, 33, 0, 3000, 1, 33, 7, 2, 0}
	list := []struct {
		name   string
		g      *graph.Graph
		chunks int
	}{
		{"random", randomGraph(t, rng, 200, 150, 4000), 1},
		{"groups", groupGraph(t, rng, 50, sizes), streamMaxChunks},
	}
	for _, tg := range list {
		for _, norm := range norms {
			c := groups(tg.g, norm)
			_, _, k, ok := streamPlan(tg.g, c, norm, 8)
			if !ok {
				t.Fatalf("%s/%v: the streaming path does not apply", tg.name, norm)
			}
			if norm == ByDst && k != tg.chunks {
				t.Fatalf("%s: %d chunks, want %d", tg.name, k, tg.chunks)
			}
		}
	}
	return list
}

// TestStream checks the streaming path against the float64 references and
// against the group kernels, in widths 2, 4 (the narrow kernels), 8, 16
// and 24, by destination and by
// source, with normal, large, masked and nearly equal scores. With one chunk
// both directions give the group kernels' bits (the sums are taken in the
// same order); with several, the forward agrees to float32 rounding and the
// backward to the rounding of its float64 sums.
func TestStream(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	withStream(t, true)
	rng := rand.New(rand.NewPCG(12, 12))
	for _, tg := range streamGraphs(t, rng) {
		for _, norm := range norms {
			for _, w := range []int{2, 4, 8, 16, 24} {
				for _, kind := range []string{"normal", "large", "masked", "tiny"} {
					name := fmt.Sprintf("%s/%v/width=%d/%s", tg.name, norm, w, kind)
					compareStream(t, name, tg.g, norm, w, accelScores(rng, tg.g.NumEdges()*w, kind), tg.chunks == 1)
				}
			}
		}
	}
}

// compareStream runs Forward and Backward on score with and without the
// streaming path and checks them against each other and the references.
func compareStream(t *testing.T, name string, g *graph.Graph, norm Norm, w int, score []float32, sameBits bool) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(len(score)), uint64(w)))
	ne := g.NumEdges()
	want := reference(g, norm, score, w)
	got, rows := nans[float32](ne*w), nans[float32](ne*w)
	Forward(got, g, norm, score, w)
	useStream = false
	Forward(rows, g, norm, score, w)
	useStream = true
	checkForward(t, name+" (streamed, by groups)", want, got, rows, score, sameBits)
	dy := scores[float32](rng, ne*w, 1)
	ds, dsRows := nans[float32](ne*w), nans[float32](ne*w)
	Backward(ds, g, norm, got, dy, w)
	useStream = false
	Backward(dsRows, g, norm, got, dy, w)
	useStream = true
	wantDs := composed(g, norm, got, dy, w)
	for i, wv := range wantDs {
		if math.IsNaN(wv) {
			if ds[i] == ds[i] {
				t.Fatalf("%s: backward element %d is %v, want NaN", name, i, ds[i])
			}
			continue
		}
		if sameBits && math.Float32bits(ds[i]) != math.Float32bits(dsRows[i]) {
			t.Fatalf("%s: backward element %d is %v streamed, %v by groups", name, i, ds[i], dsRows[i])
		}
		if !(math.Abs(float64(ds[i])-wv) <= 2e-6*max(1, math.Abs(wv))) || !(math.Abs(float64(ds[i]-dsRows[i])) <= 2e-6*max(1, math.Abs(wv))) {
			t.Fatalf("%s: backward element %d is %v streamed, %v by groups, want %v", name, i, ds[i], dsRows[i], wv)
		}
	}
}

// TestStreamSpecial checks the special scores on the streaming path, whose
// maxima ignore NaN and whose sums must still poison the group: NaN or +Inf
// in a column, or only -Inf, give NaN in that column of the group; -Inf
// elsewhere gives 0.
func TestStreamSpecial(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	withStream(t, true)
	// Edges 0 and 1 into destination 1, 2-4 into destination 0: not in
	// destination order, so the view is not Ordered.
	g := mustGraph(t, 3, 2, []int32{0, 1, 0, 1, 2}, []int32{1, 1, 0, 0, 0})
	inf := float32(math.Inf(1))
	nan := float32(math.NaN())
	d1 := [2][8]float32{
		{1, nan, inf, -inf, 1, 2, 3, 4},
		{nan, 1, 1, -inf, 2, 3, 4, 5},
	}
	for _, w := range []int{16, 4, 2} {
		testStreamSpecial(t, g, d1, w)
	}
}

func testStreamSpecial(t *testing.T, g *graph.Graph, d1 [2][8]float32, w int) {
	inf := float32(math.Inf(1))
	score := make([]float32, 5*w)
	for h := range w {
		score[0*w+h], score[1*w+h] = d1[0][h%8], d1[1][h%8]
		score[2*w+h], score[3*w+h], score[4*w+h] = -inf, 0, 0
	}
	if _, _, _, ok := streamPlan(g, g.CSC(), ByDst, w); !ok {
		t.Fatal("the streaming path does not apply")
	}
	got := make([]float32, len(score))
	Forward(got, g, ByDst, score, w)
	for h := range w {
		if got[2*w+h] != 0 || got[3*w+h] != 0.5 || got[4*w+h] != 0.5 {
			t.Errorf("width %d: column %d into destination 0: %v, %v, %v, want 0, 0.5, 0.5", w, h, got[2*w+h], got[3*w+h], got[4*w+h])
		}
		a, b := got[h], got[w+h]
		if wantNaN := h%8 < 4; wantNaN != (a != a && b != b) {
			t.Errorf("width %d: column %d into destination 1: %v, %v", w, h, a, b)
		}
		if h%8 >= 4 {
			want := 1 / (1 + math.E)
			if math.Abs(float64(a)-want) > 1e-7 || math.Abs(float64(b)-(1-want)) > 1e-7 {
				t.Errorf("width %d: column %d into destination 1: %v, %v, want %v, %v", w, h, a, b, want, 1-want)
			}
		}
	}
}

// TestStreamDeterministic checks that the streaming path gives the same
// bits on one, two and three goroutines, with several chunks, and that
// in-place calls (out = score, dScore = dy) give the same bits too.
func TestStreamDeterministic(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	withStream(t, true)
	rng := rand.New(rand.NewPCG(13, 13))
	g := randomGraph(t, rng, 500, 300, 300*streamChunkDegree*streamMaxChunks*2)
	for _, w := range []int{8, 2} {
		testStreamDeterministic(t, rng, g, w)
	}
}

func testStreamDeterministic(t *testing.T, rng *rand.Rand, g *graph.Graph, w int) {
	if _, _, k, ok := streamPlan(g, g.CSC(), ByDst, w); !ok || k != streamMaxChunks {
		t.Fatalf("streaming: %v with %d chunks, want %d", ok, k, streamMaxChunks)
	}
	score := scores[float32](rng, g.NumEdges()*w, 4)
	dy := scores[float32](rng, g.NumEdges()*w, 1)
	run := func(procs int) (y, ds []float32) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		y, ds = make([]float32, len(score)), make([]float32, len(score))
		Forward(y, g, ByDst, score, w)
		Backward(ds, g, ByDst, y, dy, w)
		return y, ds
	}
	y1, d1 := run(1)
	for _, procs := range []int{2, 3} {
		y, d := run(procs)
		for i := range y1 {
			if math.Float32bits(y1[i]) != math.Float32bits(y[i]) || math.Float32bits(d1[i]) != math.Float32bits(d[i]) {
				t.Fatalf("width %d: element %d differs between 1 and %d goroutines", w, i, procs)
			}
		}
	}
	inPlace := append([]float32{}, score...)
	Forward(inPlace, g, ByDst, inPlace, w)
	dd := append([]float32{}, dy...)
	Backward(dd, g, ByDst, y1, dd, w)
	for i := range y1 {
		if math.Float32bits(inPlace[i]) != math.Float32bits(y1[i]) || math.Float32bits(dd[i]) != math.Float32bits(d1[i]) {
			t.Fatalf("width %d, in place: element %d differs", w, i)
		}
	}
}

// TestStreamPlan checks when the streaming path applies: not on views in
// edge-ID order, widths that are not 2, 4 or a multiple of 8, float64, tables
// larger than streamMaxTable, small score arrays, or graphs with fewer
// edges than groups.
func TestStreamPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	g := randomGraph(t, rng, 200, 150, 4000)
	sorted, _, err := g.ReorderEdges(graph.ByDst)
	if err != nil {
		t.Fatal(err)
	}
	sparse2 := mustGraph(t, 3, 2, []int32{2, 0}, []int32{1, 0})
	sparse := mustGraph(t, 3, 3, []int32{2, 0}, []int32{1, 0})
	withStream(t, true)
	saved := streamMaxTable
	t.Cleanup(func() { streamMaxTable = saved })
	for _, c := range []struct {
		name  string
		g     *graph.Graph
		w     int
		table int
		want  bool
	}{
		{"random", g, 8, saved, useAVX2},
		{"width 12", g, 12, saved, false},
		{"width 2", g, 2, saved, useAVX2},
		{"width 4", g, 4, saved, useAVX2},
		{"width 6", g, 6, saved, false},
		{"ordered", sorted, 8, saved, false},
		{"table", g, 8, 150*8 - 1, false},
		{"fewer edges than groups", sparse, 8, saved, false},
		{"as many edges as groups", sparse2, 8, saved, useAVX2},
	} {
		streamMaxTable = c.table
		if _, _, _, ok := streamPlan(c.g, c.g.CSC(), ByDst, c.w); ok != c.want {
			t.Errorf("%s: streams %v, want %v", c.name, ok, c.want)
		}
	}
	streamMaxTable = saved
	ne := g.NumEdges()
	if forwardStream(make([]float64, ne*8), g, g.CSC(), ByDst, make([]float64, ne*8), 8) {
		t.Error("float64 streams")
	}
	streamMinBytes = ne*8*4 + 1
	if _, _, _, ok := streamPlan(g, g.CSC(), ByDst, 8); ok {
		t.Error("a score array below streamMinBytes streams")
	}
}

// TestStreamAttentionBackward checks AttentionBackward's streaming path
// (eight, four and two heads) against its group kernel (and so, through TestAttentionAccel, the
// references): the same bits with one chunk, the rounding of the float64
// sums with several; slopes below, at and above 1, and scores whose sum is
// exactly 0 (the LeakyReLU's kink, which takes the slope).
func TestStreamAttentionBackward(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 kernels on this machine or build")
	}
	withStream(t, true)
	for _, w := range []int{8, 4, 2} {
		testStreamAttentionBackward(t, w)
	}
}

func testStreamAttentionBackward(t *testing.T, w int) {
	rng := rand.New(rand.NewPCG(15, 15))
	for _, tg := range streamGraphs(t, rng) {
		el, er := nodeScores[float32](rng, tg.g, w)
		src, dst := tg.g.COO()
		for i := range 5 { // a few edges whose score sum is 0
			u, v := src[i*7], dst[i*7]
			copy(el[int(u)*w:int(u)*w+w], er[int(v)*w:int(v)*w+w])
			for h := range w {
				el[int(u)*w+h] = -el[int(u)*w+h]
			}
		}
		ne := tg.g.NumEdges()
		for _, slope := range []float64{0.2, 1, 1.5} {
			name := fmt.Sprintf("%s/width=%d/slope=%v", tg.name, w, slope)
			y := make([]float32, ne*w)
			Attention(y, tg.g, el, er, min(slope, 1), w)
			dy := scores[float32](rng, ne*w, 1)
			got, want := nans[float32](ne*w), nans[float32](ne*w)
			AttentionBackward(got, tg.g, el, er, slope, y, dy, w)
			useStream = false
			AttentionBackward(want, tg.g, el, er, slope, y, dy, w)
			useStream = true
			for i, wv := range want {
				if tg.chunks == 1 && math.Float32bits(got[i]) != math.Float32bits(wv) {
					t.Fatalf("%s: element %d is %v streamed, %v by groups", name, i, got[i], wv)
				}
				if !(math.Abs(float64(got[i]-wv)) <= 2e-6*max(1, math.Abs(float64(wv)))) {
					t.Fatalf("%s: element %d is %v streamed, %v by groups", name, i, got[i], wv)
				}
			}
			inPlace := append([]float32{}, dy...)
			AttentionBackward(inPlace, tg.g, el, er, slope, y, inPlace, w)
			for i := range got {
				if math.Float32bits(inPlace[i]) != math.Float32bits(got[i]) {
					t.Fatalf("%s: in place, element %d is %v, want %v", name, i, inPlace[i], got[i])
				}
			}
			for _, procs := range []int{1, 3} {
				again := make([]float32, ne*w)
				func() {
					defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
					AttentionBackward(again, tg.g, el, er, slope, y, dy, w)
				}()
				for i := range got {
					if math.Float32bits(again[i]) != math.Float32bits(got[i]) {
						t.Fatalf("%s: element %d differs on %d goroutines", name, i, procs)
					}
				}
			}
		}
	}
}
