package linkpred

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/graph/hetero"
)

// shop is a small heterograph: users buy items (with the reverse relation
// listed in another order, and a parallel purchase), users follow users.
func shop(t *testing.T, rng *rand.Rand) *hetero.Graph {
	t.Helper()
	const users, items, m = 6, 9, 40
	var bs, bd []int32
	for range m {
		bs, bd = append(bs, int32(rng.IntN(users))), append(bd, int32(rng.IntN(items)))
	}
	bs, bd = append(bs, bs[0]), append(bd, bd[0]) // a parallel edge
	perm := rng.Perm(len(bs))
	rs, rd := make([]int32, len(bs)), make([]int32, len(bs))
	for i, p := range perm {
		rs[i], rd[i] = bd[p], bs[p]
	}
	h, err := hetero.New(map[string]int{"user": users, "item": items}, map[hetero.EdgeType]*graph.Graph{
		{Src: "user", Rel: "buys", Dst: "item"}:      mustCOO(t, users, items, bs, bd),
		{Src: "item", Rel: "bought-by", Dst: "user"}: mustCOO(t, items, users, rs, rd),
		{Src: "user", Rel: "follows", Dst: "user"}:   mustCOO(t, users, users, []int32{0, 1, 2}, []int32{1, 2, 3}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestSplitRelation(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	for trial := range 10 {
		h := shop(t, rng)
		cfg := SplitConfig{Val: 0.1, Test: 0.2, DisjointTrain: 0.25 * float64(trial%2), Seed: uint64(trial)}
		s, err := SplitRelation(h, "buys", "bought-by", cfg)
		if err != nil {
			t.Fatal(err)
		}
		buys, _ := h.Relation(hetero.EdgeType{Src: "user", Rel: "buys", Dst: "item"})
		rev, _ := h.Relation(hetero.EdgeType{Src: "item", Rel: "bought-by", Dst: "user"})
		follows, _ := h.Relation(hetero.EdgeType{Src: "user", Rel: "follows", Dst: "user"})
		// The relation's own split is SplitEdges's.
		want, err := SplitEdges(buys, cfg)
		if err != nil {
			t.Fatal(err)
		}
		checkSplit(t, "buys", buys, cfg, want)
		rs, rd := rev.COO()
		for i, p := range []*HeteroPart{&s.Train, &s.Val, &s.Test} {
			w := []*Part{&want.Train, &want.Val, &want.Test}[i]
			if !slices.Equal(p.EIDs, w.EIDs) || !slices.Equal(p.GraphEIDs, w.GraphEIDs) {
				t.Fatalf("part %d: relation split differs from SplitEdges's", i)
			}
			if p.Rel.Rel != "buys" || p.Reverse.Rel != "bought-by" {
				t.Fatalf("part %d: types %v, %v", i, p.Rel, p.Reverse)
			}
			// The reverse relation holds exactly the reverses of the
			// message-passing edges.
			g, _ := p.Hetero.Relation(p.Rel)
			r, _ := p.Hetero.Relation(p.Reverse)
			gs, gd := g.COO()
			qs, qd := r.COO()
			if !symmetric(append(slices.Clone(gs), qs...), append(slices.Clone(gd), qd...)) || len(qs) != len(gs) {
				t.Errorf("part %d: reverse message-passing edges are not the forward ones reversed", i)
			}
			for j, e := range p.ReverseGraphEIDs {
				if qs[j] != rs[e] || qd[j] != rd[e] {
					t.Fatalf("part %d: reverse message edge %d does not match parent reverse edge %d", i, j, e)
				}
			}
			// Each supervision pair's reverse edge is in the parent and
			// in no message-passing graph of this part.
			inRev := map[int64]bool{}
			for _, e := range p.ReverseGraphEIDs {
				inRev[e] = true
			}
			for j, e := range p.ReverseRelEIDs {
				if rs[e] != p.Dst[j] || rd[e] != p.Src[j] {
					t.Fatalf("part %d: pair %d (%d->%d) has reverse edge %d (%d->%d)", i, j, p.Src[j], p.Dst[j], e, rs[e], rd[e])
				}
				if i > 0 && inRev[e] {
					t.Errorf("part %d: reverse of supervision pair %d passes messages", i, j)
				}
			}
			// Other relations are untouched.
			f, _ := p.Hetero.Relation(hetero.EdgeType{Src: "user", Rel: "follows", Dst: "user"})
			if f != follows {
				t.Errorf("part %d: follows was changed", i)
			}
		}
	}
	// Without a reverse relation, the other relations stay as they are.
	h := shop(t, rng)
	s, err := SplitRelation(h, "buys", "", SplitConfig{Val: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	if s.Val.ReverseRelEIDs != nil || s.Val.ReverseGraphEIDs != nil || s.Val.Reverse != (hetero.EdgeType{}) {
		t.Error("no reverse named, but reverse data returned")
	}
	orig, _ := h.Relation(hetero.EdgeType{Src: "item", Rel: "bought-by", Dst: "user"})
	if r, _ := s.Val.Hetero.Relation(hetero.EdgeType{Src: "item", Rel: "bought-by", Dst: "user"}); r != orig {
		t.Error("bought-by changed although not named as the reverse")
	}
}

func TestSplitRelationErrors(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	h := shop(t, rng)
	u := func(s, d []int32) *graph.Graph { return mustCOO(t, 2, 3, s, d) }
	r := func(s, d []int32) *graph.Graph { return mustCOO(t, 3, 2, s, d) }
	unpaired, err := hetero.New(map[string]int{"a": 2, "b": 3}, map[hetero.EdgeType]*graph.Graph{
		{Src: "a", Rel: "x", Dst: "b"}:  u([]int32{0, 1, 1}, []int32{2, 0, 1}),
		{Src: "b", Rel: "rx", Dst: "a"}: r([]int32{2, 1}, []int32{0, 1}),
		{Src: "b", Rel: "ry", Dst: "a"}: r([]int32{2, 1, 0, 0}, []int32{0, 1, 1, 0}),
		{Src: "a", Rel: "z", Dst: "b"}:  u(nil, nil),
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		h        *hetero.Graph
		rel, rev string
		cfg      SplitConfig
		want     string
	}{
		{h, "sells", "", SplitConfig{}, "relation to split"},
		{h, "buys", "sold-to", SplitConfig{}, "reverse relation"},
		{h, "buys", "buys", SplitConfig{}, "named as its own reverse"},
		{h, "buys", "follows", SplitConfig{}, `must run from "item" to "user"`},
		{h, "buys", "", SplitConfig{Val: 1}, "Val ratio 1"},
		{h, "buys", "", SplitConfig{Undirected: true}, "needs a homogeneous graph"},
		{unpaired, "x", "rx", SplitConfig{}, "edge 1 (1 -> 0) of relation (a, x, b) has no reverse edge 0 -> 1"},
		{unpaired, "x", "ry", SplitConfig{}, "edge 3 (0 -> 0) of reverse relation (b, ry, a) has no forward edge 0 -> 0"},
		{unpaired, "z", "", SplitConfig{}, "no edges"},
	} {
		if _, err := SplitRelation(c.h, c.rel, c.rev, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s/%s %+v: err = %v, want it to contain %q", c.rel, c.rev, c.cfg, err, c.want)
		}
	}
}
