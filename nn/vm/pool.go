package vm

import "gorgonia.org/tensor"

// Pool holds the buffers of one or more machines (WithPool) between
// their runs, by dtype and number of elements. A buffer freed last is
// taken first, so machines that run the same steps in the same order get
// the same buffers every time. A value with no free buffer of its size
// takes the smallest free one of up to four times its size (best fit), as a
// view of the buffer's first elements, rather than a new buffer: the
// pool then holds about what the busiest moment of a run needs, not a
// buffer of every size a run uses.
type Pool struct {
	free  map[key][]*tensor.Dense         // free buffers by dtype and size
	whole map[*tensor.Dense]*tensor.Dense // a view handed out: its buffer
	stats PoolStats
}

// PoolStats counts a pool's buffers.
type PoolStats struct {
	Buffers     int   // buffers allocated, over all runs
	BufferBytes int64 // their total size
	InUse       int64 // bytes of buffers holding values now
	PeakInUse   int64 // the most bytes of buffers holding values at once
}

// NewPool returns an empty pool.
func NewPool() *Pool {
	return &Pool{free: map[key][]*tensor.Dense{}, whole: map[*tensor.Dense]*tensor.Dense{}}
}

// Stats returns what the pool allocated and holds.
func (p *Pool) Stats() PoolStats { return p.stats }

// get returns a buffer of k shaped s: the last one freed of k's size, or
// a view of the best fit (fit), or a new one.
func (p *Pool) get(k key, s tensor.Shape) *tensor.Dense {
	var t *tensor.Dense
	bk := k
	if free := p.free[k]; len(free) > 0 {
		t = free[len(free)-1]
		p.free[k] = free[:len(free)-1]
		if !t.Shape().Eq(s) {
			if err := t.Reshape(s...); err != nil {
				t = nil
			}
		}
	} else if fk, ok := p.fit(k); ok {
		free := p.free[fk]
		whole := free[len(free)-1]
		if t = view(whole, k.n, s); t != nil {
			p.free[fk] = free[:len(free)-1]
			p.whole[t] = whole
			bk = fk
		}
	}
	if t == nil {
		p.stats.Buffers++
		p.stats.BufferBytes += k.bytes()
		t = tensor.New(tensor.WithShape(s.Clone()...), tensor.Of(k.dt))
	}
	p.stats.InUse += bk.bytes()
	p.stats.PeakInUse = max(p.stats.PeakInUse, p.stats.InUse)
	return t
}

// fit returns the size of the smallest free buffer of k's dtype that
// holds more than k.n and at most 4·k.n elements, if there is one. The
// answer depends on the free buffers alone, not on the map's order.
func (p *Pool) fit(k key) (key, bool) {
	best, found := key{}, false
	for fk, free := range p.free {
		if fk.dt == k.dt && fk.n > k.n && fk.n <= 4*k.n && len(free) > 0 && (!found || fk.n < best.n) {
			best, found = fk, true
		}
	}
	return best, found
}

// view returns a tensor of shape s over the first n elements of whole,
// or nil for a dtype it does not slice.
func view(whole *tensor.Dense, n int, s tensor.Shape) *tensor.Dense {
	var data any
	switch d := whole.Data().(type) {
	case []float32:
		data = d[:n]
	case []float64:
		data = d[:n]
	default:
		return nil
	}
	return tensor.New(tensor.WithShape(s.Clone()...), tensor.WithBacking(data))
}

// put gives t back (the whole buffer, when t is a view of one).
func (p *Pool) put(t *tensor.Dense) {
	if whole, ok := p.whole[t]; ok {
		delete(p.whole, t)
		t = whole
	}
	k := key{t.Dtype(), t.Shape().TotalSize()}
	p.stats.InUse -= k.bytes()
	p.free[k] = append(p.free[k], t)
}

// forget ends the pool's claim on t, whose holder keeps it: when t is a
// view, its buffer is not given back with it (the buffer still counts as
// in use, as a kept buffer does).
func (p *Pool) forget(t *tensor.Dense) { delete(p.whole, t) }

func (k key) bytes() int64 { return int64(k.n) * int64(k.dt.Size()) }
