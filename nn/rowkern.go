package nn

import "github.com/gnngo/gnn/internal/num"

// Row kernels: the loops over the rows of an (n, f) matrix that batch
// norm, bias and ReLU run, each over a block of whole rows. For float32
// rows a multiple of 8 wide, on amd64 with AVX2, they run in assembly
// (rowkern_amd64.s) with the same operations in the same order as the Go
// loops below, so both give the same bits; elsewhere they run in Go.

// rowAccel reports whether the AVX2 kernels take rows of f elements of T.
func rowAccel[T num.Float](f int) bool {
	var z T
	_, ok := any(z).(float32)
	return ok && useRowAVX2 && f > 0 && f%8 == 0
}

// f32 returns s as a []float32 when T is float32.
func f32[T num.Float](s []T) []float32 { v, _ := any(s).([]float32); return v }

// addColSums adds to p[j], in float64 and row by row, column j of the
// rows of x (a whole number of rows f wide).
func addColSums[T num.Float](p []float64, x []T, f int) {
	rows := len(x) / f
	if rows > 0 && rowAccel[T](f) {
		colSumF64F32(&p[0], &f32(x)[0], rows, f)
		return
	}
	for i := range rows {
		for j, v := range x[i*f : (i+1)*f] {
			p[j] += float64(v)
		}
	}
}

// addColSqDev adds to p[j], in float64 and row by row, the square of
// column j of the rows of x minus mean[j].
func addColSqDev[T num.Float](p []float64, x []T, mean []float64, f int) {
	rows := len(x) / f
	if rows > 0 && rowAccel[T](f) {
		colSqDevF64F32(&p[0], &f32(x)[0], &mean[0], rows, f)
		return
	}
	for i := range rows {
		for j, v := range x[i*f : (i+1)*f] {
			d := float64(v) - mean[j]
			p[j] += d * d
		}
	}
}

// addDySums adds to ps[j] column j of dy and to px[j] that of dy times x,
// in float64 and row by row, over the rows of x and dy.
func addDySums[T num.Float](ps, px []float64, x, dy []T, f int) {
	rows := len(x) / f
	if rows > 0 && rowAccel[T](f) {
		dySumsF64F32(&ps[0], &px[0], &f32(x)[0], &f32(dy)[0], rows, f)
		return
	}
	for i := range rows {
		xr, dr := x[i*f:(i+1)*f], dy[i*f:(i+1)*f]
		for j, d := range dr {
			ps[j] += float64(d)
			px[j] += float64(d) * float64(xr[j])
		}
	}
}

// addColSumsT adds to p[j], in T and row by row, column j of the rows of
// x.
func addColSumsT[T num.Float](p, x []T, f int) {
	rows := len(x) / f
	if rows > 0 && rowAccel[T](f) {
		colSumF32(&f32(p)[0], &f32(x)[0], rows, f)
		return
	}
	for i := range rows {
		for j, v := range x[i*f : (i+1)*f] {
			p[j] += v
		}
	}
}

// shiftRows sets y = a (x - m) + 0 + b per column, rounding to T after
// every operation, then max(y, 0) when relu is set, for the rows of x
// (the zero turns -0 into +0, as BatchNorm's zero shift does).
func shiftRows[T num.Float](y, x, m, a, b []T, f int, relu bool) {
	rows := len(x) / f
	if rows > 0 && rowAccel[T](f) {
		r := 0
		if relu {
			r = 1
		}
		shiftRowsF32(&f32(y)[0], &f32(x)[0], &f32(m)[0], &f32(a)[0], &f32(b)[0], rows, f, r)
		return
	}
	var zero T
	m, a, b = m[:f], a[:f], b[:f]
	for i := range rows {
		yr, xr := y[i*f:(i+1)*f], x[i*f:(i+1)*f]
		for j := range yr {
			v := a[j]*(xr[j]-m[j]) + zero
			v = v + b[j]
			if relu {
				v = max(v, 0)
			}
			yr[j] = v
		}
	}
}

// affineRowsDy sets y = a u + c (v - m) + b per column, for the rows of v
// and u.
func affineRowsDy[T num.Float](y, u, v, m, a, c, b []T, f int) {
	rows := len(v) / f
	if rows > 0 && rowAccel[T](f) {
		affineRowsF32(&f32(y)[0], &f32(u)[0], &f32(v)[0], &f32(m)[0], &f32(a)[0], &f32(c)[0], &f32(b)[0], rows, f)
		return
	}
	for i := range rows {
		yr, ur, vr := y[i*f:(i+1)*f], u[i*f:(i+1)*f], v[i*f:(i+1)*f]
		for j := range yr {
			yr[j] = a[j]*ur[j] + c[j]*(vr[j]-m[j]) + b[j]
		}
	}
}

// addBiasRows adds b to every row of y.
func addBiasRows[T num.Float](y, b []T, f int) {
	rows := len(y) / f
	if rows > 0 && rowAccel[T](f) {
		addRowsBiasF32(&f32(y)[0], &f32(b)[0], rows, f)
		return
	}
	for r := range rows {
		yr := y[r*f : (r+1)*f]
		for j, v := range b {
			yr[j] = yr[j] + v
		}
	}
}

// reluGrad sets y to dy where out is positive and to 0 elsewhere (NaN
// included).
func reluGrad[T num.Float](y, out, dy []T) {
	n := len(out)
	done := 0
	if n >= 8 && rowAccel[T](8) {
		done = n &^ 7
		reluGradF32(&f32(y)[0], &f32(out)[0], &f32(dy)[0], done)
	}
	for i := done; i < n; i++ {
		if out[i] > 0 {
			y[i] = dy[i]
		} else {
			y[i] = 0
		}
	}
}
