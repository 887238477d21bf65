package linkpred

import (
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/generate"
)

// groupCases are the sampler configurations whose negatives the grouped
// draw must leave unchanged: every kind, corrupted side, Distinct, a small
// MaxTries (so that the enumeration fall-back runs on the dense rows) and k
// of 1 and 5.
func groupCases(t *testing.T, g *graph.Graph) map[string]Sampler {
	t.Helper()
	out := map[string]Sampler{}
	for _, mode := range []Corrupt{CorruptDst, CorruptSrc, CorruptEither} {
		for _, distinct := range []bool{false, true} {
			for _, k := range []int{1, 5} {
				opts := []Option{Exclude(g), ExcludeSelfLoops(), WithCorrupt(mode), MaxTries(2)}
				if distinct {
					opts = append(opts, Distinct())
				}
				for name, s := range samplers(t, g, k, opts...) {
					out[fmt.Sprintf("%s/%v/distinct=%v/k=%d", name, mode, distinct, k)] = s
				}
			}
		}
	}
	return out
}

// groupGraph is a small graph with a few dense rows (nodes 0..3 link to
// nearly every node), so that rejections and the fall-back happen.
func groupGraph(t *testing.T) *graph.Graph {
	t.Helper()
	g, err := generate.Uniform(300, 3000, 5)
	if err != nil {
		t.Fatal(err)
	}
	s, d := g.COO()
	s, d = slices.Clone(s), slices.Clone(d)
	for u := range int32(4) {
		for v := range int32(300) {
			if v%7 != 0 {
				s, d = append(s, u), append(d, v)
			}
		}
	}
	dense, err := graph.FromCOO(300, 300, s, d)
	if err != nil {
		t.Fatal(err)
	}
	return dense
}

func hashNegatives(ns, nd []int32) uint64 {
	h := fnv.New64a()
	for i := range ns {
		fmt.Fprintf(h, "%d,%d;", ns[i], nd[i])
	}
	return h.Sum64()
}

// TestNegativesGolden: the negatives of every configuration hash to the
// values the package drew before positives were drawn in groups (a change
// here changes every user's negatives for a seed).
func TestNegativesGolden(t *testing.T) {
	g := groupGraph(t)
	src, dst := g.COO()
	got := map[string]uint64{}
	for name, s := range groupCases(t, g) {
		ns, nd, err := s.Negatives(src, dst, 42)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got[name] = hashNegatives(ns, nd)
	}
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range got {
			if !yield(n) {
				return
			}
		}
	})
	for _, n := range names {
		want, ok := goldenNegatives[n]
		if !ok {
			t.Errorf("%q: %#x, // no golden value", n, got[n])
			continue
		}
		if got[n] != want {
			t.Errorf("%s: negatives hash to %#x, want %#x", n, got[n], want)
		}
	}
}

