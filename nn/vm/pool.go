package vm

import "gorgonia.org/tensor"

// Pool holds the buffers of one or more machines (WithPool) between
// their runs, by dtype and number of elements. A buffer freed last is
// taken first, so machines that run the same steps in the same order get
// the same buffers every time.
type Pool struct {
	free  map[key][]*tensor.Dense
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
func NewPool() *Pool { return &Pool{free: map[key][]*tensor.Dense{}} }

// Stats returns what the pool allocated and holds.
func (p *Pool) Stats() PoolStats { return p.stats }

// get returns a buffer of k shaped s: the last one freed, or a new one.
func (p *Pool) get(k key, s tensor.Shape) *tensor.Dense {
	var t *tensor.Dense
	if free := p.free[k]; len(free) > 0 {
		t = free[len(free)-1]
		p.free[k] = free[:len(free)-1]
		if !t.Shape().Eq(s) {
			if err := t.Reshape(s...); err != nil {
				t = nil
			}
		}
	}
	if t == nil {
		p.stats.Buffers++
		p.stats.BufferBytes += k.bytes()
		t = tensor.New(tensor.WithShape(s.Clone()...), tensor.Of(k.dt))
	}
	p.stats.InUse += k.bytes()
	p.stats.PeakInUse = max(p.stats.PeakInUse, p.stats.InUse)
	return t
}

// put gives t back.
func (p *Pool) put(t *tensor.Dense) {
	k := key{t.Dtype(), t.Shape().TotalSize()}
	p.stats.InUse -= k.bytes()
	p.free[k] = append(p.free[k], t)
}

func (k key) bytes() int64 { return int64(k.n) * int64(k.dt.Size()) }
