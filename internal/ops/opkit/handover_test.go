package opkit

import (
	"slices"
	"sync"
	"testing"
)

// TestHandover checks the slots of a run: set once, taken once, the run
// dropped when empty, and runs kept apart.
func TestHandover(t *testing.T) {
	var h Handover[string, int]
	if _, ok := h.Take("a", 0); ok {
		t.Fatal("Take on an empty hand-over found a value")
	}
	for i, v := range []int{10, 11} {
		if err := h.Put("a", i, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := h.Put("b", 3, 30); err != nil {
		t.Fatal(err)
	}
	if err := h.Put("a", 1, 99); err == nil {
		t.Fatal("a slot set twice gave no error")
	}
	if v, ok := h.Take("a", 1); !ok || v != 11 {
		t.Fatalf("Take(a, 1) = %d, %v, want 11, true", v, ok)
	}
	if _, ok := h.Take("a", 1); ok {
		t.Fatal("a slot was taken twice")
	}
	if h.Len() != 2 {
		t.Fatalf("%d runs held, want 2", h.Len())
	}
	if v, ok := h.Take("a", 0); !ok || v != 10 {
		t.Fatalf("Take(a, 0) = %d, %v, want 10, true", v, ok)
	}
	if h.Len() != 1 {
		t.Fatalf("%d runs held after run a was emptied, want 1", h.Len())
	}
	for _, i := range []int{7, 0} {
		if err := h.Put("b", i, 30+i); err != nil {
			t.Fatal(err)
		}
	}
	slots, vals := h.TakeAll("b")
	if !slices.Equal(slots, []int{0, 3, 7}) || !slices.Equal(vals, []int{30, 30, 37}) {
		t.Fatalf("TakeAll(b) = %v, %v, want [0 3 7], [30 30 37]", slots, vals)
	}
	if h.Len() != 0 {
		t.Fatalf("%d runs left, want 0", h.Len())
	}
}

// TestHandoverBegin checks that Begin drops what an earlier run under the
// same key left untaken, and only that run.
func TestHandoverBegin(t *testing.T) {
	var h Handover[string, int]
	for _, k := range []string{"a", "b"} {
		if err := h.Put(k, 1, 5); err != nil {
			t.Fatal(err)
		}
	}
	h.Begin("a")
	if err := h.Put("a", 1, 6); err != nil {
		t.Fatalf("a slot left untaken by the run before Begin: %v", err)
	}
	if v, ok := h.Take("a", 1); !ok || v != 6 {
		t.Fatalf("Take(a, 1) = %d, %v, want 6, true", v, ok)
	}
	if v, ok := h.Take("b", 1); !ok || v != 5 {
		t.Fatalf("Take(b, 1) = %d, %v after Begin(a), want 5, true", v, ok)
	}
	h.Begin("c") // a key never used
	if h.Len() != 0 {
		t.Fatalf("%d runs left, want 0", h.Len())
	}
}

// TestHandoverConcurrent runs many runs at once, as concurrent machines
// running one graph do (go test -race).
func TestHandoverConcurrent(t *testing.T) {
	var h Handover[int, int]
	var wg sync.WaitGroup
	for r := range 16 {
		wg.Go(func() {
			for i := range 4 {
				if err := h.Put(r, i, r*10+i); err != nil {
					t.Error(err)
				}
			}
			for i := range 4 {
				if v, ok := h.Take(r, i); !ok || v != r*10+i {
					t.Errorf("run %d slot %d: %d, %v", r, i, v, ok)
				}
			}
		})
	}
	wg.Wait()
	if h.Len() != 0 {
		t.Fatalf("%d runs left, want 0", h.Len())
	}
}
