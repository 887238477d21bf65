//go:build amd64 && !purego

package gemm

import "github.com/gnngo/gnn/internal/cpu"

// useAVX2 selects the AVX2 and FMA kernels of tile_amd64.s and
// tmul_amd64.s. Tests turn it off to check the Go path on the same
// machine.
var useAVX2 = cpu.X86HasAVX2 && cpu.X86HasFMA

// mul16F32 sets c (n x 16, rows ldc floats apart) to a (n x k, rows lda
// apart) times b (k x 16, rows ldb apart), plus c itself when acc != 0; n
// and k positive (tile_amd64.s).
//
//go:noescape
func mul16F32(c, a, b *float32, n, k, lda, ldb, ldc, acc int)

// mul8F32 is mul16F32 for a block of 8 columns (tile_amd64.s).
//
//go:noescape
func mul8F32(c, a, b *float32, n, k, lda, ldb, ldc, acc int)

// tmulF32 adds to p (h x f, rows ldp floats apart) the transpose of b
// (r x h, rows ldb apart) times a (r x f, rows lda apart); h a positive
// multiple of 4, r and f positive, ldp at least f rounded up to 8, mask
// the lanes of a's last f mod 8 columns; it prefetches the rows next bytes
// past a's, which the next call will read (tmul_amd64.s).
//
//go:noescape
func tmulF32(p, a, b *float32, r, f, h, lda, ldb, ldp int, mask *int32, next int)

// outerRowsF32 adds to p (k x w) the transpose of a (n x k, rows lda
// floats apart) times b (n x w), w a positive multiple of 8, n and k
// positive (outer_amd64.s).
//
//go:noescape
func outerRowsF32(p, a, b *float32, n, k, lda, w int)

// outer16F32 is outerRowsF32 for w a positive multiple of 16, in tiles of
// 6 rows of p by 16 columns (outer_amd64.s).
//
//go:noescape
func outer16F32(p, a, b *float32, n, k, lda, w int)

// mulRowsF32 sets c (n x m) to a (n x k) times b (k x m), m a positive
// multiple of 8, n and k positive (mulrows_amd64.s).
//
//go:noescape
func mulRowsF32(c, a, b *float32, n, k, m int)

// stripF32 sets c (n x m, rows ldc floats apart) to a (n x k, rows lda
// apart) times b over the blocks of 16 columns that blocks lists
// (stripClasses), b packed in their order (packBlocks), in strips of 6
// rows swept across all the blocks; n a positive multiple of 6, k
// positive (strip_amd64.s).
//
//go:noescape
func stripF32(c, a, b *float32, n, k, lda, ldc int, blocks *int32)
