package parallel

import (
	"sync"

	"github.com/gnngo/gnn/internal/num"
)

// scratch holds temporary slices between kernel calls, one pool per element
// type, so that a kernel run every epoch does not allocate its temporaries
// every epoch.
var scratch32, scratch64 sync.Pool

// Scratch returns a slice of n elements for temporary use, with arbitrary
// contents (clear it if the kernel accumulates into it). Give it back
// with PutScratch when done; it may be called from several goroutines.
func Scratch[T num.Float](n int) []T {
	p := pool[T]()
	if s, ok := p.Get().(*[]T); ok {
		if cap(*s) >= n {
			return (*s)[:n]
		}
		p.Put(s) // too small: leave it for a smaller request
	}
	return make([]T, n)
}

// PutScratch gives s, from Scratch, back for reuse; s must not be used
// afterwards.
func PutScratch[T num.Float](s []T) {
	if cap(s) == 0 {
		return
	}
	pool[T]().Put(&s)
}

func pool[T num.Float]() *sync.Pool {
	var zero T
	if _, ok := any(zero).(float32); ok {
		return &scratch32
	}
	return &scratch64
}
