//go:build amd64 && !purego

package edgesoftmax

// The AVX2 and FMA kernels of attention_amd64.s, used when useAVX2 is set.

// attnFwd8 is Attention for one destination group of n >= 1 edges with
// eight heads: scores into buf (n rows), quotients into out at the edge
// IDs (attention_amd64.s).
//
//go:noescape
func attnFwd8(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32)

// attnBwd8 is AttentionBackward for one destination group of n >= 1 edges
// with eight heads (attention_amd64.s).
//
//go:noescape
func attnBwd8(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32)

// expShift1 sets x[i] = e^(x[i]-m) for i < n, n a multiple of 8, and
// returns the sum of the exponentials (attention_amd64.s).
//
//go:noescape
func expShift1(x *float32, n int, m float32) float64

// The kernels of attention_narrow_amd64.s: attnFwd8 and attnBwd8 for two
// and four heads, buf holding n rows of 2 or 4 floats.

//go:noescape
func attnFwd2(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32)

//go:noescape
func attnFwd4(out, el, er *float32, idx, eids *int32, n int, buf *float32, slope float32)

//go:noescape
func attnBwd2(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32)

//go:noescape
func attnBwd4(ds, el, er, y, dy *float32, idx, eids *int32, n int, slope float32)
