package opkit

import (
	"fmt"
	"slices"
	"sync"
)

// Handover is the one supported way for an op to pass values to the op
// that consumes them other than as its output: a backward op that computes
// the gradients of several inputs in one sweep keeps the extra ones here
// for the ops that hand them on, and the Grad of an op's part records its
// output gradient here for the Grad of the node that collects them (see
// package mp's row groups). A Spec itself stays static configuration; it
// may hold a *Handover, never the values.
//
// Values are kept per run under a key K that names the run: the value the
// producing op returned, which the consuming op receives as a graph input
// (so it runs after the producer, and two machines running the same
// graph at once use two keys), or, at graph-building time, the node or
// group whose Grad takes them, within one gorgonia.Grad. Each run holds
// numbered slots; Take and TakeAll clear what they return and drop the run
// when it is empty, so nothing outlives the run that reads it. It is safe
// for concurrent use.
type Handover[K comparable, V any] struct {
	mu   sync.Mutex
	runs map[K]map[int]V
}

// Put sets slot i of run k to v. Setting a slot twice before it is taken
// is an error: a value would be lost.
func (h *Handover[K, V]) Put(k K, i int, v V) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs == nil {
		h.runs = make(map[K]map[int]V)
	}
	r := h.runs[k]
	if r == nil {
		r = make(map[int]V)
		h.runs[k] = r
	}
	if _, ok := r[i]; ok {
		return fmt.Errorf("opkit: hand-over slot %d set twice before it was taken", i)
	}
	r[i] = v
	return nil
}

// Begin starts run k afresh, dropping what an earlier run under the same
// key left untaken (a consumer the machine did not run). A producer whose
// result, the key, lives in a buffer reused from run to run (nn/vm) calls
// it before its Puts, so that such leftovers are neither an error nor
// kept.
func (h *Handover[K, V]) Begin(k K) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.runs, k)
}

// Take returns slot i of run k and clears it; ok is false when the slot is
// not set (its producer has not run, or its value was already taken).
func (h *Handover[K, V]) Take(k K, i int) (v V, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.runs[k]
	if v, ok = r[i]; !ok {
		return v, false
	}
	delete(r, i)
	if len(r) == 0 {
		delete(h.runs, k)
	}
	return v, true
}

// TakeAll returns the set slots of run k in increasing order, with their
// values, and clears the run.
func (h *Handover[K, V]) TakeAll(k K) (slots []int, vals []V) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.runs[k]
	delete(h.runs, k)
	for i := range r {
		slots = append(slots, i)
	}
	slices.Sort(slots)
	for _, i := range slots {
		vals = append(vals, r[i])
	}
	return slots, vals
}

// Len returns the number of runs holding values, for tests that check that
// none is left behind.
func (h *Handover[K, V]) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.runs)
}
