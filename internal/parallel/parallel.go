package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Workers returns the number of goroutines For uses: GOMAXPROCS.
func Workers() int { return runtime.GOMAXPROCS(0) }

// For calls fn(lo, hi) over contiguous chunks that cover [0, n). It runs the
// chunks on up to Workers() goroutines and returns when all are done. Ranges
// shorter than grain run on the calling goroutine. fn must be safe to call
// concurrently on disjoint chunks.
func For(n, grain int, fn func(lo, hi int)) {
	if n <= 0 {
		return
	}
	w := Workers()
	if grain < 1 {
		grain = 1
	}
	if w == 1 || n <= grain {
		fn(0, n)
		return
	}
	// Several chunks per worker even out rows of unequal cost (skewed
	// degrees); chunks are handed out in order from a shared counter.
	chunks := w * 8
	if max := (n + grain - 1) / grain; chunks > max {
		chunks = max
	}
	size := (n + chunks - 1) / chunks
	var next atomic.Int64
	take := func() (int, int, bool) {
		lo := int(next.Add(int64(size))) - size
		if lo >= n {
			return 0, 0, false
		}
		return lo, min(lo+size, n), true
	}
	var wg sync.WaitGroup
	for range min(w, chunks) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				lo, hi, ok := take()
				if !ok {
					return
				}
				fn(lo, hi)
			}
		}()
	}
	wg.Wait()
}

// Split returns the boundaries of k contiguous, nearly equal parts of [0, n):
// part i is [b[i], b[i+1]). It is the fixed partition used where each worker
// owns scratch space (per-worker counters), so results do not depend on
// scheduling.
func Split(n, k int) []int {
	if k < 1 {
		k = 1
	}
	b := make([]int, k+1)
	for i := range k + 1 {
		b[i] = int(int64(n) * int64(i) / int64(k))
	}
	return b
}

// Run calls fn(i) for i in [0, k) on k goroutines and waits for all.
func Run(k int, fn func(i int)) {
	if k <= 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for i := range k {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(i)
		}()
	}
	wg.Wait()
}
