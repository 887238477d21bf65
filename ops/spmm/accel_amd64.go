//go:build amd64 && !purego

package spmm

import "github.com/gnngo/gnn/internal/cpu"

// The AVX2 kernels of rows_amd64.s; accel.go describes their arguments.

//go:noescape
func addRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int)

//go:noescape
func addScaledRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int, e *float32, eids *int32, eStride int, woff *int64)

//go:noescape
func addPermScaledRowsF32(o, x *float32, idx *int32, n, avail, xStride, width, dist int, e *float32, eids *int32, eStride int, d *permChunks)

// useAVX2 selects the AVX2 kernels for float32 sums. Tests turn it off to
// check the pure-Go paths on the same machine.
var useAVX2 = cpu.X86HasAVX2

//go:noescape
func foldRowsF32(o *float32, a *int64, x *float32, idx *int32, ids *int32, n, avail, xStride, width, dist, isMin int)
