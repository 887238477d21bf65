package gemm

import (
	"unsafe"

	"github.com/gnngo/gnn/internal/parallel"
)

// stripPlan reports whether Mul's product c (n x m) = a (n x k) times b
// goes to mulStrip, and whether with non-temporal stores, for a shared
// dimension of at most stripMaxK. Non-temporal stores are for outputs of
// at least ntBytes, which would not stay in the caches anyway, m a
// multiple of 4 (so that rows g = 1, 2 or 4 apart start at the same
// offset from a cache line, stripClasses); with them mulStrip takes
// outputs from 64 wide. Without them it takes outputs at least stripWide
// wide, but not those a multiple of 64 wide, where mulBlocks was faster.
// In cpu-GFLOPS, k = 16, mulBlocks against mulStrip: 3327 x 3703 39-41
// against 51-52; 19717 x 500 27-29 against 38-41; 20000 x 1000 (k = 8)
// 30-32 against 48 with non-temporal stores; 100000 x 64 and x 128 44-47
// against 59-61 with them, 34-38 without; 20000 x 256 43-44 against 37
// without them, 43-44 with.
func stripPlan(n, k, m int) (ok, nt bool) {
	if k > stripMaxK || m < 64 || n == 0 {
		return false, false
	}
	nt = n*m*4 >= ntBytes && m%4 == 0
	return nt || m >= stripWide && m%64 != 0, nt
}

// stripMaxK is the longest shared dimension that mulStrip takes: the
// shapes of input gradients, a hidden width times the features.
const stripMaxK = 64

// stripWide is the narrowest output that mulStrip takes without
// non-temporal stores.
const stripWide = 256

// ntBytes is the least output that mulStrip writes with non-temporal
// stores: half the 32 MiB last-level cache of the machine it was measured
// on, which processes share. A variable for tests.
var ntBytes = 16 << 20

// mulStrip is mulAccel for a short shared dimension and a wide output
// (stripPlan), the input gradient of a first layer: c (n x m) = a (n x k)
// times b (k x m), m at least 16, with stripF32, which sweeps strips of 6
// rows across all their blocks of 16 columns in one call, each tile
// written straight into c. The blocks are those of stripClasses, b packed
// for each class of rows. The strips go to goroutines; the last rows of a
// class, fewer than 6, are computed from a copy padded with zero rows.
// When bt, b is given transposed (m x k), as MulTransB has it.
func mulStrip(c, a, b []float32, n, k, m int, nt, bt bool) {
	g, tables := stripClasses(c, m, nt)
	bps := make([][]float32, g)
	for r := range g {
		bps[r] = packBlocks(b, k, m, tables[r], bt)
		defer parallel.PutScratch(bps[r])
	}
	const s = 6
	// per[r] is the number of strips of the classes before r; class r
	// has rows r, r+g, ..., (n-r+g-1)/g of them.
	per := make([]int, g+1)
	for r := range g {
		per[r+1] = per[r] + ((n-r+g-1)/g+s-1)/s
	}
	parallel.For(per[g], max(1, rowsPerTask/s), func(lo, hi int) {
		for r := range g {
			ulo, uhi := max(lo, per[r]), min(hi, per[r+1])
			if ulo >= uhi {
				continue
			}
			// The task's rows of the class are r + ig for i0 <= i < i1.
			i0, i1 := (ulo-per[r])*s, min((uhi-per[r])*s, (n-r+g-1)/g)
			if full := (i1 - i0) / s * s; full > 0 {
				row := r + i0*g
				stripF32(&c[row*m], &a[row*k], &bps[r][0], full, k, g*k, g*m, &tables[r][0])
				i0 += full
			}
			if i1 > i0 {
				stripTail(c, a, bps[r], tables[r], r, g, i0, i1, k, m)
			}
		}
	})
}

// stripTail computes rows r + ig of c, i0 <= i < i1, fewer than 6, from a
// copy of those rows of a padded with zero rows, into scratch with
// ordinary stores, and copies them out.
func stripTail(c, a, bp []float32, table []int32, r, g, i0, i1, k, m int) {
	const s = 6
	ta := parallel.Scratch[float32](s * k)
	defer parallel.PutScratch(ta)
	tc := parallel.Scratch[float32](s * m)
	defer parallel.PutScratch(tc)
	clear(ta)
	for i := i0; i < i1; i++ {
		row := r + i*g
		copy(ta[(i-i0)*k:(i-i0+1)*k], a[row*k:(row+1)*k])
	}
	plain := make([]int32, len(table))
	for j, e := range table {
		plain[j] = e
		if e >= 0 {
			plain[j] = e &^ 3
		}
	}
	stripF32(&tc[0], &ta[0], &bp[0], s, k, k, m, &plain[0])
	for i := i0; i < i1; i++ {
		row := r + i*g
		copy(c[row*m:(row+1)*m], tc[(i-i0)*m:(i-i0+1)*m])
	}
}

