package gemm

import (
	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// The AVX2 drivers block the products for the caches of one core: the
// shapes of layer projections are tall (many rows) and narrow (an output 8
// to 256 wide), over a shared dimension of tens to thousands.
const (
	// tileRows is the row unit in which Mul hands rows to goroutines: a
	// multiple of both kernels' tiles (6 rows of 16 columns, 12 of 8), so
	// that only the last task ends in a partial tile.
	tileRows = 12

	// panelBytes bounds a panel of b (kc rows of w columns) that Mul keeps
	// in the L2 cache while the rows of a stream past it; a b that fits is
	// not split, so each row of a is read once, from start to end.
	panelBytes = 256 << 10

	// blockBytes bounds the block of a (rows times kc) that Mul keeps in
	// the L2 cache while the column blocks of a wide b sweep it.
	blockBytes = 128 << 10

	// tmulBytes bounds the rows of b (r x h) that one call of the
	// weight-gradient kernel broadcasts from, held in the L1 cache while
	// the tiles of a's columns go by.
	tmulBytes = 16 << 10

	// tmulRows is the most rows of a that one call of the weight-gradient
	// kernel takes: its tiles of p stay in registers over them, and the
	// tile's columns of those rows, a stride apart, in the L1 cache and
	// its TLB.
	tmulRows = 32

	// tmulGroup is how many chunks of MulTransA's rows are summed into
	// partial products at once (in parallel), before they are added to the
	// total in chunk order: it bounds the partials' memory. It is fixed, so
	// the order of the sum does not depend on GOMAXPROCS.
	tmulGroup = 8
)

// padded returns the width in which the AVX2 kernels compute products m
// wide: m rounded up to a multiple of 8, or 0 when they do not apply
// (float64, no AVX2, m or k zero).
func padded[T num.Float](m, k int) int {
	var z T
	if _, ok := any(z).(float32); !ok || !useAVX2 || m == 0 || k == 0 {
		return 0
	}
	return (m + 7) &^ 7
}

// mulAccel is Mul with the AVX2 kernels, in rows of w = padded(m, k)
// columns. When m is not a multiple of 8, b is padded once with zero
// columns and the rows computed into scratch, of which the first m columns
// are kept: columns are computed independently, so the padding changes
// nothing else. The rows go to goroutines in units of tileRows; each
// task takes blocks of its rows, and for each panel of the shared
// dimension (all of it when b fits panelBytes) runs the column blocks of
// b, 16 wide and a last 8, over the block.
func mulAccel(c, a, b []float32, n, k, m, w int) {
	if w > m {
		b = padRows(b, k, m, w, nil)
	}
	kc := k
	if k*w*4 > panelBytes {
		kc = max(64, panelBytes/4/w)
	}
	mb := max(tileRows, blockBytes/4/kc/tileRows*tileRows)
	units := (n + tileRows - 1) / tileRows
	parallel.For(units, max(1, rowsPerTask/tileRows), func(lo, hi int) {
		lo, hi = lo*tileRows, min(hi*tileRows, n)
		var scratch []float32
		if w > m {
			scratch = make([]float32, min(mb, hi-lo)*w)
		}
		for i := lo; i < hi; i += mb {
			r := min(mb, hi-i)
			dst, ldc := c[i*m:], m
			if w > m {
				dst, ldc = scratch, w
			}
			for k0 := 0; k0 < k; k0 += kc {
				kk, acc := min(kc, k-k0), min(k0, 1)
				for col := 0; col < w; col += 16 {
					if w-col >= 16 {
						mul16F32(&dst[col], &a[i*k+k0], &b[k0*w+col], r, kk, k, w, ldc, acc)
					} else {
						mul8F32(&dst[col], &a[i*k+k0], &b[k0*w+col], r, kk, k, w, ldc, acc)
					}
				}
			}
			if w > m {
				for j := range r {
					copy(c[(i+j)*m:(i+j+1)*m], scratch[j*w:j*w+m])
				}
			}
		}
	})
}

// tmulAccel is MulTransARows with the AVX2 kernel: c (k x m) is the
// transpose of a (n x k, given by rows) times b (n x m). The rows are cut
// into chunks whose bounds depend on n only (an even number of them, so
// that two cores share them evenly). Each chunk's product is computed
// transposed, m rounded up to h, a multiple of 4, by k rounded up to fp, a
// multiple of 8, with a's features in the vector lanes, rb rows of a at a
// time. The chunks' products are added in chunk order, tmulGroup chunks
// computed at a time, and the sum is transposed into c. The result is the
// same for any GOMAXPROCS.
func tmulAccel(c []float32, rows func(lo, hi int) []float32, b []float32, n, k, m int) {
	if n == 0 {
		clear(c)
		return
	}
	h, fp := (m+3)&^3, (k+7)&^7
	var mask [8]int32
	for l := range k % 8 {
		mask[l] = -1
	}
	rb := min(tmulRows, max(8, tmulBytes/4/h))
	count := min(64, (n+chunkRows-1)/chunkRows)
	if count > 1 {
		count = (count + 1) &^ 1
	}
	per := (n + count - 1) / count
	count = (n + per - 1) / per
	size := h * fp
	total := make([]float32, size)
	parts := make([]float32, min(count, tmulGroup)*size)
	for g := 0; g < count; g += tmulGroup {
		gn := min(tmulGroup, count-g)
		parallel.For(gn, 1, func(glo, ghi int) {
			var pad []float32
			if h > m {
				pad = make([]float32, rb*h)
			}
			for j := glo; j < ghi; j++ {
				p := parts[j*size : (j+1)*size]
				clear(p)
				lo, hi := (g+j)*per, min((g+j+1)*per, n)
				a := rows(lo, hi)
				for i := lo; i < hi; i += rb {
					r := min(rb, hi-i)
					bi, ldb := b[i*m:(i+r)*m], m
					if h > m {
						bi, ldb = padRows(bi, r, m, h, pad), h
					}
					tmulF32(&p[0], &a[(i-lo)*k], &bi[0], r, k, h, k, ldb, fp, &mask[0])
				}
			}
		})
		for j := range gn {
			p := parts[j*size : (j+1)*size]
			if g+j == 0 {
				copy(total, p)
				continue
			}
			for i, v := range p {
				total[i] += v
			}
		}
	}
	for f := range k {
		cf := c[f*m : (f+1)*m]
		for l := range cf {
			cf[l] = total[l*fp+f]
		}
	}
}

// padRows returns the r rows of x (r x m) widened to w columns with zeros,
// in dst when it is long enough.
func padRows(x []float32, r, m, w int, dst []float32) []float32 {
	if len(dst) < r*w {
		dst = make([]float32, r*w)
	}
	dst = dst[:r*w]
	for j := range r {
		copy(dst[j*w:j*w+m], x[j*m:(j+1)*m])
		clear(dst[j*w+m : (j+1)*w])
	}
	return dst
}
