package parallel

import "github.com/gnngo/gnn/internal/num"

// Sum sets out to the sum over rows [0, n) of terms that fn adds into a
// partial sum as long as out: fn(partial, lo, hi) adds the terms of rows
// [lo, hi) to partial, which starts at zero. The rows are split into
// chunks of at least least rows, at most 64 of them, whose boundaries
// depend on n only; the chunks run in parallel, and their partial sums are
// added in chunk order, so the result has the same bits for any
// GOMAXPROCS. It allocates one partial sum per chunk.
func Sum[T num.Float](out []T, n, least int, fn func(partial []T, lo, hi int)) {
	clear(out)
	if n <= 0 {
		return
	}
	per := max(least, (n+63)/64, 1)
	chunks := (n + per - 1) / per
	w := len(out)
	partial := Scratch[T](chunks * w)
	defer PutScratch(partial)
	clear(partial)
	For(chunks, 1, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			fn(partial[ch*w:(ch+1)*w], ch*per, min((ch+1)*per, n))
		}
	})
	copy(out, partial[:w])
	for ch := 1; ch < chunks; ch++ {
		for i, v := range partial[ch*w : (ch+1)*w] {
			out[i] += v
		}
	}
}
