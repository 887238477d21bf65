//go:build amd64 && !purego

package sddmm

import "github.com/gnngo/gnn/internal/cpu"

// useAVX2 selects the AVX2 kernel for float32 dot products of eight-element
// heads. Tests turn it off to check the pure-Go path on the same machine.
var useAVX2 = cpu.X86HasAVX2

// dot8F32 writes the dot products of the eight-element heads of rows la[e]
// of x and ra[e] of y (row e for a nil index) for the n edges from e0 into
// o, prefetching the gathered rows of the edge dist ahead while that is
// below e0+avail; rows hold h heads, a multiple of 8 (dot_amd64.s).
//
//go:noescape
func dot8F32(o, x, y *float32, la, ra *int32, e0, n, avail, h, dist int)
