//go:build amd64 && !purego

package sddmm

import "github.com/gnngo/gnn/internal/cpu"

// useAVX2 selects the AVX2 kernel for float32 dot products of heads of two,
// four and eight elements and elementwise operations on rows of a multiple
// of eight floats.
// Tests turn it off to check the pure-Go paths on the same machine.
var useAVX2 = cpu.X86HasAVX2

// rows8F32 writes, for the n edges from e0, the output rows (one after
// another from o) of rows la[e] of x and ra[e] of y (row e for a nil index),
// rows of rowBytes bytes: the dot products of their eight-element heads
// (mode modeDot), of their two- or four-element heads (modeDot2, modeDot4),
// or x OP y elementwise (modeAdd to modeDiv); it prefetches
// the gathered rows of the edge dist ahead while that is below e0+avail
// (rows8_amd64.s).
//
//go:noescape
func rows8F32(mode int, o, x, y *float32, la, ra *int32, e0, n, avail, rowBytes, dist int)
