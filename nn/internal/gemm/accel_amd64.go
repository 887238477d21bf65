//go:build amd64 && !purego

package gemm

import "github.com/gnngo/gnn/internal/cpu"

// useAVX2 selects the AVX2 and FMA kernels of gemm_amd64.s. Tests turn it
// off to check the Go path on the same machine.
var useAVX2 = cpu.X86HasAVX2 && cpu.X86HasFMA

// rowF32 sets c[0:m] to a[0:k] times b (k x m), m a positive multiple of 8.
//
//go:noescape
func rowF32(c, a, b *float32, k, m int)

// outerF32 adds the outer product of a[0:k] and b[0:m] to p (k x m), m a
// positive multiple of 8.
//
//go:noescape
func outerF32(p, a, b *float32, k, m int)
