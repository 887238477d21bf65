package sampling

import "iter"

// prefetch returns the sequence produce(0), ..., produce(n-1) for a range
// loop, producing item b+1 in a goroutine while the loop body works on item
// b. Leaving the loop early stops the goroutine; an error ends the sequence
// after it is yielded. Loader and EdgeLoader iterate their epochs with it.
func prefetch[T any](n int, produce func(b int) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		type result struct {
			v   T
			err error
		}
		next := make(chan result) // unbuffered: one item ahead of the loop body
		done := make(chan struct{})
		exited := make(chan struct{})
		go func() {
			defer close(exited)
			for b := range n {
				v, err := produce(b)
				select {
				case next <- result{v, err}:
				case <-done:
					return
				}
				if err != nil {
					return
				}
			}
			close(next)
		}()
		defer func() {
			close(done)
			<-exited
		}()
		for r := range next {
			if !yield(r.v, r.err) || r.err != nil {
				return
			}
		}
	}
}
