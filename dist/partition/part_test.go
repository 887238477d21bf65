package partition

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/dataset"
	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/testkit/testgraphs"
)

// checkParts verifies that parts hold g exactly once under owner: every
// edge in the shard of its endpoints' ranks with the right local IDs, in
// edge order, and global degrees.
func checkParts(t *testing.T, g *graph.Graph, owner []int32, parts []*Part) {
	t.Helper()
	n := g.NumNodes()
	src, dst := g.COO()
	seen := make([]bool, g.NumEdges())
	nodes := 0
	in, out := g.InDegrees(), g.OutDegrees()
	for r, p := range parts {
		if p.Rank != r || p.Parts != len(parts) || p.NumGlobalNodes != n || p.NumGlobalEdges != int64(g.NumEdges()) {
			t.Fatalf("part %d: header %d/%d nodes %d edges %d", r, p.Rank, p.Parts, p.NumGlobalNodes, p.NumGlobalEdges)
		}
		if !slices.IsSorted(p.Nodes) {
			t.Fatalf("part %d: nodes not increasing", r)
		}
		for i, v := range p.Nodes {
			if owner[v] != int32(r) {
				t.Fatalf("part %d holds node %d owned by %d", r, v, owner[v])
			}
			if l, ok := p.LocalID(v); !ok || int(l) != i {
				t.Fatalf("part %d: LocalID(%d) = %d, %v; want %d", r, v, l, ok, i)
			}
			if int64(p.InDeg[i]) != in[v] || int64(p.OutDeg[i]) != out[v] {
				t.Fatalf("part %d node %d: degrees %d/%d, want %d/%d", r, v, p.InDeg[i], p.OutDeg[i], in[v], out[v])
			}
		}
		nodes += len(p.Nodes)
		if len(p.Shards) != len(parts) {
			t.Fatalf("part %d: %d shards", r, len(p.Shards))
		}
		for j, s := range p.Shards {
			if s.SrcRank != j || len(s.Src) != len(s.Dst) || len(s.Src) != len(s.EID) {
				t.Fatalf("part %d shard %d: malformed", r, j)
			}
			if !slices.IsSorted(s.EID) {
				t.Fatalf("part %d shard %d: edge IDs not increasing", r, j)
			}
			for k, e := range s.EID {
				if seen[e] {
					t.Fatalf("edge %d held twice", e)
				}
				seen[e] = true
				u, v := parts[j].Nodes[s.Src[k]], p.Nodes[s.Dst[k]]
				if int32(u) != src[e] || int32(v) != dst[e] {
					t.Fatalf("part %d shard %d: edge %d is %d->%d, graph has %d->%d", r, j, e, u, v, src[e], dst[e])
				}
			}
		}
	}
	if nodes != n {
		t.Fatalf("parts hold %d nodes of %d", nodes, n)
	}
	for e, ok := range seen {
		if !ok {
			t.Fatalf("edge %d is in no shard", e)
		}
	}
}

func TestSplitFixtures(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, f := range testgraphs.Fixtures(t) {
		if !f.G.Homogeneous() {
			continue
		}
		for _, parts := range []int{1, 2, 3, 5} {
			t.Run(fmt.Sprintf("%s/parts=%d", f.Name, parts), func(t *testing.T) {
				owner := make([]int32, f.G.NumNodes())
				for v := range owner {
					// Rank parts-1 owns nothing when parts > 1.
					owner[v] = int32(rng.IntN(max(parts-1, 1)))
				}
				p, err := Split(f.G, owner, parts)
				if err != nil {
					t.Fatal(err)
				}
				checkParts(t, f.G, owner, p)
				if parts > 1 && (p[parts-1].NumNodes() != 0 || p[parts-1].NumEdges() != 0) {
					t.Fatalf("the empty rank holds %d nodes", p[parts-1].NumNodes())
				}
			})
		}
	}
}

