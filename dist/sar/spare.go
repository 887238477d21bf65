package sar

import (
	"slices"
	"sync"

	"github.com/gnngo/gnn/internal/num"
)

// spares holds an op's working buffers between its calls, so that a call
// of the same sizes as an earlier one allocates none (the op's output
// comes from the machine: opkit.Into). Calls running at once (two machines
// over one graph) each take their own.
type spares struct {
	mu   sync.Mutex
	free []any
}

// takeSpare returns a spare *B of s, or a new one.
func takeSpare[B any](s *spares) *B {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.free) - 1; i >= 0; i-- {
		if b, ok := s.free[i].(*B); ok {
			s.free = slices.Delete(s.free, i, i+1)
			return b
		}
	}
	return new(B)
}

// put gives b back to s for a later call.
func (s *spares) put(b any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free = append(s.free, b)
}

// zeroed returns the first n elements of *buf, zeroed, first growing *buf
// to n when it is shorter: a buffer as make([]T, n) gives, in memory kept
// from one call to the next.
func zeroed[T num.Float](buf *[]T, n int) []T {
	if cap(*buf) < n {
		*buf = make([]T, n)
		return *buf
	}
	*buf = (*buf)[:n]
	clear(*buf)
	return *buf
}
