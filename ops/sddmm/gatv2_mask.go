package sddmm

import (
	"sync"
	"unsafe"

	"github.com/gnngo/gnn/graph"
	"github.com/gnngo/gnn/internal/num"
)

// The records of GATv2's GradAll: for every edge, by edge ID, its H score
// gradients and the sign mask of its t: bit j of the mask is set where
// t[j] > 0 (element j in byte j/8, bit j%8). The gradient of an edge with
// respect to t, g[h] A[j] times the slope where t[j] <= 0, needs nothing of
// t but that bit, so GradAll's pass over the sources forms it from the
// edge's record alone instead of gathering a row of ZR to recompute t. The
// pass over the destinations writes the records in edge-ID order, on a
// graph numbered by destination in memory order; the pass over the sources
// reads them in random order, one record (a cache line or two) per edge
// where it gathered a row of ZR and the score gradients before. The
// records lie on huge pages where the system grants them (hugePages), so
// that those random reads miss the cache but not the TLB.

// maskBytes returns the bytes of an edge's mask for rows of w elements.
func maskBytes(w int) int { return (w + 7) / 8 }

// recordLen returns the elements of type T of an edge's record: its h
// score gradients, then its mask in the bytes of the elements after them.
func recordLen[T num.Float](h, w int) int {
	var zero T
	size := int(unsafe.Sizeof(zero))
	return h + (maskBytes(w)+size-1)/size
}

// maskOf returns the mask bytes of the record r of rows of w elements and h
// heads.
func maskOf[T num.Float](r []T, h, w int) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&r[h])), maskBytes(w))
}

// recordPools pool the record buffers of GradAll (*[]float32, *[]float64).
var recordPools [2]sync.Pool

// getRecords returns a buffer of n elements for records, not cleared (the
// pass over the destinations writes every record whole), on huge pages
// where the system grants them.
func getRecords[T num.Float](n int) *[]T {
	pool := recordPool[T]()
	if p, ok := pool.Get().(*[]T); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := hugePages[T](n)
	return &b
}

// putRecords returns a buffer of getRecords to the pool.
func putRecords[T num.Float](p *[]T) { recordPool[T]().Put(p) }

// recordPool returns the pool of buffers of T.
func recordPool[T num.Float]() *sync.Pool {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return &recordPools[0]
	}
	return &recordPools[1]
}

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
// order, of the per-edge gradients formed from the edges' records rec.
func (k *GATv2[T]) maskRows(out, rec []T, c *graph.Compressed, lo, hi int) {
	if k.maskAccel(out, rec, c, lo, hi) {
		return
	}
	w, h, f := k.Heads*k.Feat, k.Heads, k.Feat
	rw := recordLen[T](h, w)
	a := k.A[:w]
	for u := lo; u < hi; u++ {
		row := out[u*w : (u+1)*w]
		clear(row)
		for p := c.Indptr[u]; p < c.Indptr[u+1]; p++ {
			e := int(c.EIDs[p])
			r := rec[e*rw : (e+1)*rw]
			bits := maskOf(r, h, w)
			for hd, x := range r[:h] {
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
