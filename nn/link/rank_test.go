package link_test

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gorgonia.org/tensor"

	"github.com/gnngo/gnn/metrics"
	"github.com/gnngo/gnn/nn/link"
)

// rankCase draws small-integer embeddings (so that many scores tie
// exactly), p positives and k negatives each over n nodes.
func rankCase(n, dim, p, k int, seed uint64) (h []float32, ps, pd, nd []int32) {
	rng := rand.New(rand.NewPCG(seed, 3))
	h = make([]float32, n*dim)
	for i := range h {
		h[i] = float32(rng.IntN(3) - 1)
	}
	ps, pd, nd = make([]int32, p), make([]int32, p), make([]int32, p*k)
	for i := range ps {
		ps[i], pd[i] = int32(rng.IntN(n)), int32(rng.IntN(n))
	}
	for i := range nd {
		nd[i] = int32(rng.IntN(n))
	}
	return
}

// TestRankDot checks RankDot against scoring every pair with ScoreDot and
// ranking the scores with metrics.Ranking.Add, on small tables (scored in
// order) and large ones (grouped by blocks of node IDs), widths that are
// and are not multiples of 8, batches of several chunks, with many exact
// ties; and that the ranks are the same at GOMAXPROCS 1 and 2.
func TestRankDot(t *testing.T) {
	for _, c := range []struct{ n, dim, p, k int }{
		// Tables under 512 KB are scored in order, larger ones grouped by
		// blocks of node IDs; chunks hold 512 positives.
		{7, 3, 5, 4},
		{1200, 64, 700, 20},
		{20_000, 9, 1300, 50},
		{5000, 64, 1100, 30},
	} {
		h, ps, pd, nd := rankCase(c.n, c.dim, c.p, c.k, uint64(c.n))
		pos := make([]float32, c.p)
		if err := link.ScoreDot(pos, h, c.dim, ps, pd); err != nil {
			t.Fatal(err)
		}
		src := make([]int32, len(nd))
		for i := range src {
			src[i] = ps[i/c.k]
		}
		neg := make([]float32, len(nd))
		if err := link.ScoreDot(neg, h, c.dim, src, nd); err != nil {
			t.Fatal(err)
		}
		var want metrics.Ranking
		if err := want.Add(widen(pos), widen(neg), c.k); err != nil {
			t.Fatal(err)
		}
		ties := 0
		for _, r := range want.Ranks() {
			if r != math.Trunc(r) {
				ties++
			}
		}
		var got [2]metrics.Ranking
		for i, procs := range []int{1, 2} {
			old := runtime.GOMAXPROCS(procs)
			err := link.RankDot(h, c.dim, ps, pd, nd, c.k, &got[i])
			runtime.GOMAXPROCS(old)
			if err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Equal(got[0].Ranks(), want.Ranks()) {
			t.Errorf("n=%d: RankDot's ranks differ from ranking every score (%d positives with half ranks)", c.n, ties)
		}
		if !slices.Equal(got[0].Ranks(), got[1].Ranks()) {
			t.Errorf("n=%d: ranks differ between GOMAXPROCS 1 and 2", c.n)
		}
		if ties == 0 {
			t.Errorf("n=%d: no ties drawn; the test proves less than it should", c.n)
		}
	}
}

// TestScoreDot checks ScoreDot against a loop in float64.
func TestScoreDot(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const n, dim, p = 50, 13, 200
	h := make([]float64, n*dim)
	for i := range h {
		h[i] = rng.NormFloat64()
	}
	src, dst := make([]int32, p), make([]int32, p)
	for i := range src {
		src[i], dst[i] = int32(rng.IntN(n)), int32(rng.IntN(n))
	}
	out := make([]float64, p)
	if err := link.ScoreDot(out, h, dim, src, dst); err != nil {
		t.Fatal(err)
	}
	for i := range out {
		want := dotRef(h[int(src[i])*dim:int(src[i]+1)*dim], h[int(dst[i])*dim:int(dst[i]+1)*dim])
		if math.Abs(out[i]-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("pair %d scores %v, want %v", i, out[i], want)
		}
	}
}

// TestRankDotMemory checks that RankDot allocates nothing per pair: with
// 2,000 positives, 500 negatives each and 64 features, a P*k x F tensor
// would be 256 MB and the P*k scores 4 MB; RankDot's scratch is two
// counts per positive and, per goroutine, at most 8 bytes per negative of a
// 512-positive chunk (when it groups them).
func TestRankDotMemory(t *testing.T) {
	const n, dim, p, k = 20_000, 64, 2000, 500
	h, ps, pd, nd := rankCase(n, dim, p, k, 1)
	var before, after runtime.MemStats
	var r metrics.Ranking
	run := func() {
		r.Reset()
		if err := link.RankDot(h, dim, ps, pd, nd, k, &r); err != nil {
			t.Fatal(err)
		}
	}
	run()
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	bytes := after.TotalAlloc - before.TotalAlloc
	allocs := testing.AllocsPerRun(2, run)
	t.Logf("%d bytes, %.0f allocations per RankDot call (P*k*F*4 = %d, P*k*4 = %d)", bytes, allocs, p*k*dim*4, p*k*4)
	if limit := uint64(runtime.GOMAXPROCS(0)*512*k*8 + p*16 + 1<<16); bytes > limit {
		t.Errorf("RankDot allocated %d bytes, more than its scratch (%d)", bytes, limit)
	}
}

// TestRankDotErrors checks that bad input is reported.
func TestRankDotErrors(t *testing.T) {
	h := make([]float32, 4*2)
	var r metrics.Ranking
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"nil ranking", link.RankDot(h, 2, []int32{0}, []int32{1}, []int32{2}, 1, nil), "metrics.Ranking"},
		{"dim", link.RankDot(h, 3, []int32{0}, []int32{1}, []int32{2}, 1, &r), "not rows of 3"},
		{"k", link.RankDot(h, 2, []int32{0}, []int32{1}, []int32{2}, 0, &r), "k = 0"},
		{"lengths", link.RankDot(h, 2, []int32{0}, []int32{1, 2}, []int32{2}, 1, &r), "1 positive sources but 2"},
		{"negatives", link.RankDot(h, 2, []int32{0}, []int32{1}, []int32{2}, 2, &r), "1 negatives for 1 positives with k = 2"},
		{"source", link.RankDot(h, 2, []int32{4}, []int32{1}, []int32{2}, 1, &r), "positive 0 has source 4"},
		{"negative", link.RankDot(h, 2, []int32{0, 1}, []int32{1, 1}, []int32{2, 1, -1, 0}, 2, &r), "negative 0 of positive 1 has destination -1"},
		{"NaN", link.RankDot([]float32{float32(math.NaN()), 0, 1, 1}, 2, []int32{0}, []int32{1}, []int32{1}, 1, &r), "scores NaN"},
		{"ScoreDot lengths", link.ScoreDot(make([]float32, 2), h, 2, []int32{0}, []int32{1}), "1 sources, 1 destinations and 2 outputs"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, c.err, c.want)
		}
	}
	if r.Len() != 0 {
		t.Errorf("failed calls added %d ranks", r.Len())
	}
}

