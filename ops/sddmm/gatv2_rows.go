package sddmm

import "github.com/gnngo/gnn/internal/num"

// The per-edge computations of GATv2 in Go, in the order and with the
// single IEEE operations of the AVX2 kernels (gatv2_amd64.s): products are
// converted to T before they are added, which keeps the compiler from
// fusing them into FMAs the kernels do not use.

// pre sets t to the vector before the LeakyReLU of edge e, whose source
// and destination rows are l and r: l + r, then the edge features' terms
// added one feature at a time.
func (k *GATv2[T]) pre(t []T, e int, l, r []T) {
	w := len(t)
	l, r = l[:w], r[:w]
	for i := range t {
		t[i] = l[i] + r[i]
	}
	for d := range k.EDim {
		x := k.EF[e*k.EDim+d]
		for i, y := range k.WE[d*w : (d+1)*w] {
			t[i] += T(x * y)
		}
	}
}

// leaky is the LeakyReLU: x where x > 0, slope*x elsewhere.
func leaky[T num.Float](x, slope T) T {
	if x > 0 {
		return x
	}
	return x * slope
}

// score sets out[h] (H values) to the scores of an edge from its t, which
// it overwrites with the products A LeakyReLU(t).
func (k *GATv2[T]) score(out, t []T) {
	f := k.Feat
	a := k.A[:len(t)]
	for j, x := range t {
		t[j] = a[j] * leaky(x, k.Slope)
	}
	for h := range out {
		out[h] = headSum(t[h*f : (h+1)*f])
	}
}

// headSum returns the sum of a head's products p: a balanced tree for 1,
// 2, 4 and 8 elements; for multiples of 8, eight lanes (element j in lane
// j%8) summed in order, then the tree of the lanes; in order otherwise.
func headSum[T num.Float](p []T) T {
	switch n := len(p); {
	case n == 1:
		return p[0]
	case n == 2:
		return p[0] + p[1]
	case n == 4:
		return (p[0] + p[1]) + (p[2] + p[3])
	case n%8 == 0:
		var a [8]T
		copy(a[:], p[:8])
		for i := 8; i < n; i += 8 {
			b := p[i : i+8]
			for l := range a {
				a[l] += b[l]
			}
		}
		return tree8(&a)
	default:
		s := p[0]
		for _, x := range p[1:] {
			s += x
		}
		return s
	}
}

// tree8 returns ((a0+a1)+(a2+a3))+((a4+a5)+(a6+a7)).
func tree8[T num.Float](a *[8]T) T {
	return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
}

// msg sets m to the gradient of the loss with respect to t of an edge
// whose score gradients are g (H values): g[h] A, times the slope where
// t <= 0.
func (k *GATv2[T]) msg(m, t, g []T) {
	f := k.Feat
	a := k.A[:len(t)]
	m = m[:len(t)]
	for h, x := range g {
		for j := h * f; j < (h+1)*f; j++ {
			d := x * a[j]
			if !(t[j] > 0) {
				d *= k.Slope
			}
			m[j] = d
		}
	}
}

// gradA adds the edge's terms g[h] LeakyReLU(t) to the partial sum pa.
func (k *GATv2[T]) gradA(pa, t, g []T) {
	f := k.Feat
	pa = pa[:len(t)]
	for h, x := range g {
		for j := h * f; j < (h+1)*f; j++ {
			pa[j] += T(x * leaky(t[j], k.Slope))
		}
	}
}

// gradEF sets out (D values) to the gradient of the edge's features: the
// products of WE's rows with m, each summed in eight lanes (element j in
// lane j%8) and then as a tree of the lanes.
func (k *GATv2[T]) gradEF(out, m []T) {
	w := len(m)
	for d := range out {
		var a [8]T
		for j, y := range k.WE[d*w : (d+1)*w] {
			a[j%8] += T(m[j] * y)
		}
		out[d] = tree8(&a)
	}
}

// gradWE adds the outer product of edge e's features and m to the partial
// sum pwe.
func (k *GATv2[T]) gradWE(pwe, m []T, e int) {
	w := len(m)
	for d := range k.EDim {
		x := k.EF[e*k.EDim+d]
		row := pwe[d*w : (d+1)*w]
		for j, y := range m {
			row[j] += T(x * y)
		}
	}
}
