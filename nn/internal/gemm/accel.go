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

	// shortK is the shared dimension under which Mul runs mulRowsF32, a
	// call over all the columns of a task's rows: over so few steps a call
	// per block of columns costs more than the blocking saves.
	shortK = 16

	// cBlockBytes bounds the block of c (rows times w) that they write,
	// unless that is under tileRows rows: few rows of a wide c, written
	// across before going down, as the hardware streams them best.
	cBlockBytes = 48 << 10

	// scratchRows is the most rows that Mul computes into scratch before
	// it copies them out, when the width is padded: the scratch stays in
	// the L1 cache.
	scratchRows = 5 * tileRows

	// tmulBytes bounds the rows of b (r x h) that one call of the
	// weight-gradient kernel broadcasts from, held in the L1 cache while
	// the tiles of a's columns go by.
	tmulBytes = 16 << 10

	// tmulRows is the most rows of a that one call of the weight-gradient
	// kernel takes: its tiles of p stay in registers over them, and the
	// tile's columns of those rows, a stride apart, in the L1 cache and
	// its TLB.
	tmulRows = 64

	// tmulBlock bounds the rows of a (r x k) that one call of the
	// weight-gradient kernel reads, and prefetches for the next, in the L2
	// cache, unless that is under 16 rows.
	tmulBlock = 256 << 10

	// outerRows and outerBlock bound the rows of a that one call of the
	// outer kernel sweeps: at most outerRows, and under outerBlock bytes
	// (so that they stay in the L2 cache) unless that is under 8 rows.
	// Rows of thousands of features lie on pages of their own: 12 rows,
	// and the 12 that the kernel prefetches, keep their pages within the
	// L1 TLB's 64 entries. 12 beat 32, 16 and 8 in cpu-GFLOPS on every
	// weight gradient of BenchmarkFirstLayer up to 64 wide (3327 x 3703
	// by 16: 25-29 with 32 rows, 35-45 with 12; 20000 x 1000 by 8: 18-21
	// against 36-42; 4096 x 4000 by 64: 44-48 against 50-52).
	outerRows  = 12
	outerBlock = 128 << 10

	// outerPart bounds the block of a chunk's partial product (features
	// times the padded width) that one task of the outer kernel computes,
	// so that it stays in the L2 cache beside the rows of a.
	outerPart = 64 << 10

	// outerMaxWidth is the widest product that MulTransA gives to the outer
	// kernel.
	outerMaxWidth = 128

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
// columns. b is packed once into blocks of 16 columns (and a last of 8),
// each block's k rows one after another, with zero columns past m: the
// kernels then read a block's rows from consecutive cache lines, whatever
// b's width (a width of a power of two would map its rows to a few sets
// of the L1 cache). The kernels write the blocks of columns into c, but
// for the block that crosses column m (when m is not a multiple of 8),
// which they write into scratch, of which the columns before m are kept:
// columns are computed independently, so the padding changes nothing
// else. The rows go to goroutines in units of tileRows; each task takes
// blocks of its rows, and for each panel of the shared dimension (all of
// it when b fits panelBytes) runs the column blocks of b over the block
// (mulBlocks). Products over a short shared dimension into a wide c go to
// mulStrip instead (stripPlan).
func mulAccel(c, a, b []float32, n, k, m, w int) {
	if ok, nt := stripPlan(n, k, m); ok {
		mulStrip(c, a, b, n, k, m, nt, false)
		return
	}
	mulBlocks(c, a, b, n, k, m, w)
}

