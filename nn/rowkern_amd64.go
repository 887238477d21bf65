//go:build amd64 && !purego

package nn

import "github.com/gnngo/gnn/internal/cpu"

// The AVX2 kernels of rowkern_amd64.s; rowkern.go says what they compute.

// useRowAVX2 selects the AVX2 row kernels for float32. Tests turn it off
// to check the pure-Go loops on the same machine.
var useRowAVX2 = cpu.X86HasAVX2

//go:noescape
func colSumF64F32(p *float64, x *float32, rows, f int)

//go:noescape
func colSqDevF64F32(p *float64, x *float32, mean *float64, rows, f int)

//go:noescape
func dySumsF64F32(ps, px *float64, x, dy *float32, rows, f int)

//go:noescape
func colSumF32(p, x *float32, rows, f int)

//go:noescape
func shiftRowsF32(y, x, m, a, b *float32, rows, f, relu int)

//go:noescape
func affineRowsF32(y, u, v, m, a, c, b *float32, rows, f int)

//go:noescape
func addRowsBiasF32(y, b *float32, rows, f int)

//go:noescape
func reluGradF32(y, out, dy *float32, n int)
