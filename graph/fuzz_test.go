package graph

import (
	"cmp"
	"slices"
	"testing"
)

// triple is an edge with its ID.
type triple struct {
	u, v int32
	e    int64
}

func cmpTriple(a, b triple) int {
	return cmp.Or(cmp.Compare(a.u, b.u), cmp.Compare(a.v, b.v), cmp.Compare(a.e, b.e))
}

// FuzzFromCOO feeds FromCOO small, possibly invalid graphs: edges are byte
// pairs read as signed IDs, and an odd trailing byte gives lists of unequal
// length. FromCOO must either fail or give a graph whose CSR and CSC hold
// exactly the COO edges with their IDs, and from which COO can be rebuilt.
func FuzzFromCOO(f *testing.F) {
	f.Add(int8(0), int8(0), []byte{})
	f.Add(int8(3), int8(3), []byte{0, 1, 1, 2, 2, 0})
	f.Add(int8(2), int8(5), []byte{1, 4, 0, 4, 1, 4, 1, 0})
	f.Add(int8(4), int8(4), []byte{0, 0, 3, 3, 0, 0})
	f.Add(int8(-1), int8(2), []byte{})
	f.Add(int8(2), int8(2), []byte{0, 1, 1})
	f.Add(int8(2), int8(2), []byte{0, 2})
	f.Add(int8(2), int8(2), []byte{0xff, 0})
	f.Add(int8(1), int8(0), []byte{0, 0})
	f.Fuzz(func(t *testing.T, numSrc, numDst int8, edges []byte) {
		src := make([]int32, (len(edges)+1)/2)
		dst := make([]int32, len(edges)/2)
		for i, b := range edges {
			if i%2 == 0 {
				src[i/2] = int32(int8(b))
			} else {
				dst[i/2] = int32(int8(b))
			}
		}
		g, err := FromCOO(int(numSrc), int(numDst), slices.Clone(src), slices.Clone(dst))
		valid := numSrc >= 0 && numDst >= 0 && len(src) == len(dst)
		for e := range dst {
			valid = valid && src[e] >= 0 && src[e] < int32(numSrc) && dst[e] >= 0 && dst[e] < int32(numDst)
		}
		if valid != (err == nil) || (err == nil) != (g != nil) {
			t.Fatalf("FromCOO(%d, %d, %v, %v) = %v, %v; valid %v", numSrc, numDst, src, dst, g, err, valid)
		}
		if err != nil {
			return
		}

		want := make([]triple, len(src))
		for e := range src {
			want[e] = triple{src[e], dst[e], int64(e)}
		}
		// COO -> CSR and COO -> CSC keep the multiset of (src, dst, eid).
		fromCSR := triples(g.CSR(), false)
		fromCSC := triples(g.CSC(), true)
		slices.SortFunc(fromCSR, cmpTriple)
		slices.SortFunc(fromCSC, cmpTriple)
		sorted := slices.SortedFunc(slices.Values(want), cmpTriple)
		if !slices.Equal(fromCSR, sorted) || !slices.Equal(fromCSC, sorted) {
			t.Fatalf("got CSR edges %v, CSC edges %v, want %v", fromCSR, fromCSC, want)
		}

		// COO -> CSR -> CSC -> COO: index the CSR's edges by ID, compress
		// them by destination, and read the COO back from that CSC.
		csr := g.CSR()
		rs := make([]int32, len(src))
		rd := make([]int32, len(src))
		for u := range csr.NumRows() {
			lo, hi := csr.Row(u)
			for p := lo; p < hi; p++ {
				rs[csr.EIDs[p]], rd[csr.EIDs[p]] = int32(u), csr.Indices[p]
			}
		}
		csc := compress(int(numDst), rd, rs)
		if d := diffCompressed(csc, g.CSC()); d != "" {
			t.Fatalf("CSC rebuilt from CSR: %s", d)
		}
		back := make([]triple, len(src))
		for v := range csc.NumRows() {
			lo, hi := csc.Row(v)
			for p := lo; p < hi; p++ {
				e := csc.EIDs[p]
				back[e] = triple{csc.Indices[p], int32(v), int64(e)}
			}
		}
		if !slices.Equal(back, want) {
			t.Fatalf("COO -> CSR -> CSC -> COO gave %v, want %v", back, want)
		}
		checkRowOrder(t, "CSR", g.CSR())
		checkRowOrder(t, "CSC", g.CSC())
		if g.Reverse().CSR() != g.CSC() {
			t.Fatal("reverse CSR is not the CSC")
		}
	})
}

// triples lists a view's edges; byDst says rows are destinations.
func triples(c *Compressed, byDst bool) []triple {
	var out []triple
	for r := range c.NumRows() {
		lo, hi := c.Row(r)
		for p := lo; p < hi; p++ {
			t := triple{int32(r), c.Indices[p], int64(c.EIDs[p])}
			if byDst {
				t.u, t.v = t.v, t.u
			}
			out = append(out, t)
		}
	}
	return out
}
