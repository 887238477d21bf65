package sddmm

import (
	"sync"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// The sign mask of GATv2's per-edge vectors t: bit j of an edge's bytes is
// set where t[j] > 0 (element j in byte j/8, bit j%8). The gradient of an
// edge with respect to t, g[h] A[j] times the slope where t[j] <= 0, needs
// nothing of t but that bit, so GradAll's pass over the sources forms it
// from the mask the pass over the destinations recorded instead of
// gathering a row of ZR per edge to recompute t.

// maskBytes returns the bytes of an edge's mask for rows of w elements.
func maskBytes(w int) int { return (w + 7) / 8 }

// masks pools the mask buffers of GradAll (*[]byte).
var masks sync.Pool

// getMask returns a mask buffer of n bytes, not cleared: the pass over the
// destinations writes every byte of every edge.
func getMask(n int) *[]byte {
	if p, ok := masks.Get().(*[]byte); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n)
	return &b
}

// putMask returns a buffer of getMask to the pool.
func putMask(p *[]byte) { masks.Put(p) }

// setMask sets the bytes m of an edge's mask from its t.
func setMask[T num.Float](m []byte, t []T) {
	for i := range m {
		var b byte
		for j, x := range t[i*8 : min(len(t), i*8+8)] {
			if x > 0 {
				b |= 1 << j
			}
		}
		m[i] = b
	}
}

// maskRows is GradAll's pass over the sources [lo, hi) of c (the CSR
// view): every source's row of out is the sum, over its out-edges in CSR
// order, of the per-edge gradients formed from the edge's bits of mask.
func (k *GATv2[T]) maskRows(out, ds []T, mask []byte, c *graph.Compressed, lo, hi int) {
	if k.maskAccel(out, ds, mask, c, lo, hi) {
		return
	}
	w, h, f := k.Heads*k.Feat, k.Heads, k.Feat
	mb := maskBytes(w)
	a := k.A[:w]
	for u := lo; u < hi; u++ {
		row := out[u*w : (u+1)*w]
		clear(row)
		for p := c.Indptr[u]; p < c.Indptr[u+1]; p++ {
			e := int(c.EIDs[p])
			bits := mask[e*mb : (e+1)*mb]
			for hd, x := range ds[e*h : (e+1)*h] {
				for j := hd * f; j < (hd+1)*f; j++ {
					d := x * a[j]
					if bits[j>>3]>>(j&7)&1 == 0 {
						d *= k.Slope
					}
					row[j] += d
				}
			}
		}
	}
}
