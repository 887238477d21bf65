package gemm

import (
	"unsafe"

	"github.com/gnngo/gnn/internal/parallel"
)

// mulStrip is mulAccel for a short shared dimension and a wide output
// (stripPlan), the input gradient of a first layer: c (n x m) = a (n x k)
// times b (k x m), m at least 16. b is packed once in blocks of 16
// columns (packStrip), the last of them the last 16 columns of b;
// strip16F32 sweeps strips of 6 rows across all the blocks in one call,
// writing each tile of c once, straight into c: when m is not a multiple
// of 16 the last block overlaps the one before it, and writes its columns
// again with the same bits. The rows go to goroutines in strips; the last
// rows, fewer than 6, are computed from a copy padded with zero rows.
// With nt = 1, c is written with non-temporal stores (stripPlan).
func mulStrip(c, a, b []float32, n, k, m, nt int) {
	bp := packStrip(b, k, m)
	defer parallel.PutScratch(bp)
	stripRows(c, a, bp, n, k, m, nt)
}

// stripRows is mulStrip over b packed by packStrip or packStripT.
func stripRows(c, a, bp []float32, n, k, m, nt int) {
	nb := (m + 15) / 16
	const s = 6
	units := (n + s - 1) / s
	parallel.For(units, max(1, rowsPerTask/s), func(lo, hi int) {
		lo, hi = lo*s, min(hi*s, n)
		if full := (hi - lo) / s * s; full > 0 {
			strip16F32(&c[lo*m], &a[lo*k], &bp[0], full, k, k, m, nb, m-16, nt)
			lo += full
		}
		if r := hi - lo; r > 0 {
			ta := parallel.Scratch[float32](s * k)
			defer parallel.PutScratch(ta)
			tc := parallel.Scratch[float32](s * m)
			defer parallel.PutScratch(tc)
			clear(ta)
			copy(ta, a[lo*k:hi*k])
			strip16F32(&tc[0], &ta[0], &bp[0], s, k, k, m, nb, m-16, 0)
			copy(c[lo*m:hi*m], tc[:r*m])
		}
	})
}

// packStrip returns b (k x m, m at least 16) packed for strip16F32: nb
// blocks of 16 columns, those starting at columns 0, 16, ..., and the
// last at column m-16, block j at offset 16jk, each its k rows of 16
// floats one after another.
// The slice comes from parallel.Scratch: give it back with PutScratch.
func packStrip(b []float32, k, m int) []float32 {
	nb := (m + 15) / 16
	bp := parallel.Scratch[float32](nb * 16 * k)
	for j := range nb {
		col := min(16*j, m-16)
		blk := bp[16*j*k : 16*(j+1)*k]
		for l := range k {
			copy(blk[l*16:(l+1)*16], b[l*m+col:l*m+col+16])
		}
	}
	return bp
}

// packStripT is packStrip of the transpose of b (m x k): for MulTransB,
// without a transposed copy of b.
func packStripT(b []float32, k, m int) []float32 {
	nb := (m + 15) / 16
	bp := parallel.Scratch[float32](nb * 16 * k)
	for j := range nb {
		col := min(16*j, m-16)
		blk := bp[16*j*k : 16*(j+1)*k]
		for r := range 16 {
			br := b[(col+r)*k : (col+r+1)*k]
			for l, v := range br {
				blk[l*16+r] = v
			}
		}
	}
	return bp
}

// stripPlan reports whether Mul's product c (n x m) = a (n x k) times b
// goes to mulStrip, and with which stores, for a shared dimension of at
// most stripMaxK. Non-temporal stores (nt = 1) need an output of at least
// ntBytes, which would not stay in the caches anyway, and rows on 32-byte
// boundaries; with them mulStrip takes outputs from 64 wide. Without them
// it takes outputs at least stripWide wide, but not those a multiple of
// 64 wide, where mulBlocks was faster. In cpu-GFLOPS, k = 16, mulBlocks
// against mulStrip: 3327 x 3703 39-41 against 51-52; 19717 x 500 27-29
// against 38-41 (27 with 16-byte non-temporal stores on its rows, 16-byte
// aligned: not kept); 20000 x 1000 (k = 8) 30-32 against 48 with
// non-temporal stores; 100000 x 64 and x 128 44-47 against 59-61 with
// them, 34-38 without; 20000 x 256 43-44 against 37 without them, 43-44
// with. Non-temporal stores of only the blocks of the rows on 32-byte
// boundaries, the first and last block of a row with ordinary ones, were
// slower (3327 x 3703 34-39 against 44-49), and so was b read in place of
// packed (20000 x 1000 by 8 37-44 against 45-48).
func stripPlan(c []float32, n, k, m int) (ok bool, nt int) {
	if k > stripMaxK || m < 64 || n == 0 {
		return false, 0
	}
	if n*m*4 >= ntBytes && m%8 == 0 && uintptr(unsafe.Pointer(&c[0]))%32 == 0 {
		nt = 1
	}
	if nt != 0 && m < stripWide {
		return true, nt
	}
	return m >= stripWide && m%64 != 0, nt
}

// stripMaxK is the longest shared dimension that mulStrip takes: the
// shapes of input gradients, a hidden width times the features.
const stripMaxK = 64

// stripWide is the narrowest output that mulStrip takes without
// non-temporal stores, and the widest that it takes with them only.
const stripWide = 256

// ntBytes is the least output that mulStrip writes with non-temporal
// stores: half the 32 MiB last-level cache of the machine it was measured
// on, which processes share. A variable for tests.
var ntBytes = 16 << 20
