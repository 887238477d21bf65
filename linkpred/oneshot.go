package linkpred

import (
	"fmt"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/seeded"
)

// NegativeEdges returns num distinct pairs (src[i], dst[i]) that are not
// edges of g, drawn uniformly from all such pairs: PyG's
// negative_sampling(edge_index, num_nodes, num_neg_samples), except that it
// returns exactly num pairs or an error, never fewer. The only option it
// takes is ExcludeSelfLoops, which also rules out the pairs (u, u) (PyG
// excludes them on non-bipartite graphs, so pass it for PyG's behaviour).
//
// The result depends only on (g, num, seed, options). When non-edges are
// plentiful (at least a quarter of all NumSrc*NumDst pairs, and at least
// twice num) pairs are drawn by rejection, about num draws; otherwise one
// pass over all pairs selects num of them (selection sampling) and shuffles
// them. It returns an error for a nil graph, num < 0, another option, or
// num greater than the number of non-edges.
func NegativeEdges(g *graph.Graph, num int, seed uint64, opts ...Option) (src, dst []int32, err error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, nil, err
	}
	if cfg.exclude != nil || cfg.distinct || cfg.corrupt != CorruptDst || cfg.powerSet || cfg.tries != DefaultMaxTries {
		return nil, nil, fmt.Errorf("linkpred: NegativeEdges takes only the ExcludeSelfLoops option")
	}
	if g == nil {
		return nil, nil, fmt.Errorf("linkpred: nil graph")
	}
	if num < 0 {
		return nil, nil, fmt.Errorf("linkpred: %d negative edges requested", num)
	}
	adj := sortedRows(g.CSR())
	ns, nd := int64(g.NumSrc()), int64(g.NumDst())
	var distinct, loops int64
	for u := range ns {
		row := adj.row(int32(u))
		for j, v := range row {
			if j == 0 || v != row[j-1] {
				distinct++
				if int64(v) == u {
					loops++
				}
			}
		}
	}
	total := ns * nd
	invalid := distinct
	if cfg.noSelfLoops {
		invalid += min(ns, nd) - loops
	}
	available := total - invalid
	if int64(num) > available {
		what := ""
		if cfg.noSelfLoops {
			what = " that are not self-loops"
		}
		return nil, nil, fmt.Errorf("linkpred: %d negative edges requested but %v has only %d non-edges%s", num, g, available, what)
	}
	src, dst = make([]int32, 0, num), make([]int32, 0, num)
	var s seeded.Stream
	s.Reset(seed, 0)
	valid := func(u, v int32) bool {
		return !(cfg.noSelfLoops && u == v) && !contains(adj.row(u), v)
	}
	if 4*available >= total && 2*int64(num) <= available {
		chosen := make(map[uint64]struct{}, num)
		for len(src) < num {
			u, v := int32(s.Below(uint64(ns))), int32(s.Below(uint64(nd)))
			if _, dup := chosen[pack(u, v)]; dup || !valid(u, v) {
				continue
			}
			chosen[pack(u, v)] = struct{}{}
			src, dst = append(src, u), append(dst, v)
		}
		return src, dst, nil
	}
	need, left := int64(num), available
	for u := int32(0); int64(u) < ns && need > 0; u++ {
		row := adj.row(u)
		for v := int32(0); int64(v) < nd && need > 0; v++ {
			for len(row) > 0 && row[0] < v {
				row = row[1:]
			}
			if (len(row) > 0 && row[0] == v) || (cfg.noSelfLoops && u == v) {
				continue
			}
			if int64(s.Below(uint64(left))) < need {
				src, dst = append(src, u), append(dst, v)
				need--
			}
			left--
		}
	}
	for i := len(src) - 1; i > 0; i-- {
		j := int(s.Below(uint64(i + 1)))
		src[i], src[j] = src[j], src[i]
		dst[i], dst[j] = dst[j], dst[i]
	}
	return src, dst, nil
}
