package spmm

import "github.com/gnngo/gnn/graph"

// The AVX2 path of Mul sums whose heads do not fill whole vectors: a
// weight per head of b columns, b not a multiple of 8 (GAT's heads of 2
// or 4 features, rows of H*b floats). The kernel (perm_amd64.s) expands
// an edge's weights to each 8-column chunk of its row with one masked load
// and one permutation (VPERMPS) per chunk, instead of a broadcast per head
// that the chunk would otherwise need, and keeps the sums of up to four
// chunks in registers.

// permTile is the number of columns per pass of a permuted scaled sum:
// four chunks, whose sums and permutations fill eight vector registers.
const permTile = 32

// permChunks tells the kernel where each chunk of a pass finds its
// weights. Its layout is read by perm_amd64.s: do not reorder the fields.
type permChunks struct {
	// base is the byte offset, within an edge's weight row, of the 8
	// weights that chunk c permutes.
	base [4]int64
	// perm[c][i] is the lane of those 8 weights that column i of chunk c
	// takes.
	perm [4][8]int32
	// mask has lane i set (-1) when weight base+i is inside a row of h
	// weights, for every chunk: lanes past the row are not loaded.
	mask [8]int32
}

// newPermChunks returns the chunks of a pass over the columns col0 to
// col0+8*chunks-1 of rows with h heads of b columns each (weight k/b for
// column k). The 8 weights a chunk loads start at the first one it needs,
// or at h-8 when fewer than 8 follow: every chunk then loads whole,
// unmasked, rows of 8 when h >= 8, and rows of h with h < 8.
func newPermChunks(col0, chunks, h, b int) *permChunks {
	d := new(permChunks)
	for c := range chunks {
		k0 := col0 + 8*c
		base := 0
		if h > 8 {
			base = min(k0/b, h-8)
		}
		d.base[c] = int64(base * 4)
		for i := range 8 {
			d.perm[c][i] = int32((k0+i)/b - base)
		}
	}
	for i := range min(h, 8) {
		d.mask[i] = -1
	}
	return d
}

// sumPermScaledF32 is sumScaledF32 for weights of heads of b columns, b
// not a multiple of 8 and f >= 8: passes of up to permTile columns over
// the first f&^7, and the columns past the last full vector from a pass
// over the row's last 8 columns into scratch, of which the new ones are
// kept. Passes are ordered as in sumScaledF32.
func sumPermScaledF32(out, x, e []float32, c *graph.Compressed, f, h, b, lo, hi int) {
	indptr, idx, eids := c.Indptr, c.Indices, c.EIDs
	end := int(indptr[hi])
	if end == int(indptr[lo]) {
		return
	}
	w8 := f &^ 7
	tiles := (w8 + permTile - 1) / permTile
	desc := make([]*permChunks, tiles)
	for i := range tiles {
		col := i * permTile
		desc[i] = newPermChunks(col, min(permTile, w8-col)/8, h, b)
	}
	var tailDesc *permChunks
	if w8 < f {
		tailDesc = newPermChunks(f-8, 1, h, b)
	}
	var tail [8]float32
	pass := func(v, i int) {
		s, t := int(indptr[v]), int(indptr[v+1])
		if s == t {
			return
		}
		col := i * permTile
		addPermScaledRowsF32(&out[v*f+col], &x[col], &idx[s], t-s, end-s, f*4, min(permTile, w8-col)*4, prefetchDist, &e[0], &eids[s], h*4, desc[i])
		if i == tiles-1 && tailDesc != nil {
			tail = [8]float32{}
			addPermScaledRowsF32(&tail[0], &x[f-8], &idx[s], t-s, end-s, f*4, 32, prefetchDist, &e[0], &eids[s], h*4, tailDesc)
			copy(out[v*f+w8:v*f+f], tail[8-(f-w8):])
		}
	}
	eachPass(c.Ordered, lo, hi, tiles, pass)
}
