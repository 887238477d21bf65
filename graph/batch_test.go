package graph

import (
	"slices"
	"strings"
	"testing"
)

// batchInputs are the homogeneous fixtures, among them graphs with no nodes
// and with nodes but no edges, self-loops and parallel edges.
func batchInputs(t *testing.T) []*Graph {
	var gs []*Graph
	for _, f := range fixtures() {
		if f.numSrc == f.numDst {
			gs = append(gs, f.graph(t))
		}
	}
	return gs
}

// TestBatch checks the batch of every prefix and of a reversed order: edges
// in the graphs' order, nodes and edges shifted by the offsets, the sizes,
// the in-edge view of the batch restricted to each graph, Unbatch giving the
// graphs back, and the readout graph's layout.
func TestBatch(t *testing.T) {
	in := batchInputs(t)
	rev := slices.Clone(in)
	slices.Reverse(rev)
	for _, gs := range [][]*Graph{in[:1], in[:2], in, rev, {in[1], in[1], in[0]}} {
		b, err := Batch(gs)
		if err != nil {
			t.Fatal(err)
		}
		if b.NumGraphs() != len(gs) || !b.Homogeneous() {
			t.Fatalf("%v: %d graphs, homogeneous %v", b, b.NumGraphs(), b.Homogeneous())
		}
		var wantSrc, wantDst []int32
		var nn, ne []int64
		nodeOff := []int64{0}
		for _, g := range gs {
			s, d := g.COO()
			base := int32(nodeOff[len(nodeOff)-1])
			for e := range s {
				wantSrc = append(wantSrc, s[e]+base)
				wantDst = append(wantDst, d[e]+base)
			}
			nn = append(nn, int64(g.NumSrc()))
			ne = append(ne, int64(g.NumEdges()))
			nodeOff = append(nodeOff, nodeOff[len(nodeOff)-1]+int64(g.NumSrc()))
		}
		src, dst := b.COO()
		if !slices.Equal(src, wantSrc) || !slices.Equal(dst, wantDst) {
			t.Fatalf("%v: edges %v -> %v, want %v -> %v", b, src, dst, wantSrc, wantDst)
		}
		if !slices.Equal(b.BatchNumNodes(), nn) || !slices.Equal(b.BatchNumEdges(), ne) {
			t.Errorf("%v: sizes %v %v, want %v %v", b, b.BatchNumNodes(), b.BatchNumEdges(), nn, ne)
		}
		if !slices.Equal(b.NodeOffsets(), nodeOff) || b.EdgeOffsets()[0] != 0 || b.EdgeOffsets()[len(gs)] != int64(b.NumEdges()) {
			t.Errorf("%v: offsets %v %v", b, b.NodeOffsets(), b.EdgeOffsets())
		}
		if b.NumSrc() != int(nodeOff[len(gs)]) {
			t.Errorf("%v: %d nodes, want %d", b, b.NumSrc(), nodeOff[len(gs)])
		}
		// The batch's in-edges of node base+v are graph i's in-edges of
		// v, shifted, with edge IDs shifted.
		csc := b.CSC()
		for i, g := range gs {
			base, eb := nodeOff[i], b.EdgeOffsets()[i]
			gc := g.CSC()
			for v := range g.NumDst() {
				lo, hi := csc.Row(int(base) + v)
				glo, ghi := gc.Row(v)
				if hi-lo != ghi-glo {
					t.Fatalf("%v: node %d of graph %d has %d in-edges, want %d", b, v, i, hi-lo, ghi-glo)
				}
				for k := range hi - lo {
					if int64(csc.Indices[lo+k]) != int64(gc.Indices[glo+k])+base || int64(csc.EIDs[lo+k]) != int64(gc.EIDs[glo+k])+eb {
						t.Fatalf("%v: in-edge %d of node %d of graph %d differs", b, k, v, i)
					}
				}
			}
		}
		for i, u := range b.Unbatch() {
			s, d := u.COO()
			gs0, gd0 := gs[i].COO()
			if u.NumSrc() != gs[i].NumSrc() || u.NumDst() != gs[i].NumDst() || !slices.Equal(s, gs0) || !slices.Equal(d, gd0) {
				t.Errorf("%v: Unbatch graph %d = %v %v %v, want %v %v %v", b, i, u, s, d, gs[i], gs0, gd0)
			}
			if u.ID() == gs[i].ID() || u.ID() == b.ID() {
				t.Errorf("%v: Unbatch graph %d reuses an ID", b, i)
			}
		}
		checkReadout(t, b)
	}
}

// checkReadout checks that the readout graph maps node v to its graph by
// edge v, and that its in-edge view is the offsets over the identity.
func checkReadout(t *testing.T, b *Batched) {
	t.Helper()
	r := b.Readout()
	if r != b.Readout() {
		t.Errorf("%v: Readout returned two graphs", b)
	}
	if r.NumSrc() != b.NumSrc() || r.NumDst() != b.NumGraphs() || r.NumEdges() != b.NumSrc() {
		t.Fatalf("%v: readout %v", b, r)
	}
	src, dst := r.COO()
	off := b.NodeOffsets()
	for v := range src {
		if src[v] != int32(v) || int64(v) < off[dst[v]] || int64(v) >= off[dst[v]+1] {
			t.Fatalf("%v: readout edge %d is %d -> %d", b, v, src[v], dst[v])
		}
	}
	c := r.CSC()
	if !slices.Equal(c.Indptr, off) {
		t.Errorf("%v: readout indptr %v, want %v", b, c.Indptr, off)
	}
	for p := range c.Indices {
		if c.Indices[p] != int32(p) || c.EIDs[p] != int32(p) {
			t.Fatalf("%v: readout CSC position %d holds node %d edge %d", b, p, c.Indices[p], c.EIDs[p])
		}
	}
}

func TestBatchErrors(t *testing.T) {
	g := mustFromCOO(t, 2, 2, []int32{0}, []int32{1})
	bip := mustFromCOO(t, 2, 3, []int32{0}, []int32{2})
	for _, c := range []struct {
		name string
		in   []*Graph
		want string
	}{
		{"none", nil, "Batch of no graphs"},
		{"nil", []*Graph{g, nil}, "graph 1 is nil"},
		{"bipartite", []*Graph{g, g, bip}, "graph 2 is not homogeneous (2 source, 3 destination nodes)"},
		{"reverse-bipartite", []*Graph{bip.Reverse()}, "graph 0 is not homogeneous (3 source, 2 destination nodes)"},
	} {
		b, err := Batch(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, %v, want error containing %q", c.name, b, err, c.want)
		}
	}
}

// TestBatchShares checks that the batch keeps no slice of its inputs and
// the offsets it returns are its own.
func TestBatchShares(t *testing.T) {
	g := mustFromCOO(t, 3, 3, []int32{0, 1}, []int32{1, 2})
	b, err := Batch([]*Graph{g})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := b.COO()
	gs, _ := g.COO()
	if &s[0] == &gs[0] || b.ID() == g.ID() {
		t.Errorf("the batch of one graph shares its storage or ID")
	}
	if n := b.BatchNumNodes(); &n[0] == &b.NodeOffsets()[1] {
		t.Errorf("BatchNumNodes returned a shared slice")
	}
}
