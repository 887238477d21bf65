package rgcn

import (
	"runtime"
	"testing"
	"time"
)

// TestScratchPool checks that kept scratch survives garbage collections,
// that at most scratchKeep sets are kept, the newest, that get takes only
// a set that fits, and that the sets go after scratchIdle without a call.
func TestScratchPool(t *testing.T) {
	var p scratchPool
	a, b, c := new(buffers[float32]), new(buffers[float32]), new(buffers[float64])
	p.Put(a)
	runtime.GC()
	runtime.GC()
	if got := p.get(func(x any) bool { _, ok := x.(*buffers[float32]); return ok }); got != any(a) {
		t.Fatalf("after two collections get returned %p, want the set put, %p", got, a)
	}
	p.Put(a)
	p.Put(b)
	p.Put(c) // drops a, the oldest
	if got := p.get(func(x any) bool { _, ok := x.(*buffers[float32]); return ok }); got != any(b) {
		t.Fatalf("get returned %p, want %p (a float32 set, the newest kept)", got, b)
	}
	if got := p.get(func(x any) bool { _, ok := x.(*buffers[float32]); return ok }); got != nil {
		t.Fatalf("get returned %p; the oldest set should have been dropped", got)
	}
	if got := p.get(func(x any) bool { _, ok := x.(*buffers[float64]); return ok }); got != any(c) {
		t.Fatalf("get returned %p, want the float64 set %p", got, c)
	}

	old := scratchIdle
	scratchIdle = 20 * time.Millisecond
	defer func() { scratchIdle = old }()
	var q scratchPool
	q.Put(a)
	for range 500 {
		q.mu.Lock()
		n := len(q.free)
		q.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("kept scratch was not let go after the idle time")
}