var goldenNegatives = map[string]uint64{
	"degree/dst/distinct=false/k=1":     0x708ce33f95ffe8a,
	"degree/dst/distinct=false/k=5":     0xe342dab997893f7c,
	"degree/dst/distinct=true/k=1":      0x708ce33f95ffe8a,
	"degree/dst/distinct=true/k=5":      0xb376b7b1189c0ff7,
	"degree/either/distinct=false/k=1":  0x120c42c4ce454cfd,
	"degree/either/distinct=false/k=5":  0x6a46ff5ab828a78c,
	"degree/either/distinct=true/k=1":   0x120c42c4ce454cfd,
	"degree/either/distinct=true/k=5":   0xcf04b93b0e5662f7,
	"degree/src/distinct=false/k=1":     0x43cb7855442e852,
	"degree/src/distinct=false/k=5":     0x462873fd5e24bfa8,
	"degree/src/distinct=true/k=1":      0x43cb7855442e852,
	"degree/src/distinct=true/k=5":      0x7cc60d6fcbb05d6f,
	"inbatch/dst/distinct=false/k=1":    0x9a9f38e3135407f9,
	"inbatch/dst/distinct=false/k=5":    0x6a3d3570b4c227b6,
	"inbatch/dst/distinct=true/k=1":     0x9a9f38e3135407f9,
	"inbatch/dst/distinct=true/k=5":     0x6250c83874c3541e,
	"inbatch/either/distinct=false/k=1": 0x549e32a4e1b99d8b,
	"inbatch/either/distinct=false/k=5": 0xa291ee181aa88ebf,
	"inbatch/either/distinct=true/k=1":  0x549e32a4e1b99d8b,
	"inbatch/either/distinct=true/k=5":  0x25db39d7e09616a2,
	"inbatch/src/distinct=false/k=1":    0x63633acb52ef8425,
	"inbatch/src/distinct=false/k=5":    0xf2e82f20a8c9ab3c,
	"inbatch/src/distinct=true/k=1":     0x63633acb52ef8425,
	"inbatch/src/distinct=true/k=5":     0x3944a47dc6fa2423,
	"uniform/dst/distinct=false/k=1":    0x4726e3c279fecce8,
	"uniform/dst/distinct=false/k=5":    0xbd9c092066e4574,
	"uniform/dst/distinct=true/k=1":     0x4726e3c279fecce8,
	"uniform/dst/distinct=true/k=5":     0x493f075f8a5d3e83,
	"uniform/either/distinct=false/k=1": 0x62a4c1b5514c3ad1,
	"uniform/either/distinct=false/k=5": 0x6398f6e79fd66e8b,
	"uniform/either/distinct=true/k=1":  0x62a4c1b5514c3ad1,
	"uniform/either/distinct=true/k=5":  0x8430a6269c3e7293,
	"uniform/src/distinct=false/k=1":    0x5673edbfebcab276,
	"uniform/src/distinct=false/k=5":    0x6dcd272b198e25e6,
	"uniform/src/distinct=true/k=1":     0x5673edbfebcab276,
	"uniform/src/distinct=true/k=5":     0x6a329421738f93e,
}

// TestGroupSizes: the negatives do not depend on how many positives are
// prepared together (1, 2, an odd size, the default, the largest, and more
// than the positives), nor on GOMAXPROCS.
func TestGroupSizes(t *testing.T) {
	g := groupGraph(t)
	src, dst := g.COO()
	src, dst = src[:700], dst[:700] // a few chunks of positives
	few := 3
	for name, s := range groupCases(t, g) {
		c := samplerCore(s)
		// With 3 positives, in-batch Distinct has too few candidates:
		// the error must not depend on the group either.
		want, wantErr := map[int][2][]int32{}, map[int]string{}
		for _, n := range []int{len(src), few} {
			c.group = 1
			ns, nd, err := s.Negatives(src[:n], dst[:n], 9)
			if err != nil {
				wantErr[n] = err.Error()
			}
			want[n] = [2][]int32{ns, nd}
		}
		if _, bad := wantErr[len(src)]; bad {
			t.Fatalf("%s: %s", name, wantErr[len(src)])
		}
		for _, size := range []int{2, 7, group, maxGroup} {
			for _, procs := range []int{1, 2} {
				for _, n := range []int{len(src), few} {
					c.group = size
					prev := runtime.GOMAXPROCS(procs)
					ns, nd, err := s.Negatives(src[:n], dst[:n], 9)
					runtime.GOMAXPROCS(prev)
					if err != nil || wantErr[n] != "" {
						if err == nil || err.Error() != wantErr[n] {
							t.Errorf("%s: %d positives in groups of %d: error %v, groups of 1 gave %q", name, n, size, err, wantErr[n])
						}
						continue
					}
					if !slices.Equal(ns, want[n][0]) || !slices.Equal(nd, want[n][1]) {
						t.Errorf("%s: %d positives in groups of %d at GOMAXPROCS %d differ from groups of 1", name, n, size, procs)
					}
				}
			}
		}
		c.group = group
	}
}

// samplerCore returns the core of a sampler of this package.
func samplerCore(s Sampler) *core {
	switch s := s.(type) {
	case *Uniform:
		return &s.c
	case *DegreeWeighted:
		return &s.c
	case *InBatch:
		return &s.c
	}
	panic(fmt.Sprintf("no core in %T", s))
}
