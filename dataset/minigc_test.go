package dataset

import (
	"slices"
	"strings"
	"testing"
)

// TestMiniGC checks the structure of every class (node count, degrees,
// edge count), that graphs are symmetric, simple, loop-free and sorted,
// the balance of the classes and the split.
func TestMiniGC(t *testing.T) {
	cfg := DefaultMiniGCConfig()
	cfg.Graphs, cfg.Val, cfg.Test = 400, 50, 70
	ds, err := MiniGC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Name != "minigc" || len(ds.Graphs) != 400 || ds.NumClasses != 8 || !slices.Equal(ds.ClassNames, MiniGCClasses) {
		t.Fatalf("%s: %d graphs, %d classes %v", ds.Name, len(ds.Graphs), ds.NumClasses, ds.ClassNames)
	}
	if ds.NodeLabels != nil || ds.Features != nil {
		t.Errorf("MiniGC has node labels or features")
	}
	counts := make([]int, 8)
	for i, g := range ds.Graphs {
		c := ds.Labels[i]
		counts[c]++
		n, e := g.NumSrc(), g.NumEdges()/2
		src, dst := g.COO()
		pairs := map[[2]int32]bool{}
		for k := range src {
			if k > 0 && (src[k] < src[k-1] || src[k] == src[k-1] && dst[k] <= dst[k-1]) {
				t.Fatalf("graph %d: edges not in increasing (source, destination) order, or repeated", i)
			}
			if src[k] == dst[k] {
				t.Fatalf("graph %d: self-loop on %d", i, src[k])
			}
			pairs[[2]int32{src[k], dst[k]}] = true
		}
		for p := range pairs {
			if !pairs[[2]int32{p[1], p[0]}] {
				t.Fatalf("graph %d: edge %v has no reverse", i, p)
			}
		}
		deg := g.InDegrees()
		degs := map[int64]int{}
		for _, d := range deg {
			degs[d]++
		}
		ok := true
		switch MiniGCClasses[c] {
		case "cycle":
			ok = degs[2] == n && e == n
		case "star":
			ok = deg[0] == int64(n-1) && degs[1] == n-1
		case "wheel":
			ok = deg[0] == int64(n-1) && degs[3] == n-1 && e == 2*(n-1)
		case "lollipop":
			// A clique of m nodes and a path of p = n - m: m(m-1)/2 + p edges.
			m := n - degs[1] - degs[2]
			ok = degs[1] == 1 && e == m*(m-1)/2+(n-m) && n-m >= 1 && n-m <= 10
		case "hypercube":
			ok = (n == 8 && degs[3] == 8 || n == 16 && degs[4] == 16)
		case "grid":
			ok = degs[2] == 4 && n >= 4
		case "clique":
			ok = degs[int64(n-1)] == n && e == n*(n-1)/2
		case "circular ladder":
			ok = degs[3] == n && n%2 == 0 && e == 3*n/2
		}
		if !ok || n < 8 || n > 20 {
			t.Errorf("graph %d (%s): %d nodes, %d edges, degrees %v", i, MiniGCClasses[c], n, e, degs)
		}
	}
	for c, k := range counts {
		if k != 50 {
			t.Errorf("class %d has %d graphs, want 50", c, k)
		}
	}
	if len(ds.Val) != 50 || len(ds.Test) != 70 || len(ds.Train) != 280 {
		t.Errorf("split %d/%d/%d", len(ds.Train), len(ds.Val), len(ds.Test))
	}
	again, err := MiniGC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ds.Graphs {
		a, _ := ds.Graphs[i].COO()
		b, _ := again.Graphs[i].COO()
		if !slices.Equal(a, b) {
			t.Fatalf("graph %d differs between two runs", i)
		}
	}
	if !slices.Equal(ds.Test, again.Test) {
		t.Errorf("the split differs between two runs")
	}
}

func TestMiniGCErrors(t *testing.T) {
	for _, c := range []struct {
		change func(*MiniGCConfig)
		want   string
	}{
		{func(c *MiniGCConfig) { c.Graphs = 0 }, "0 graphs"},
		{func(c *MiniGCConfig) { c.MinNodes = 9 }, "node counts [9, 20]"},
		{func(c *MiniGCConfig) { c.MaxNodes = 5 }, "node counts [10, 5]"},
		{func(c *MiniGCConfig) { c.MaxNodes = 1001 }, "node counts [10, 1001]"},
		{func(c *MiniGCConfig) { c.Val = 900 }, "cannot split 1000 graphs into 900 validation, 200 test"},
		{func(c *MiniGCConfig) { c.Test = -1 }, "cannot split"},
	} {
		cfg := DefaultMiniGCConfig()
		c.change(&cfg)
		if _, err := MiniGC(cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", cfg, err, c.want)
		}
	}
}

// TestSplitRandom checks that the split covers every graph once, sorted,
// depends on the seed only, and that a bad split changes nothing.
func TestSplitRandom(t *testing.T) {
	ds, err := MiniGC(MiniGCConfig{Graphs: 30, MinNodes: 10, MaxNodes: 10, Val: 5, Test: 6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	all := slices.Concat(ds.Train, ds.Val, ds.Test)
	slices.Sort(all)
	for i, g := range all {
		if int(g) != i {
			t.Fatalf("split %v %v %v does not cover the graphs once", ds.Train, ds.Val, ds.Test)
		}
	}
	for _, s := range [][]int32{ds.Train, ds.Val, ds.Test} {
		if !slices.IsSorted(s) {
			t.Errorf("%v is not sorted", s)
		}
	}
	before := slices.Clone(ds.Test)
	if err := ds.SplitRandom(10, 20, 1); err == nil || !slices.Equal(ds.Test, before) {
		t.Errorf("a split leaving no training graph: error %v, test set %v (was %v)", err, ds.Test, before)
	}
	if err := ds.SplitRandom(5, 6, 4); err != nil || slices.Equal(ds.Test, before) {
		t.Errorf("another seed: error %v, same test set %v", err, ds.Test)
	}
}