func widen(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// TestValues checks RankDotValue and ScoreDotValue against RankDot and
// ScoreDot on the same table, in both dtypes, and their errors.
func TestValues(t *testing.T) {
	h, ps, pd, nd := rankCase(30, 8, 20, 5, 7)
	var want metrics.Ranking
	if err := link.RankDot(h, 8, ps, pd, nd, 5, &want); err != nil {
		t.Fatal(err)
	}
	h64 := widen(h)
	for _, v := range []*tensor.Dense{
		tensor.New(tensor.WithShape(30, 8), tensor.WithBacking(h)),
		tensor.New(tensor.WithShape(30, 8), tensor.WithBacking(h64)),
	} {
		var got metrics.Ranking
		if err := link.RankDotValue(v, ps, pd, nd, 5, &got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Ranks(), want.Ranks()) {
			t.Errorf("%v: RankDotValue's ranks differ from RankDot's", v.Dtype())
		}
		s, err := link.ScoreDotValue(v, ps, pd)
		if err != nil {
			t.Fatal(err)
		}
		for i := range s {
			w := dotRef(h64[int(ps[i])*8:int(ps[i]+1)*8], h64[int(pd[i])*8:int(pd[i]+1)*8])
			if s[i] != w {
				t.Errorf("%v: pair %d scores %v, want %v", v.Dtype(), i, s[i], w)
			}
		}
	}
	if err := link.RankDotValue(nil, ps, pd, nd, 5, &want); err == nil || !strings.Contains(err.Error(), "nil value") {
		t.Errorf("nil value: error %v", err)
	}
	ints := tensor.New(tensor.WithShape(2, 2), tensor.WithBacking([]int{1, 2, 3, 4}))
	if _, err := link.ScoreDotValue(ints, []int32{0}, []int32{1}); err == nil || !strings.Contains(err.Error(), "dtype") {
		t.Errorf("int value: error %v", err)
	}
}
