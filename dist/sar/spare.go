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

// maxByteSpares is how many buffers a byteSpares keeps: a sequential
// pass has at most a few messages in flight (the shard being visited, the
// next one being fetched, the gradients being returned).
const maxByteSpares = 6

// byteSpares holds message buffers between the rounds and runs of a
// Graph's aggregations: the rows fetched, sent and received, which
// otherwise would be garbage after every round. It is safe for
// concurrent use (a round's fetch and return run beside its visit).
type byteSpares struct {
	mu   sync.Mutex
	free [][]byte
}

// take returns n bytes: the smallest spare that holds them, or new ones.
// Their content is undefined.
func (s *byteSpares) take(n int) []byte {
	s.mu.Lock()
	best := -1
	for i, b := range s.free {
		if cap(b) >= n && (best < 0 || cap(b) < cap(s.free[best])) {
			best = i
		}
	}
	if best >= 0 {
		b := s.free[best]
		s.free = slices.Delete(s.free, best, best+1)
		s.mu.Unlock()
		return b[:n]
	}
	s.mu.Unlock()
	return make([]byte, n)
}

// put gives b back (nil is ignored); past maxByteSpares the smallest
// buffer is dropped.
func (s *byteSpares) put(b []byte) {
	if cap(b) == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.free = append(s.free, b)
	if len(s.free) > maxByteSpares {
		small := 0
		for i, f := range s.free {
			if cap(f) < cap(s.free[small]) {
				small = i
			}
		}
		s.free = slices.Delete(s.free, small, small+1)
	}
}
