//go:build amd64 && !purego

package sddmm

// dotPairsF32 writes to o, for each of the n edges i, the h dot products
// of the heads of d floats of row la[i] of x and row ra[i] of y (rows of
// h*d floats), in the order of dot: the products of even and of odd
// positions summed apart, each in order from +0 without fusing a product
// into its sum, then added. It prefetches the rows of edge i+dist (when
// that is under n) while it computes edge i (dot_amd64.s).
//
//go:noescape
func dotPairsF32(o, x, y *float32, la, ra *int, n, h, d, dist int)
