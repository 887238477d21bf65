package mp

import (
	"fmt"
	"math/bits"
	"slices"

	"gorgonia.org/gorgonia"

	"github.com/gnngo/gnn/graph"
)

// Batching says how a user-defined reduce function is batched. The zero
// value is DGL's degree bucketing: one call per distinct in-degree d, on
// every node of in-degree d with a (nodes, d, features...) mailbox. It is
// exact but makes one call per distinct degree, which on graphs with high
// degree variance (power laws) means many small calls.
//
// With Pad set, nodes are bucketed by ranges of in-degree instead and each
// bucket's mailboxes are padded to the largest in-degree in it with Value:
// fewer, larger calls, at the cost of padding. Choose a Value the reducer
// ignores (0 for a sum, -Inf for a max, 1 for a product), or use
// NodeBatch.InDegrees.
type Batching struct {
	Pad   bool
	Value float64 // padding of missing messages
	// Bounds are the largest in-degrees of the ranges, strictly
	// increasing: range i holds in-degrees in (Bounds[i-1], Bounds[i]],
	// and one more range holds the in-degrees above the last bound. Nil
	// means powers of two: 1, 2, 3-4, 5-8, ...
	Bounds []int
}

// SetBatching sets how user-defined reduce functions are batched. It
// returns an error, and changes nothing, when the bounds are not positive
// and strictly increasing.
func (f *Frame) SetBatching(b Batching) error {
	for i, d := range b.Bounds {
		if d < 1 || (i > 0 && d <= b.Bounds[i-1]) {
			return fmt.Errorf("mp: SetBatching: bounds %v are not positive and strictly increasing", b.Bounds)
		}
	}
	b.Bounds = append([]int(nil), b.Bounds...)
	f.batching = b
	return nil
}

// Batching returns the batching set by SetBatching.
func (f *Frame) Batching() Batching {
	b := f.batching
	b.Bounds = append([]int(nil), b.Bounds...)
	return b
}

// bucket is a set of destination nodes reduced in one call.
type bucket struct {
	nodes   []int32 // compute destinations, increasing
	degrees []int
	degree  int // mailbox length
}

// buckets groups the destinations of g with in-edges, in increasing order
// of degree (range) and of node ID within a bucket.
func (b Batching) buckets(g *graph.Graph) []bucket {
	csc := g.CSC()
	key := func(d int) int { return d }
	if b.Pad {
		key = func(d int) int {
			if b.Bounds == nil {
				return bits.Len(uint(d - 1))
			}
			i, _ := slices.BinarySearch(b.Bounds, d)
			return i
		}
	}
	byKey := map[int]*bucket{}
	var keys []int
	for v := range g.NumDst() {
		d := csc.Degree(v)
		if d == 0 {
			continue
		}
		k := key(d)
		bk, ok := byKey[k]
		if !ok {
			bk = &bucket{}
			byKey[k] = bk
			keys = append(keys, k)
		}
		bk.nodes = append(bk.nodes, int32(v))
		bk.degrees = append(bk.degrees, d)
		bk.degree = max(bk.degree, d)
	}
	slices.Sort(keys)
	out := make([]bucket, len(keys))
	for i, k := range keys {
		out[i] = *byKey[k]
	}
	return out
}

// mailIndex returns the compute edge IDs of the bucket's mailboxes, row by
// row, -1 where a row is padded.
func (bk *bucket) mailIndex(g *graph.Graph) *index {
	csc := g.CSC()
	rows := make([]int64, 0, len(bk.nodes)*bk.degree)
	for _, v := range bk.nodes {
		lo, hi := csc.Row(int(v))
		rows = appendWide(rows, csc.EIDs[lo:hi])
		for range bk.degree - int(hi-lo) {
			rows = append(rows, -1)
		}
	}
	return newIndex(rows, true)
}

// reduceUDF runs a user-defined reduce function bucket by bucket over the
// messages msgs (one row per compute edge) and reassembles its results in
// destination order; destinations without in-edges get the initial value.
func (c *compute) reduceUDF(red NodeFunc, msgs Fields) (Fields, error) {
	bks := c.f.batching.buckets(c.g)
	var names []string
	parts := map[string][]*gorgonia.Node{}
	at := make([]*index, len(bks))
	var first *bucket
	groups := map[string]*rowGroup{}
	for i := range bks {
		bk := &bks[i]
		batch := &NodeBatch{
			c: c, nodes: bk.nodes, degree: bk.degree, degrees: bk.degrees,
			mail: msgs, mailIdx: bk.mailIndex(c.g), pad: c.f.batching.Value, groups: groups,
		}
		out, err := red(batch)
		if err != nil {
			return nil, fmt.Errorf("reduce function on %s: %w", c.describe(bk), err)
		}
		if err := checkRows("the reduce function's result on "+c.describe(bk), out, len(bk.nodes), "node of the bucket"); err != nil {
			return nil, err
		}
		got := sortedNames(out)
		if first == nil {
			first, names = bk, got
		} else if !slices.Equal(got, names) {
			return nil, fmt.Errorf("the reduce function returned fields %v on %s but %v on %s", names, c.describe(first), got, c.describe(bk))
		}
		for _, name := range names {
			x, ref := out[name], parts[name]
			if len(ref) > 0 {
				if r := ref[0]; !slices.Equal(feature(x), feature(r)) || x.Dtype() != r.Dtype() {
					return nil, fmt.Errorf("the reduce function returned field %q with feature shape %v (%v) on %s but %v (%v) on %s",
						name, feature(r), r.Dtype(), c.describe(first), feature(x), x.Dtype(), c.describe(bk))
				}
			}
			parts[name] = append(ref, x)
		}
		at[i] = newIndex(widen32(bk.nodes), true)
	}
	res := Fields{}
	for _, name := range names {
		x, err := assemble(c.numDst, nil, parts[name], at, c.f.initial)
		if err != nil {
			return nil, err
		}
		res[name] = x
	}
	return res, nil
}

// describe names a bucket in error messages, with the frame's node IDs.
func (c *compute) describe(bk *bucket) string {
	nodes := fmt.Sprintf("the %d nodes", len(bk.nodes))
	if len(bk.nodes) == 1 {
		nodes = fmt.Sprintf("node %d", c.frameDst(bk.nodes[0]))
	}
	if lo := slices.Min(bk.degrees); lo != bk.degree {
		return fmt.Sprintf("%s of in-degree %d to %d", nodes, lo, bk.degree)
	}
	return fmt.Sprintf("%s of in-degree %d", nodes, bk.degree)
}
