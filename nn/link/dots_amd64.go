//go:build amd64 && !purego

package link

import "github.com/gnngo/gnn/internal/cpu"

// useFMA selects the AVX2/FMA kernel for float32 dot products of rows a
// multiple of eight wide. Tests turn it off to check the Go path.
var useFMA = cpu.X86HasAVX2 && cpu.X86HasFMA

// dotRowsF32 sets out[q] to the dot product of rows left[q] and right[q]
// of h, rows of dim floats (a positive multiple of 8), for q < n,
// prefetching the right row dist pairs ahead when dist > 0
// (dots_amd64.s).
//
//go:noescape
func dotRowsF32(out, h *float32, dim int, left, right *int32, n, dist int)
