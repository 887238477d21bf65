// Package heads holds the kernels of the per-head dot products in GAT's
// attention: the scores s[n,h] = sum_f z[n,h,f] a[h,f] of projected
// features z (N, H, F) under an attention vector a (H, F), and their two
// gradients, dz = ds ⊗ a and da = sum_n ds[n,h] z[n,h,f]. They are the one
// definition of that maths on the CPU: package nn/gat's head-score op and
// dist/sar's distributed GAT both call them (the device runs its own
// kernel, gpu's HeadDot, on the shapes of the same op).
//
// The kernels are generic Go over float32 and float64, parallel over
// nodes, and give the same bits for any GOMAXPROCS: every score is summed
// over f in order, and Sum adds its per-chunk partial sums in chunk order.
package heads
