//go:build amd64 && !purego

package vm

import "github.com/gnngo/gnn/internal/cpu"

// useAddAVX2 selects the AVX2 kernel of add_amd64.s for float32 sums.
var useAddAVX2 = cpu.X86HasAVX2

//go:noescape
func addF32(c, a, b *float32, n int)
