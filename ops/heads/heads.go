package heads

import (
	"fmt"

	"github.com/gnngo/gnn/internal/num"
	"github.com/gnngo/gnn/internal/parallel"
)

// Dot sets out[n*h+k] (n nodes, h heads) to the dot product of z's row
// (n*h+k) of f features with row k of a: the attention scores.
func Dot[T num.Float](out, z, a []T, n, h, f int) {
	check("Dot", n, h, f, len(out), len(z), len(a))
	parallel.For(n, 256, func(lo, hi int) {
		if f == 8 {
			dot8(out[lo*h:hi*h], z[lo*h*8:hi*h*8], a[:h*8])
			return
		}
		for i := lo * h; i < hi*h; i++ {
			row, av := z[i*f:(i+1)*f], a[(i%h)*f:(i%h+1)*f]
			var s T
			for j, v := range row {
				s += v * av[j]
			}
			out[i] = s
		}
	})
}

// dot8 is Dot on heads of 8 features, unrolled, in the order of the
// general loop: o[i] is the dot product of row i of z with row i%h of a,
// h = len(a)/8.
func dot8[T num.Float](o, z, a []T) {
	h := len(a) / 8
	z = z[:len(o)*8]
	for i := range o {
		o[i] = num.Dot8((*[8]T)(z[i*8:]), (*[8]T)(a[(i%h)*8:]))
	}
}

// Scale sets out (n, h, f) to ds[n,h] a[h,f]: the gradient of Dot with
// respect to z, for the score gradients ds (n, h).
func Scale[T num.Float](out, a, ds []T, n, h, f int) {
	check("Scale", n, h, f, len(ds), len(out), len(a))
	parallel.For(n, 256, func(lo, hi int) {
		for i := lo * h; i < hi*h; i++ {
			d, av := ds[i], a[(i%h)*f:(i%h+1)*f]
			row := out[i*f : (i+1)*f]
			for j, v := range av {
				row[j] = d * v
			}
		}
	})
}

// Sum sets out (h, f) to sum_n ds[n,h] z[n,h,f]: the gradient of Dot with
// respect to a, summed over fixed chunks of nodes in order.
func Sum[T num.Float](out, z, ds []T, n, h, f int) {
	check("Sum", n, h, f, len(ds), len(z), len(out))
	parallel.Sum(out, n, 1024, func(acc []T, lo, hi int) {
		for i := lo * h; i < hi*h; i++ {
			d, row, av := ds[i], z[i*f:(i+1)*f], acc[(i%h)*f:(i%h+1)*f]
			for j, v := range row {
				av[j] += d * v
			}
		}
	})
}

// check panics, naming the kernel, when the lengths of the scores (n*h),
// the features (n*h*f) and the vector (h*f) do not match the sizes: a
// caller's bug, as in the other kernel packages.
func check(name string, n, h, f, scores, feats, vec int) {
	if n < 0 || h <= 0 || f <= 0 || scores != n*h || feats != n*h*f || vec != h*f {
		panic(fmt.Sprintf("heads: %s: lengths %d, %d, %d for %d nodes, %d heads of %d features", name, scores, feats, vec, n, h, f))
	}
}
