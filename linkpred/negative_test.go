package linkpred

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
)

func edgeSet(g *graph.Graph) map[uint64]bool {
	s, d := g.COO()
	set := make(map[uint64]bool, len(s))
	for e := range s {
		set[pack(s[e], d[e])] = true
	}
	return set
}

// samplers builds every sampler kind over g with opts.
func samplers(t *testing.T, g *graph.Graph, k int, opts ...Option) map[string]Sampler {
	t.Helper()
	u, err := NewUniform(g, k, opts...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDegreeWeighted(g, k, opts...)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewInBatch(k, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Sampler{"uniform": u, "degree": d, "inbatch": b}
}

// TestNegativesExclusion: with exclusion on, no negative is an edge or a
// self-loop, and each negative keeps the endpoint its mode keeps.
func TestNegativesExclusion(t *testing.T) {
	t.Parallel()
	g, err := generate.Uniform(300, 6000, 1)
	if err != nil {
		t.Fatal(err)
	}
	edges := edgeSet(g)
	src, dst := g.COO()
	for _, mode := range []Corrupt{CorruptDst, CorruptSrc, CorruptEither} {
		for _, distinct := range []bool{false, true} {
			opts := []Option{Exclude(g), ExcludeSelfLoops(), WithCorrupt(mode)}
			if distinct {
				opts = append(opts, Distinct())
			}
			for name, s := range samplers(t, g, 7, opts...) {
				name := fmt.Sprintf("%s/%v/distinct=%v", name, mode, distinct)
				ns, nd, err := s.Negatives(src, dst, 9)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(ns) != 7*len(src) || len(nd) != len(ns) {
					t.Fatalf("%s: %d negatives for %d positives", name, len(ns), len(src))
				}
				for j := range ns {
					i := j / 7
					if edges[pack(ns[j], nd[j])] || ns[j] == nd[j] {
						t.Fatalf("%s: negative %d of positive %d is %d -> %d, an edge or a self-loop", name, j, i, ns[j], nd[j])
					}
					keepSrc, keepDst := ns[j] == src[i], nd[j] == dst[i]
					if (mode == CorruptDst && !keepSrc) || (mode == CorruptSrc && !keepDst) || !(keepSrc || keepDst) {
						t.Fatalf("%s: negative %d -> %d of positive %d -> %d keeps neither endpoint its mode keeps", name, ns[j], nd[j], src[i], dst[i])
					}
					if distinct {
						for l := i * 7; l < j; l++ {
							if ns[l] == ns[j] && nd[l] == nd[j] {
								t.Fatalf("%s: positive %d repeats negative %d -> %d", name, i, ns[j], nd[j])
							}
						}
					}
				}
			}
		}
	}
}

// chiSquare returns the statistic of counts against expected frequencies
// (probabilities summing to 1) and its degrees of freedom.
func chiSquare(counts []int, prob []float64) (stat float64, df int) {
	total := 0
	for _, c := range counts {
		total += c
	}
	for i, c := range counts {
		if prob[i] == 0 {
			if c != 0 {
				return math.Inf(1), 0
			}
			continue
		}
		e := prob[i] * float64(total)
		stat += (float64(c) - e) * (float64(c) - e) / e
		df++
	}
	return stat, df - 1
}

// generous is a chi-square threshold well above the df's mean (df) plus
// eight standard deviations (sqrt(2 df)), so a correct sampler passes with
// any seed while a biased one (a node lost or drawn twice as often) fails.
func generous(df int) float64 { return float64(df) + 8*math.Sqrt(2*float64(df)) }

// sampleFrom draws n negatives for the positive (u, v) repeated and counts
// the corrupted endpoints.
func sampleFrom(t *testing.T, s Sampler, u, v int32, n, nodes int, side int) []int {
	t.Helper()
	src, dst := make([]int32, n), make([]int32, n)
	for i := range src {
		src[i], dst[i] = u, v
	}
	ns, nd, err := s.Negatives(src, dst, 12345)
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, nodes)
	for j := range ns {
		if side == sideDst {
			counts[nd[j]]++
		} else {
			counts[ns[j]]++
		}
	}
	return counts
}

// TestUniformChiSquare: negatives are uniform over the valid destinations
// (or sources), by rejection and by the enumeration fall-back alike.
func TestUniformChiSquare(t *testing.T) {
	t.Parallel()
	const n = 30
	// Node 0 points at 1, 3, 5, 7 (sparse row: rejection) and node 1 at
	// all but 0, 2, 4 (dense row: mostly the fall-back with MaxTries(1)).
	var src, dst []int32
	for _, v := range []int32{1, 3, 5, 7} {
		src, dst = append(src, 0), append(dst, v)
	}
	for v := int32(0); v < n; v++ {
		if v != 0 && v != 2 && v != 4 {
			src, dst = append(src, 1), append(dst, v)
		}
	}
	g := mustCOO(t, n, n, src, dst)
	edges := edgeSet(g)
	for _, c := range []struct {
		u, v  int32
		side  int
		opts  []Option
		valid func(x int32) bool
	}{
		{0, 1, sideDst, []Option{Exclude(g), ExcludeSelfLoops()}, func(x int32) bool { return x != 0 && !edges[pack(0, x)] }},
		{1, 5, sideDst, []Option{Exclude(g), MaxTries(1)}, func(x int32) bool { return !edges[pack(1, x)] }},
		{1, 5, sideDst, []Option{}, func(x int32) bool { return true }},
		{0, 7, sideSrc, []Option{Exclude(g), WithCorrupt(CorruptSrc), MaxTries(2)}, func(x int32) bool { return !edges[pack(x, 7)] }},
	} {
		s, err := NewUniform(g, 16, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		counts := sampleFrom(t, s, c.u, c.v, 4000, n, c.side)
		prob := make([]float64, n)
		m := 0
		for x := range int32(n) {
			if c.valid(x) {
				m++
			}
		}
		for x := range int32(n) {
			if c.valid(x) {
				prob[x] = 1 / float64(m)
			}
		}
		stat, df := chiSquare(counts, prob)
		if stat > generous(df) {
			t.Errorf("(%d, %d) side %d: chi-square %.1f on %d df exceeds %.1f: counts %v", c.u, c.v, c.side, stat, df, generous(df), counts)
		}
	}
}

// TestDegreeWeightedFrequencies: destinations are drawn with probability
// proportional to in-degree^power among the valid ones.
func TestDegreeWeightedFrequencies(t *testing.T) {
	t.Parallel()
	const n = 12
	// Node v has in-degree v (node 0 none), from sources chosen at random.
	rng := rand.New(rand.NewPCG(4, 4))
	var src, dst []int32
	for v := range int32(n) {
		for range v {
			src, dst = append(src, int32(rng.IntN(n))), append(dst, v)
		}
	}
	g := mustCOO(t, n, n, src, dst)
	edges := edgeSet(g)
	for _, c := range []struct {
		power float64
		u     int32
		opts  []Option
	}{
		{0.75, 3, nil},
		{1, 3, nil},
		{0, 3, nil},
		{0.75, 3, []Option{Exclude(g), MaxTries(1)}},
		{0.75, 5, []Option{Exclude(g), ExcludeSelfLoops()}},
	} {
		s, err := NewDegreeWeighted(g, 20, append(c.opts, Power(c.power))...)
		if err != nil {
			t.Fatal(err)
		}
		excl := len(c.opts) > 0
		counts := sampleFrom(t, s, c.u, 0, 4000, n, sideDst)
		prob := make([]float64, n)
		var sum float64
		for v := range int32(n) {
			if v == 0 || (excl && (edges[pack(c.u, v)] || v == c.u)) {
				continue
			}
			prob[v] = math.Pow(float64(v), c.power)
			sum += prob[v]
		}
		for v := range prob {
			prob[v] /= sum
		}
		stat, df := chiSquare(counts, prob)
		if stat > generous(df) {
			t.Errorf("power %v, opts %d: chi-square %.1f on %d df exceeds %.1f: counts %v, want %v", c.power, len(c.opts), stat, df, generous(df), counts, prob)
		}
	}
	// Corrupting sources weights by out-degree: the reversed graph's
	// sources have the in-degrees above.
	s, err := NewDegreeWeighted(g.Reverse(), 20, WithCorrupt(CorruptSrc))
	if err != nil {
		t.Fatal(err)
	}
	counts := sampleFrom(t, s, 0, 3, 4000, n, sideSrc)
	prob := make([]float64, n)
	var sum float64
	for v := 1; v < n; v++ {
		prob[v] = math.Pow(float64(v), 0.75)
		sum += prob[v]
	}
	for v := range prob {
		prob[v] /= sum
	}
	if stat, df := chiSquare(counts, prob); stat > generous(df) {
		t.Errorf("sources by out-degree: chi-square %.1f on %d df: counts %v", stat, df, counts)
	}
}

// TestNegativesDeterministic: the same inputs and seed give the same
// negatives at GOMAXPROCS 1 and 2; another seed gives others.
func TestNegativesDeterministic(t *testing.T) {
	g, err := generate.Uniform(2000, 30000, 2)
	if err != nil {
		t.Fatal(err)
	}
	src, dst := g.COO()
	run := func(procs int) map[string][2][]int32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out := map[string][2][]int32{}
		for name, s := range samplers(t, g, 5, Exclude(g), ExcludeSelfLoops(), WithCorrupt(CorruptEither), Distinct(), MaxTries(2)) {
			ns, nd, err := s.Negatives(src, dst, 77)
			if err != nil {
				t.Fatal(err)
			}
			out[name] = [2][]int32{ns, nd}
		}
		return out
	}
	one, two := run(1), run(2)
	for name, a := range one {
		b := two[name]
		if !slices.Equal(a[0], b[0]) || !slices.Equal(a[1], b[1]) {
			t.Errorf("%s: GOMAXPROCS 1 and 2 give different negatives", name)
		}
	}
	u, _ := NewUniform(g, 5)
	_, a, _ := u.Negatives(src, dst, 1)
	_, b, _ := u.Negatives(src, dst, 2)
	_, c, _ := u.Negatives(src, dst, 1)
	if slices.Equal(a, b) || !slices.Equal(a, c) {
		t.Error("seeds 1 and 2 agree, or seed 1 disagrees with itself")
	}
}

// TestDenseFallback: on a complete graph the only valid negative of a
// source is itself; with self-loops excluded there is none, an error; and
// with Distinct, k above the complement's size is an error while k equal to
// it draws the whole complement.
func TestDenseFallback(t *testing.T) {
	t.Parallel()
	g := generate.Complete(6)
	u, err := NewUniform(g, 4, Exclude(g))
	if err != nil {
		t.Fatal(err)
	}
	ns, nd, err := u.Negatives([]int32{2, 5}, []int32{3, 0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ns, []int32{2, 2, 2, 2, 5, 5, 5, 5}) || !slices.Equal(ns, nd) {
		t.Errorf("complete graph: negatives %v -> %v, want only self-loops", ns, nd)
	}
	u, _ = NewUniform(g, 4, Exclude(g), ExcludeSelfLoops())
	if _, _, err := u.Negatives([]int32{2, 5}, []int32{3, 0}, 1); err == nil || !strings.Contains(err.Error(), "positive 0 (2 -> 3), negative 0: no valid negative destination: each of the 6 candidates is excluded") {
		t.Errorf("no valid negative: err = %v", err)
	}
	u, _ = NewUniform(g, 2, Exclude(g), Distinct())
	if _, _, err := u.Negatives([]int32{2}, []int32{3}, 1); err == nil || !strings.Contains(err.Error(), "after 1 negatives: fewer than k = 2 exist (Distinct)") {
		t.Errorf("too few distinct: err = %v", err)
	}
	// Complete(40) less the edges 7 -> {3, 9, 20}: exactly 4 negatives
	// (with the self-loop) exist for source 7.
	full := generate.Complete(40)
	fs, fd := full.COO()
	var ks, kd []int32
	for e := range fs {
		if fs[e] == 7 && (fd[e] == 3 || fd[e] == 9 || fd[e] == 20) {
			continue
		}
		ks, kd = append(ks, fs[e]), append(kd, fd[e])
	}
	h := mustCOO(t, 40, 40, ks, kd)
	for _, deg := range []bool{false, true} {
		var s Sampler
		if deg {
			s, err = NewDegreeWeighted(h, 4, Exclude(h), Distinct())
		} else {
			s, err = NewUniform(h, 4, Exclude(h), Distinct())
		}
		if err != nil {
			t.Fatal(err)
		}
		ns, nd, err := s.Negatives([]int32{7, 7}, []int32{1, 2}, 3)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			got := slices.Sorted(slices.Values(nd[4*i : 4*i+4]))
			if !slices.Equal(got, []int32{3, 7, 9, 20}) || slices.ContainsFunc(ns, func(x int32) bool { return x != 7 }) {
				t.Errorf("degree=%v positive %d: negatives %v -> %v, want 7 -> {3, 7, 9, 20}", deg, i, ns[4*i:4*i+4], nd[4*i:4*i+4])
			}
		}
	}
}

// TestInBatch: negatives take the other positives' destinations, all of
// them with k = n-1 and Distinct.
func TestInBatch(t *testing.T) {
	t.Parallel()
	src := []int32{0, 1, 2, 3, 4}
	dst := []int32{10, 11, 12, 13, 14}
	b, err := NewInBatch(4, Distinct())
	if err != nil {
		t.Fatal(err)
	}
	ns, nd, err := b.Negatives(src, dst, 5)
	if err != nil {
		t.Fatal(err)
	}
	for i := range src {
		want := slices.Delete(slices.Clone(dst), i, i+1)
		if got := slices.Sorted(slices.Values(nd[4*i : 4*i+4])); !slices.Equal(got, want) {
			t.Errorf("positive %d: negative destinations %v, want %v", i, got, want)
		}
		for _, s := range ns[4*i : 4*i+4] {
			if s != src[i] {
				t.Errorf("positive %d: negative source %d", i, s)
			}
		}
	}
	b, _ = NewInBatch(2, WithCorrupt(CorruptSrc))
	ns, nd, _ = b.Negatives(src, dst, 5)
	for j := range ns {
		if i := j / 2; nd[j] != dst[i] || ns[j] == src[i] || !slices.Contains(src, ns[j]) {
			t.Errorf("corrupt src: negative %d -> %d of positive %d", ns[j], nd[j], i)
		}
	}
	b, _ = NewInBatch(5, Distinct())
	if _, _, err := b.Negatives(src, dst, 5); err == nil || !strings.Contains(err.Error(), "fewer than k = 5") {
		t.Errorf("k > n-1 distinct: err = %v", err)
	}
}

func TestSamplerErrors(t *testing.T) {
	t.Parallel()
	g := generate.Cycle(5)
	bad := func(what string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to contain %q", what, err, want)
		}
	}
	_, err := NewUniform(g, 0)
	bad("k=0", err, "k = 0 negatives per positive")
	_, err = NewDegreeWeighted(g, -1)
	bad("k=-1", err, "k = -1")
	_, err = NewInBatch(0)
	bad("inbatch k=0", err, "k = 0")
	_, err = NewUniform(nil, 1)
	bad("nil graph", err, "nil graph")
	_, err = NewUniform(generate.Empty(0), 1)
	bad("no nodes", err, "no destination node")
	_, err = NewUniform(generate.CompleteBipartite(0, 3), 1, WithCorrupt(CorruptSrc))
	bad("no sources", err, "no source node")
	_, err = NewDegreeWeighted(generate.Empty(4), 1)
	bad("no edges", err, "need a graph with edges")
	_, err = NewUniform(g, 1, Power(1))
	bad("power on uniform", err, "Power applies to DegreeWeighted")
	_, err = NewInBatch(1, Power(1))
	bad("power on inbatch", err, "Power applies to DegreeWeighted")
	_, err = NewDegreeWeighted(g, 1, Power(-0.5))
	bad("negative power", err, "degree power -0.5")
	_, err = NewDegreeWeighted(g, 1, Power(math.Inf(1)))
	bad("infinite power", err, "degree power +Inf")
	_, err = NewUniform(g, 1, MaxTries(0))
	bad("MaxTries(0)", err, "MaxTries(0)")
	_, err = NewUniform(g, 1, WithCorrupt(Corrupt(7)))
	bad("bad mode", err, "unknown corruption mode Corrupt(7)")
	_, err = NewUniform(g, 1, Exclude(generate.Cycle(6)))
	bad("exclusion size", err, "exclusion graph has 6 source and 6 destination nodes, the sampler's 5 and 5")

	u, _ := NewUniform(g, 2, Exclude(g))
	_, _, err = u.Negatives([]int32{0, 1}, []int32{1}, 0)
	bad("lengths", err, "2 positive sources but 1 destinations")
	_, _, err = u.Negatives([]int32{0, 9}, []int32{1, 1}, 0)
	bad("src range", err, "positive 1 has source 9 but the graph has 5 source nodes")
	_, _, err = u.Negatives([]int32{0, 1, 2}, []int32{1, 2, -3}, 0)
	bad("dst range", err, "positive 2 has destination -3 but the graph has 5 destination nodes")
	b, _ := NewInBatch(1)
	_, _, err = b.Negatives([]int32{0}, []int32{1}, 0)
	bad("batch of one", err, "at least 2 positives")
	_, _, err = b.Negatives([]int32{0, -1}, []int32{1, 2}, 0)
	bad("inbatch negative id", err, "positive 1 (-1 -> 2) has a negative node ID")
	b, _ = NewInBatch(1, Exclude(g))
	_, _, err = b.Negatives([]int32{0, 1}, []int32{1, 5}, 0)
	bad("inbatch range", err, "positive 1 has destination 5 but the graph has 5 destination nodes")
	// The lowest failing positive is reported whatever the chunking.
	c := generate.Complete(3)
	u, _ = NewUniform(c, 1, Exclude(c), ExcludeSelfLoops())
	big := make([]int32, 3000)
	_, _, err = u.Negatives(big, big, 0)
	bad("first failing positive", err, "positive 0 (0 -> 0)")

	// Empty input is no error.
	ns, nd, err := u.Negatives(nil, nil, 0)
	if err != nil || len(ns) != 0 || len(nd) != 0 {
		t.Errorf("no positives: %v %v %v", ns, nd, err)
	}
}