func TestSplitErrors(t *testing.T) {
	g := testgraphs.Must(t, 3, 3, []int32{0, 1}, []int32{1, 2})
	cases := []struct {
		g     *graph.Graph
		owner []int32
		parts int
		want  string
	}{
		{g, []int32{0, 0, 0}, 0, "0 parts; need at least 1"},
		{g, []int32{0, 0}, 2, "owner has 2 entries for 3 nodes"},
		{g, []int32{0, 2, 1}, 2, "node 1 has owner 2, outside [0, 2)"},
		{g, []int32{0, -1, 1}, 2, "node 1 has owner -1"},
		{testgraphs.Must(t, 2, 3, nil, nil), []int32{0, 0, 0}, 1, "homogeneous graph, got 2 source and 3 destination"},
		{nil, nil, 1, "nil graph"},
	}
	for _, c := range cases {
		_, err := Split(c.g, c.owner, c.parts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func plantedForTest(t *testing.T) *dataset.Dataset {
	t.Helper()
	cfg := dataset.DefaultPlantedConfig()
	cfg.Nodes, cfg.Features, cfg.Val, cfg.Test = 300, 6, 40, 60
	ds, err := dataset.PlantedPartition(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// sparsify returns f in CSR form.
func sparsify(f *dataset.Features) *dataset.Features {
	out := &dataset.Features{Rows: f.Rows, Cols: f.Cols, Indptr: []int64{0}, Values: []float32{}}
	for r := range f.Rows {
		for c := range f.Cols {
			if x := f.Dense[r*f.Cols+c]; x > 0 {
				out.Indices = append(out.Indices, int32(c))
				out.Values = append(out.Values, x)
			}
		}
		out.Indptr = append(out.Indptr, int64(len(out.Values)))
	}
	return out
}

func TestSplitDataset(t *testing.T) {
	ds := plantedForTest(t)
	dense := ds.Features.ToDense()
	for _, sparse := range []bool{false, true} {
		if sparse {
			ds.Features = sparsify(&dataset.Features{Rows: ds.Features.Rows, Cols: ds.Features.Cols, Dense: dense})
			dense = ds.Features.ToDense()
		}
		owner := make([]int32, ds.Graph.NumNodes())
		for v := range owner {
			owner[v] = int32(v*7%4) % 3
		}
		parts, err := SplitDataset(ds, owner, 3)
		if err != nil {
			t.Fatal(err)
		}
		checkParts(t, ds.Graph, owner, parts)
		var train, val, test []int32
		for _, p := range parts {
			if p.Name != ds.Name || p.NumClasses != ds.NumClasses || p.Features.IsSparse() != sparse {
				t.Fatalf("part %d: header %q %d sparse %v", p.Rank, p.Name, p.NumClasses, p.Features.IsSparse())
			}
			rows := p.Features.ToDense()
			for i, v := range p.Nodes {
				if p.Labels[i] != ds.Labels[v] {
					t.Fatalf("part %d node %d: label %d, want %d", p.Rank, v, p.Labels[i], ds.Labels[v])
				}
				if !slices.Equal(rows[i*p.Features.Cols:(i+1)*p.Features.Cols], dense[int(v)*ds.Features.Cols:(int(v)+1)*ds.Features.Cols]) {
					t.Fatalf("part %d node %d: feature row differs", p.Rank, v)
				}
			}
			for _, l := range p.Train {
				train = append(train, int32(p.Nodes[l]))
			}
			for _, l := range p.Val {
				val = append(val, int32(p.Nodes[l]))
			}
			for _, l := range p.Test {
				test = append(test, int32(p.Nodes[l]))
			}
			if !slices.IsSorted(p.Train) || !slices.IsSorted(p.Val) || !slices.IsSorted(p.Test) {
				t.Fatalf("part %d: split not increasing", p.Rank)
			}
		}
		for _, s := range [][2][]int32{{train, ds.Train}, {val, ds.Val}, {test, ds.Test}} {
			slices.Sort(s[0])
			if !slices.Equal(s[0], s[1]) {
				t.Fatalf("split nodes %v, want %v", s[0], s[1])
			}
		}
	}
}

func TestSplitDatasetErrors(t *testing.T) {
	ds := plantedForTest(t)
	owner := make([]int32, ds.Graph.NumNodes())
	bad := *ds
	bad.Labels = bad.Labels[:10]
	if _, err := SplitDataset(&bad, owner, 2); err == nil || !strings.Contains(err.Error(), "10 labels for 300 nodes") {
		t.Errorf("got %v", err)
	}
	bad = *ds
	bad.Test = []int32{5, 300}
	if _, err := SplitDataset(&bad, owner, 2); err == nil || !strings.Contains(err.Error(), "test node 300 (position 1) is outside [0, 300)") {
		t.Errorf("got %v", err)
	}
}
