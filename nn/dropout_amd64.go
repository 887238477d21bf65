//go:build amd64 && !purego

package nn

import "github.com/gnngo/gnn/internal/cpu"

// useMaskAVX2 selects maskF32 for applyMask on float32. Tests turn it off
// to check the Go loop on the same machine.
var useMaskAVX2 = cpu.X86HasAVX2

// maskF32 is applyMask's training loop over groups of 16 float32 elements
// (four hashes of mix): it sets y[i] to x[i] (max(x[i], 0) when relu is
// nonzero) times scale, or to +0 where the element's 16-bit draw is under
// threshold, for groups*16 elements. The element at y and x is element
// 4q of the whole, key is mix's combination of seed and step, and ctr is
// (q+1) times mix's index multiplier (wrapping): the hashes are those of
// mix, four in the lanes of a vector (dropout_amd64.s). threshold is at
// most 0xffff.
//
//go:noescape
func maskF32(y, x *float32, groups int, key, ctr uint64, threshold uint64, scale float32, relu int)