// mulBlocks is mulAccel in blocks of rows of c, for the products that
// mulStrip does not take.
func mulBlocks(c, a, b []float32, n, k, m, w int) {
	if k < shortK {
		mulShort(c, a, b, n, k, m, w)
		return
	}
	bp := packCols(b, k, m, w)
	defer parallel.PutScratch(bp)
	kc := k
	if k*w*4 > panelBytes {
		kc = max(64, panelBytes/4/w)
	}
	mb := max(tileRows, min(blockBytes/4/kc, cBlockBytes/4/w)/tileRows*tileRows)
	// last is the block of columns that crosses m, or w when none does.
	last := w
	if w > m {
		last = m &^ 15
		mb = min(mb, scratchRows)
	}
	units := (n + tileRows - 1) / tileRows
	parallel.For(units, max(1, rowsPerTask/tileRows), func(lo, hi int) {
		lo, hi = lo*tileRows, min(hi*tileRows, n)
		var scratch []float32
		if w > m {
			scratch = parallel.Scratch[float32](min(mb, hi-lo) * 16)
			defer parallel.PutScratch(scratch)
		}
		for i := lo; i < hi; i += mb {
			r := min(mb, hi-i)
			for k0 := 0; k0 < k; k0 += kc {
				kk, acc := min(kc, k-k0), min(k0, 1)
				for col := 0; col < w; col += 16 {
					dst, ldc := c[i*m+col:], m
					if col == last {
						dst, ldc = scratch, w-col
					}
					if w-col >= 16 {
						mul16F32(&dst[0], &a[i*k+k0], &bp[col*k+k0*16], r, kk, k, 16, ldc, acc)
					} else {
						mul8F32(&dst[0], &a[i*k+k0], &bp[col*k+k0*8], r, kk, k, 8, ldc, acc)
					}
				}
			}
			if w > m {
				q := w - last
				for j := range r {
					copy(c[(i+j)*m+last:(i+j+1)*m], scratch[j*q:j*q+m-last])
				}
			}
		}
	})
}

// mulShort is mulAccel for a shared dimension under shortK, with
// mulRowsF32 over all the columns of up to scratchRows rows a call. When m
// is not a multiple of 8, b is padded once with zero columns and the rows
// computed into scratch, of which the first m columns are kept.
func mulShort(c, a, b []float32, n, k, m, w int) {
	if w > m {
		b = padRows(b, k, m, w, nil)
	}
	parallel.For(n, rowsPerTask, func(lo, hi int) {
		if w == m {
			mulRowsF32(&c[lo*m], &a[lo*k], &b[0], hi-lo, k, m)
			return
		}
		scratch := parallel.Scratch[float32](min(scratchRows, hi-lo) * w)
		defer parallel.PutScratch(scratch)
		clear(scratch)
		for i := lo; i < hi; i += scratchRows {
			r := min(scratchRows, hi-i)
			mulRowsF32(&scratch[0], &a[i*k], &b[0], r, k, w)
			for j := range r {
				copy(c[(i+j)*m:(i+j+1)*m], scratch[j*w:j*w+m])
			}
		}
	})
}

// packCols returns b (k x m) packed for mulAccel: the blocks of 16 columns
// of its w-wide padding, then a last block of 8 when w is not a multiple
// of 16, the block starting at column j at offset j*k, each its k rows of
// 16 (or 8) floats one after another.
// The slice comes from parallel.Scratch: give it back with PutScratch.
func packCols(b []float32, k, m, w int) []float32 {
	bp := parallel.Scratch[float32](k * w)
	clear(bp)
	for col := 0; col < w; col += 16 {
		q := min(16, w-col)
		blk := bp[col*k : col*k+k*q]
		if col+q <= m {
			for l := range k {
				copy(blk[l*q:(l+1)*q], b[l*m+col:l*m+col+q])
			}
			continue
		}
		for l := range k {
			copy(blk[l*q:(l+1)*q], b[l*m+col:(l+1)*m])
		}
	}
	return bp
}

