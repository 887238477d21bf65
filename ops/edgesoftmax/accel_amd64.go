//go:build amd64 && !purego

package edgesoftmax

import "github.com/gnngo/gnn/internal/cpu"

// The AVX2 kernels of rows_amd64.s; accel.go describes how they are driven.

// useAVX2 selects the AVX2 and FMA kernels for float32 rows. Tests turn it
// off to check the pure-Go paths on the same machine.
var useAVX2 = cpu.X86HasAVX2 && cpu.X86HasFMA

// forwardGroupF32 computes the softmax of one group, the n >= 1 edges
// eids[0..n), over rows of w >= 1 floats, prefetching the rows
// of the edge dist positions ahead while that is below avail.
//
//go:noescape
func forwardGroupF32(out, score *float32, eids *int32, n, avail, w, dist int)

// backwardGroupF32 computes the softmax gradient of one group, as
// forwardGroupF32 its softmax.
//
//go:noescape
func backwardGroupF32(ds, y, dy *float32, eids *int32, n, avail, w, dist int)

// The kernels of the streaming path (stream_amd64.s; stream.go drives them).

// maxScatterF32 raises the table rows m[keys[i]] to the rows of x.
//
//go:noescape
func maxScatterF32(m, x *float32, keys *int32, n, w int)

// expScatterF32 writes e^(x - m[keys[i]]) to out and adds it to s[keys[i]].
//
//go:noescape
func expScatterF32(out, x, m *float32, s *float64, keys *int32, n, w, dist int)

// scaleGatherF32 multiplies the rows of out by the table rows r[keys[i]].
//
//go:noescape
func scaleGatherF32(out, r *float32, keys *int32, n, w int)

// dotScatterF32 adds y*dy to the table rows s[keys[i]].
//
//go:noescape
func dotScatterF32(s *float64, y, dy *float32, keys *int32, n, w int)

// gradGatherF32 writes y*(dy - s[keys[i]]) to ds.
//
//go:noescape
func gradGatherF32(ds, y, dy *float32, s *float64, keys *int32, n, w int)

// attnGradGather8 writes the attention gradient given the sums s to ds.
//
//go:noescape
func attnGradGather8(ds, y, dy, el, er *float32, s *float64, src, dst *int32, n int, slope float32)

// The kernels of narrow_amd64.s: forwardGroupF32 and backwardGroupF32 for
// rows of 2 and 4 floats, with the same results.

//go:noescape
func forwardGroup2F32(out, score *float32, eids *int32, n int)

//go:noescape
func forwardGroup4F32(out, score *float32, eids *int32, n int)

//go:noescape
func backwardGroup2F32(ds, y, dy *float32, eids *int32, n int)

//go:noescape
func backwardGroup4F32(ds, y, dy *float32, eids *int32, n int)

// The streaming kernels of stream_narrow_amd64.s: those of stream_amd64.s
// for rows of w = 2 or 4 floats, with the same results.

//go:noescape
func maxScatterNF32(m, x *float32, keys *int32, n, w int)

//go:noescape
func expScatterNF32(out, x, m *float32, s *float64, keys *int32, n, w, dist int)

//go:noescape
func scaleGatherNF32(out, r *float32, keys *int32, n, w int)

//go:noescape
func dotScatterNF32(s *float64, y, dy *float32, keys *int32, n, w int)

//go:noescape
func gradGatherNF32(ds, y, dy *float32, s *float64, keys *int32, n, w int)

// attnGradGatherNF32 is attnGradGather8 for w = 2 or 4 heads.
//
//go:noescape
func attnGradGatherNF32(ds, y, dy, el, er *float32, s *float64, src, dst *int32, n, w int, slope float32)
