//go:build amd64 && !purego

package gemm

import "github.com/gnngo/gnn/internal/cpu"

// useAVX2 selects the AVX2 and FMA kernels of gemm_amd64.s. Tests turn it
// off to check the Go path on the same machine.
var useAVX2 = cpu.X86HasAVX2 && cpu.X86HasFMA

// mulRowsF32 sets c (n x m) to a (n x k) times b (k x m), m a positive
// multiple of 8, n and k positive.
//
//go:noescape
func mulRowsF32(c, a, b *float32, n, k, m int)

// outerRowsF32 adds to p (k x w) the transpose of a (n x k) times b
// (n x w), w a positive multiple of 8, n and k positive.
//
//go:noescape
func outerRowsF32(p, a, b *float32, n, k, w int)
