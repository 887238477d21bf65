package rgcn

import (
	"sync"
	"time"
)

// scratchPool keeps SegmentMatMul's scratch from one call to the next. A
// sync.Pool, which it replaces, drops what it holds at every garbage
// collection, and a model whose relations touch millions of rows then
// made its scratch again after each one: garbage the size of the largest
// relation's gathered rows, each epoch, which grows the heap Go lets
// build up before it collects. The pool keeps up to scratchKeep sets
// across collections and lets them go once no call has taken one for
// scratchIdle (when training is over), so that they do not outlive the
// model's use. It is safe for concurrent use.
type scratchPool struct {
	mu    sync.Mutex
	free  []any
	timer *time.Timer
}

// scratchKeep is the most sets kept: two machines running at once.
const scratchKeep = 2

// scratchIdle is how long kept sets wait for a call (a variable for
// tests).
var scratchIdle = 30 * time.Second

// get returns a kept set of which fits, or nil.
func (p *scratchPool) get(fits func(any) bool) any {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := len(p.free) - 1; i >= 0; i-- {
		if b := p.free[i]; fits(b) {
			p.free = append(p.free[:i], p.free[i+1:]...)
			return b
		}
	}
	return nil
}

// Put keeps b for a later call, dropping the oldest set when scratchKeep
// are kept, and starts the idle clock again.
func (p *scratchPool) Put(b any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) == scratchKeep {
		p.free = append(p.free[:0], p.free[1:]...)
	}
	p.free = append(p.free, b)
	if p.timer == nil {
		p.timer = time.AfterFunc(scratchIdle, p.drop)
	} else {
		p.timer.Reset(scratchIdle)
	}
}

// drop lets every kept set go.
func (p *scratchPool) drop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.free)
	p.free = p.free[:0]
}
