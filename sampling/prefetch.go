package sampling

import (
	"iter"
	"sync"
	"sync/atomic"
)

// prefetch returns the sequence produce(0), ..., produce(n-1) for a range
// loop, produced by ahead goroutines at most ahead items in advance of the
// loop body: with ahead 1, item b+1 is produced while the loop body works
// on item b; with 2, two items are produced at once, which keeps the cores
// busy through the serial parts of producing one. Items are yielded in
// order whatever the timing, so the sequence is that of a plain loop.
// Leaving the loop early stops the goroutines, after the items they are
// producing; an error ends the sequence after it is yielded. Loader and
// EdgeLoader iterate their epochs with it.
func prefetch[T any](n, ahead int, produce func(b int) (T, error)) iter.Seq2[T, error] {
	return func(yield func(T, error) bool) {
		type result struct {
			v   T
			err error
		}
		// A token is held by every item taken and not yet yielded, so the
		// items in flight are at most ahead consecutive ones: item b's slot
		// b%ahead is free when b is taken, and item b is taken before the
		// loop waits for it.
		tokens := make(chan struct{}, ahead)
		slots := make([]chan result, ahead)
		for i := range slots {
			slots[i] = make(chan result, 1)
		}
		done := make(chan struct{})
		var next atomic.Int64
		var wg sync.WaitGroup
		for range ahead {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case tokens <- struct{}{}:
					case <-done:
						return
					}
					b := int(next.Add(1) - 1)
					if b >= n {
						return
					}
					v, err := produce(b)
					slots[b%ahead] <- result{v, err}
				}
			}()
		}
		defer func() {
			close(done)
			wg.Wait()
		}()
		for b := range n {
			r := <-slots[b%ahead]
			<-tokens
			if !yield(r.v, r.err) || r.err != nil {
				return
			}
		}
	}
}