// TestDistinctManyNegatives: above scanDistinct negatives per positive,
// duplicates are found by a set; in every mode the k pairs stay distinct
// and valid, down to a row whose valid candidates are exactly k.
func TestDistinctManyNegatives(t *testing.T) {
	t.Parallel()
	const n, k = 60, 40
	// Node 0 points at 1..19: with self-loops excluded, exactly 40 valid
	// destinations remain.
	var src, dst []int32
	for v := int32(1); v < 20; v++ {
		src, dst = append(src, 0), append(dst, v)
	}
	src, dst = append(src, 5, 7, 9), append(dst, 6, 8, 10)
	g := mustCOO(t, n, n, src, dst)
	edges := edgeSet(g)
	for _, mode := range []Corrupt{CorruptDst, CorruptSrc, CorruptEither} {
		for name, s := range samplers(t, g, k, Exclude(g), ExcludeSelfLoops(), Distinct(), WithCorrupt(mode)) {
			if name != "uniform" {
				// A batch of 22 has too few others for k = 40, and
				// node 0's only positive-degree destinations are its
				// neighbours.
				continue
			}
			ns, nd, err := s.Negatives(src, dst, 4)
			if err != nil {
				t.Fatalf("%s/%v: %v", name, mode, err)
			}
			for i := range src {
				seen := map[uint64]bool{}
				for j := i * k; j < (i+1)*k; j++ {
					p := pack(ns[j], nd[j])
					if seen[p] || edges[p] || ns[j] == nd[j] {
						t.Fatalf("%s/%v: positive %d: negative %d -> %d repeated or invalid", name, mode, i, ns[j], nd[j])
					}
					seen[p] = true
				}
			}
		}
	}
	u, _ := NewUniform(g, k+1, Exclude(g), ExcludeSelfLoops(), Distinct())
	if _, _, err := u.Negatives([]int32{0}, []int32{1}, 4); err == nil || !strings.Contains(err.Error(), "after 40 negatives: fewer than k = 41 exist") {
		t.Errorf("k = 41 > 40 valid: err = %v", err)
	}
}
