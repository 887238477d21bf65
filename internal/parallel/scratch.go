package parallel

import (
	"math/bits"
	"sync"

	"github.com/gnngo/gnn/internal/num"
)

// scratch holds temporary slices between kernel calls, per element type
// and power-of-two capacity, so that a kernel run every epoch does not
// allocate its temporaries every epoch.
var scratch32, scratch64 [64]sync.Pool

// Scratch returns a slice of n elements for temporary use, with arbitrary
// contents (clear it if the kernel accumulates into it). Give it back
// with PutScratch when done; it may be called from several goroutines.
func Scratch[T num.Float](n int) []T {
	if n <= 0 {
		return nil
	}
	c := bits.Len(uint(n - 1)) // the capacity class: 1<<c >= n
	if s, ok := pools[T]()[c].Get().(*[]T); ok {
		return (*s)[:n]
	}
	return make([]T, n, 1<<c)
}

// PutScratch gives s, from Scratch, back for reuse; s must not be used
// afterwards.
func PutScratch[T num.Float](s []T) {
	c := cap(s)
	if c == 0 || c&(c-1) != 0 {
		return // not from Scratch
	}
	pools[T]()[bits.Len(uint(c-1))].Put(&s)
}

func pools[T num.Float]() *[64]sync.Pool {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return &scratch32
	}
	return &scratch64
}
