package sampling_test

import (
	"testing"

	"github.com/gnngo/gnn/sampling"
)

// FuzzToBlock builds frontiers from arbitrary bytes and checks that ToBlock
// never panics, and that an accepted frontier gives a block whose
// destinations are the seeds, listed first among distinct sources, and
// whose every edge maps back to its frontier entry.
func FuzzToBlock(f *testing.F) {
	f.Add(uint8(10), []byte{7, 2}, []byte{3, 2}, []byte{5, 2, 5, 9, 7})
	f.Add(uint8(3), []byte{0, 0}, []byte{0, 0}, []byte{})
	f.Add(uint8(4), []byte{1}, []byte{9}, []byte{4})
	f.Fuzz(func(t *testing.T, n uint8, seeds, degrees, nbrs []byte) {
		fr := &sampling.Frontier{NumNodes: int(n), Indptr: []int64{0}}
		for i, s := range seeds {
			fr.Seeds = append(fr.Seeds, int32(s)-1) // -1 is out of range
			d := int64(0)
			if i < len(degrees) {
				d = int64(degrees[i]) % 8
			}
			fr.Indptr = append(fr.Indptr, fr.Indptr[i]+d)
		}
		for k, u := range nbrs {
			fr.Neighbors = append(fr.Neighbors, int32(u))
			fr.EdgeIDs = append(fr.EdgeIDs, int64(k))
		}
		b, err := sampling.ToBlock(fr)
		if err != nil {
			return
		}
		if b.NumDst() != len(fr.Seeds) || b.NumSrc() != len(b.SrcNodes) || b.NumEdges() != len(fr.Neighbors) {
			t.Fatalf("block %v for %d seeds, %d sources listed, %d edges", b.Graph, len(fr.Seeds), len(b.SrcNodes), len(fr.Neighbors))
		}
		seen := map[int32]bool{}
		for i, v := range b.SrcNodes {
			if seen[v] || i < len(fr.Seeds) && v != fr.Seeds[i] {
				t.Fatalf("sources %v for seeds %v", b.SrcNodes, fr.Seeds)
			}
			seen[v] = true
		}
		src, dst := b.COO()
		for i := range fr.Seeds {
			for k := fr.Indptr[i]; k < fr.Indptr[i+1]; k++ {
				if b.SrcNodes[src[k]] != fr.Neighbors[k] || int(dst[k]) != i || b.EdgeIDs[k] != fr.EdgeIDs[k] {
					t.Fatalf("block edge %d: %d -> %d, want %d -> seed position %d", k, b.SrcNodes[src[k]], dst[k], fr.Neighbors[k], i)
				}
			}
		}
	})
}