// tmulAccel is MulTransARows with the AVX2 kernels: c (k x m) is the
// transpose of a (n x k, given by rows) times b (n x m). The rows are cut
// into chunks whose bounds depend on n only (those of parallel.Sum), each
// element of a chunk's product is one chain over its rows in order, and
// the products are added in chunk order, tmulGroup chunks computed at a
// time. The result is the same for any GOMAXPROCS.
//
// Two kernels share the work by shape. With outer, a's features are
// broadcast and b's columns fill the vector lanes (m rounded up to 8), in
// blocks of rows that stay in the L2 cache, in tiles of 6 features by 16
// columns (outer16F32) when the padded width is a multiple of 16, else of
// 12 by 8 (outerRowsF32): the better kernel for outputs up to 128 wide.
// Its tasks are a chunk's rows times a block of the features, so that the
// goroutines share chunks of unequal sizes (CiteSeer's 3327 rows are
// chunks of 1024, 1024, 1024 and 255) and a block's part of the product
// stays in the L2 cache. Otherwise the product is computed transposed, m
// rounded up to a multiple of 4 by k rounded up to 8, with a's features in
// the lanes, rb rows of a at a time, a chunk a task, and the sum
// transposed into c.
func tmulAccel(c []float32, rows func(lo, hi int) []float32, b []float32, n, k, m int) {
	if n == 0 {
		clear(c)
		return
	}
	outer := useOuter(k, m)
	h, fp := (m+3)&^3, (k+7)&^7
	if outer {
		h, fp = k, (m+7)&^7
	}
	var mask [8]int32
	for l := range k % 8 {
		mask[l] = -1
	}
	rb := min(max(16, tmulBlock/4/k), max(8, tmulBytes/4/h), tmulRows)
	// The chunks of parallel.Sum, which the weight gradient was summed
	// over before these kernels: the same bounds and order give the same
	// bits as before, so that trained models do not change with them.
	per := max(chunkRows, (n+63)/64)
	count := (n + per - 1) / per
	size := h * fp
	total := parallel.Scratch[float32](size)
	defer parallel.PutScratch(total)
	parts := parallel.Scratch[float32](min(count, tmulGroup) * size)
	defer parallel.PutScratch(parts)
	// The outer kernel's tasks are a chunk and a block of its features:
	// the features' sums are independent, so the split leaves the bits as
	// they are, while the tasks even out chunks of unequal sizes between
	// goroutines and a block's share of p stays in the L2 cache.
	fb, nfb := k, 1
	if outer {
		nfb = max((size*4+outerPart-1)/outerPart, (2*parallel.Workers()+min(count, tmulGroup)-1)/min(count, tmulGroup))
		fb = min(k, ((k+nfb-1)/nfb+5)/6*6)
		nfb = (k + fb - 1) / fb
		rb = min(outerRows, max(8, outerBlock/4/fb))
	}
	for g := 0; g < count; g += tmulGroup {
		gn := min(tmulGroup, count-g)
		parallel.For(gn*nfb, 1, func(tlo, thi int) {
			var pad []float32
			if (outer && fp > m) || (!outer && h > m) {
				pad = parallel.Scratch[float32](rb * max(h, fp))
				defer parallel.PutScratch(pad)
			}
			for t := tlo; t < thi; t++ {
				j, f0 := t/nfb, t%nfb*fb
				f1 := min(k, f0+fb)
				p := parts[j*size : (j+1)*size]
				lo, hi := (g+j)*per, min((g+j+1)*per, n)
				a := rows(lo, hi)
				if outer {
					p = p[f0*fp : f1*fp]
					clear(p)
					for i := lo; i < hi; i += rb {
						r := min(rb, hi-i)
						bi := b[i*m : (i+r)*m]
						if fp > m {
							bi = padRows(bi, r, m, fp, pad)
						}
						ai := &a[(i-lo)*k+f0]
						if fp%16 == 0 {
							outer16F32(&p[0], ai, &bi[0], r, f1-f0, k, fp)
						} else {
							outerRowsF32(&p[0], ai, &bi[0], r, f1-f0, k, fp)
						}
					}
					continue
				}
				clear(p)
				for i := lo; i < hi; i += rb {
					r := min(rb, hi-i)
					bi, ldb := b[i*m:(i+r)*m], m
					if h > m {
						bi, ldb = padRows(bi, r, m, h, pad), h
					}
					tmulF32(&p[0], &a[(i-lo)*k], &bi[0], r, k, h, k, ldb, fp, &mask[0], r*k*4)
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
		if outer {
			copy(cf, total[f*fp:f*fp+m])
			continue
		}
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

// useOuter reports whether MulTransA's product of k features by m columns
// goes to the kernel with b's columns in the lanes (outerRowsF32) rather
// than the transposed one (tmulF32): it was faster up to 64 columns on the
// shapes of BenchmarkFirstLayer and BenchmarkMul, 16 to 4000 features,
// and slower at 256 and 512 columns.
func useOuter(k, m int) bool { return m <= outerMaxWidth }
