package graph

import (
	"cmp"
	"slices"
	"strings"
	"testing"
)

// pair is an edge's endpoints.
type pair struct{ u, v int32 }

func cmpPair(a, b pair) int { return cmp.Or(cmp.Compare(a.u, b.u), cmp.Compare(a.v, b.v)) }

func pairs(g *Graph) []pair {
	src, dst := g.COO()
	p := make([]pair, len(src))
	for e := range src {
		p[e] = pair{src[e], dst[e]}
	}
	return p
}

// transformInputs are the fixtures and their reverses.
func transformInputs(t *testing.T) map[string]*Graph {
	in := make(map[string]*Graph)
	for _, f := range fixtures() {
		g := f.graph(t)
		in[f.name] = g
		in[f.name+"/reverse"] = g.Reverse()
	}
	return in
}

func TestAddSelfLoops(t *testing.T) {
	for name, g := range transformInputs(t) {
		got, err := g.AddSelfLoops()
		if !g.Homogeneous() {
			if err == nil || !strings.Contains(err.Error(), "AddSelfLoops needs a homogeneous graph") {
				t.Errorf("%s: got error %v, want homogeneous error", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := pairs(g)
		for v := range g.NumSrc() {
			want = append(want, pair{int32(v), int32(v)})
		}
		if !slices.Equal(pairs(got), want) {
			t.Errorf("%s: got edges %v, want %v", name, pairs(got), want)
		}
		if got.NumSrc() != g.NumSrc() || got.NumDst() != g.NumDst() || got.ID() == g.ID() {
			t.Errorf("%s: got %v from %v", name, got, g)
		}
	}
}

func TestRemoveSelfLoops(t *testing.T) {
	for name, g := range transformInputs(t) {
		got, kept := g.RemoveSelfLoops()
		var want []pair
		var wantKept []int64
		for e, p := range pairs(g) {
			if p.u != p.v {
				want = append(want, p)
				wantKept = append(wantKept, int64(e))
			}
		}
		if !slices.Equal(pairs(got), want) || !slices.Equal(kept, wantKept) || kept == nil {
			t.Errorf("%s: got edges %v kept %v, want %v %v", name, pairs(got), kept, want, wantKept)
		}
		if got.NumSrc() != g.NumSrc() || got.NumDst() != g.NumDst() || got.ID() == g.ID() {
			t.Errorf("%s: got %v from %v", name, got, g)
		}
	}

	g := mustFromCOO(t, 3, 3, []int32{0, 1, 1, 2}, []int32{0, 2, 1, 0})
	if got, kept := g.RemoveSelfLoops(); !slices.Equal(pairs(got), []pair{{1, 2}, {2, 0}}) || !slices.Equal(kept, []int64{1, 3}) {
		t.Errorf("got %v kept %v, want [{1 2} {2 0}] [1 3]", pairs(got), kept)
	}
}

func TestToSimple(t *testing.T) {
	for name, g := range transformInputs(t) {
		got, counts, edgeMap := g.ToSimple()
		p := pairs(g)
		mult := make(map[pair]int64)
		for _, q := range p {
			mult[q]++
		}
		var want []pair
		for q := range mult {
			want = append(want, q)
		}
		slices.SortFunc(want, cmpPair)
		gp := pairs(got)
		if !slices.Equal(gp, want) {
			t.Errorf("%s: got edges %v, want %v", name, gp, want)
			continue
		}
		if got.NumSrc() != g.NumSrc() || got.NumDst() != g.NumDst() || got.ID() == g.ID() {
			t.Errorf("%s: got %v from %v", name, got, g)
		}
		if len(counts) != len(gp) || counts == nil {
			t.Errorf("%s: got %d counts for %d edges", name, len(counts), len(gp))
			continue
		}
		for i, q := range gp {
			if counts[i] != mult[q] {
				t.Errorf("%s: edge %d %v: got count %d, want %d", name, i, q, counts[i], mult[q])
			}
		}
		if len(edgeMap) != len(p) {
			t.Errorf("%s: got %d map entries, want %d", name, len(edgeMap), len(p))
			continue
		}
		for e, q := range p {
			if k := edgeMap[e]; k < 0 || int(k) >= len(gp) || gp[k] != q {
				t.Errorf("%s: edge %d %v maps to %d", name, e, q, k)
			}
		}
		// The CSR rows of the result are sorted by destination.
		csr := got.CSR()
		for u := range got.NumSrc() {
			lo, hi := csr.Row(u)
			if !slices.IsSorted(csr.Indices[lo:hi]) {
				t.Errorf("%s: CSR row %d not sorted: %v", name, u, csr.Indices[lo:hi])
			}
		}
	}

	g := mustFromCOO(t, 3, 3, []int32{2, 0, 2, 1, 0}, []int32{1, 1, 1, 1, 1})
	got, counts, edgeMap := g.ToSimple()
	if gp := pairs(got); !slices.Equal(gp, []pair{{0, 1}, {1, 1}, {2, 1}}) ||
		!slices.Equal(counts, []int64{2, 1, 2}) || !slices.Equal(edgeMap, []int64{2, 0, 2, 1, 0}) {
		t.Errorf("got %v counts %v map %v, want [{0 1} {1 1} {2 1}] [2 1 2] [2 0 2 1 0]", gp, counts, edgeMap)
	}
}

func TestToBidirected(t *testing.T) {
	for name, g := range transformInputs(t) {
		got, err := g.ToBidirected()
		if !g.Homogeneous() {
			if err == nil || !strings.Contains(err.Error(), "ToBidirected needs a homogeneous graph") {
				t.Errorf("%s: got error %v, want homogeneous error", name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		set := make(map[pair]bool)
		for _, q := range pairs(g) {
			set[q] = true
			set[pair{q.v, q.u}] = true
		}
		var want []pair
		for q := range set {
			want = append(want, q)
		}
		slices.SortFunc(want, cmpPair)
		if gp := pairs(got); !slices.Equal(gp, want) {
			t.Errorf("%s: got edges %v, want %v", name, gp, want)
		}
		if got.NumSrc() != g.NumSrc() || got.NumDst() != g.NumDst() || got.ID() == g.ID() {
			t.Errorf("%s: got %v from %v", name, got, g)
		}
	}

	g := mustFromCOO(t, 3, 3, []int32{0, 1, 1, 2, 0}, []int32{1, 0, 1, 1, 1})
	got, _ := g.ToBidirected()
	if gp := pairs(got); !slices.Equal(gp, []pair{{0, 1}, {1, 0}, {1, 1}, {1, 2}, {2, 1}}) {
		t.Errorf("got %v, want [{0 1} {1 0} {1 1} {1 2} {2 1}]", gp)
	}
}

// TestReorderEdges checks that the renumbered graph has the same edges,
// moved by perm, grouped by the order's node in old-ID order, and that the
// view built without sorting equals one built by compress.
func TestReorderEdges(t *testing.T) {
	for name, g := range transformInputs(t) {
		for _, order := range []EdgeOrder{ByDst, BySrc} {
			r, perm, err := g.ReorderEdges(order)
			if err != nil {
				t.Fatalf("%s/%v: %v", name, order, err)
			}
			if r.NumSrc() != g.NumSrc() || r.NumDst() != g.NumDst() || r.NumEdges() != g.NumEdges() {
				t.Fatalf("%s/%v: sizes changed", name, order)
			}
			old, got := pairs(g), pairs(r)
			seen := make([]bool, len(old))
			for i, p := range perm {
				if seen[p] {
					t.Fatalf("%s/%v: perm repeats edge %d", name, order, p)
				}
				seen[p] = true
				if got[i] != old[p] {
					t.Fatalf("%s/%v: new edge %d is %v, old edge %d was %v", name, order, i, got[i], p, old[p])
				}
			}
			for i := 1; i < len(got); i++ {
				a, b := got[i-1], got[i]
				ka, kb := a.v, b.v
				if order == BySrc {
					ka, kb = a.u, b.u
				}
				if ka > kb || (ka == kb && perm[i-1] > perm[i]) {
					t.Fatalf("%s/%v: edges %d and %d out of order", name, order, i-1, i)
				}
			}
			src, dst := r.COO()
			want, view := naiveCompress(r.NumDst(), dst, src), r.CSC()
			if order == BySrc {
				want, view = naiveCompress(r.NumSrc(), src, dst), r.CSR()
			}
			if d := diffCompressed(view, want); d != "" {
				t.Errorf("%s/%v: view: %s", name, order, d)
			}
			if !view.Ordered {
				t.Errorf("%s/%v: the view is not marked Ordered", name, order)
			}

		}
	}
	if _, _, err := fixtures()[0].graph(t).ReorderEdges(EdgeOrder(7)); err == nil || !strings.Contains(err.Error(), "EdgeOrder(7)") {
		t.Errorf("unknown order: error %v", err)
	}
}