// stripClasses returns the classes of rows of c (n x m) and the table of
// blocks of each for stripF32 (entries 4j+f for the block of columns j to
// j+15, f its stores, ended by -1). Without nt there is one class, blocks
// at columns 0, 16, ..., and m-16 when m is not a multiple of 16 (the
// last block overlaps the one before it and writes its columns again,
// with the same bits), ordinary stores each followed by a prefetch. With
// nt and rows on 32-byte boundaries, the same blocks, with non-temporal
// stores.
//
// With nt and other rows (m a multiple of 4 but not of 8, as PubMed's
// 500 features, or c not on a boundary), rows i and i+g, for the least g
// that makes g*m floats whole 64-byte lines, start at the same offset
// from a line, so the rows go in g classes of rows g apart. Writing a
// line with both ordinary and non-temporal stores was slow (20000 x 1000
// by 8 ran at 25-31 cpu-GFLOPS with the last block's ordinary stores
// over the non-temporal ones of the block before it, at 44-51 without;
// 16-byte non-temporal stores, on 16-byte boundaries, ran 19717 x 500 by
// 16 at 27 against 38-40 with ordinary ones), so in
// each class the lines that lie whole in a row between its first and its
// last 16 to 31 columns are written with non-temporal stores, and the
// columns around them, which share their lines with the rows before and
// after, with ordinary ones, by blocks that do not reach into the
// non-temporal lines. With 32-byte aligned rows that was slower than
// non-temporal stores throughout (20000 x 1000 by 8: 36-42 against
// 44-48), and faster than ordinary stores on PubMed's (19717 x 500 by 16:
// 40.5-47.6, median 46.2, against 37.5-42.4, median 40.1).
func stripClasses(c []float32, m int, nt bool) (g int, tables [][]int32) {
	base := uintptr(unsafe.Pointer(&c[0]))
	if f := int32(2); !nt || m%8 == 0 && base%32 == 0 {
		if nt {
			f = 1
		}
		var t []int32
		for j := 0; j+16 <= m; j += 16 {
			t = append(t, int32(4*j)+f)
		}
		if m%16 != 0 {
			t = append(t, int32(4*(m-16))+f)
		}
		return 1, [][]int32{append(t, -1)}
	}
	g = 1
	for g*m%16 != 0 {
		g *= 2
	}
	tables = make([][]int32, g)
	for r := range g {
		// h0 is the row's first column on a line; the non-temporal
		// lines are s to t0.
		o := int((base + uintptr(r*m*4)) % 64 / 4)
		h0 := (16 - o) % 16
		var t []int32
		s := 0
		if h0 > 0 {
			t = append(t, 0, int32(4*h0))
			s = h0 + 16
		}
		t0 := s + (m-s)/16*16
		if m-t0 > 0 && m-t0 < 16 {
			t0 -= 16
		}
		if t0 < s {
			t0 = s
		}
		for j := s; j < t0; j += 16 {
			t = append(t, int32(4*j+1))
		}
		for j := t0; j+16 <= m; j += 16 {
			t = append(t, int32(4*j))
		}
		if (m-t0)%16 != 0 {
			t = append(t, int32(4*(m-16)))
		}
		tables[r] = append(t, -1)
	}
	return g, tables
}

// packBlocks returns b (k x m; m x k when bt) packed for stripF32 by the
// blocks of table: block j, of the columns table[j]/4 to table[j]/4+15, at
// offset 16jk, its k rows of 16 floats one after another.
// The slice comes from parallel.Scratch: give it back with PutScratch.
func packBlocks(b []float32, k, m int, table []int32, bt bool) []float32 {
	nb := len(table) - 1
	bp := parallel.Scratch[float32](nb * 16 * k)
	for j, e := range table[:nb] {
		col := int(e / 4)
		blk := bp[16*j*k : 16*(j+1)*k]
		if !bt {
			for l := range k {
				copy(blk[l*16:(l+1)*16], b[l*m+col:l*m+col+16])
			}
			continue
		}
		for r := range 16 {
			for l, v := range b[(col+r)*k : (col+r+1)*k] {
				blk[l*16+r] = v
			}
		}
	}
	return bp
}
