package vm

import (
	"cmp"
	"reflect"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// slots is a machine's buffer plan: every step that writes into a pooled
// buffer is given a slot, a buffer that values whose lives do not overlap
// share (a smaller value as a view of its first elements). A pool of
// buffers by size, taken first come first served, holds a buffer of every
// size a run asks for at its moment; a plan made once over the whole run
// holds about what the run's busiest moment needs. On the products-sized
// GAT the pool held 10.3 GB of buffers for a peak of 6.95 GB in use.
//
// The outputs of Gorgonia's reshape and slice ops may be views of their
// inputs, which then live as long as they do (mayView).
//
// A run borrows the slots from the pool when it starts and gives them back
// when it ends (but those holding a kept value, given back once the value
// dies), so that machines sharing a pool and running in turn share the
// buffers too. A step whose slot still holds a live value (a view of an
// input's buffer alive past the input's last reader in a way the plan did
// not foresee) takes a buffer from the pool instead.
type slots struct {
	keys []key                 // each slot's dtype and size
	of   []int                 // each step's slot, or -1
	buf  []*tensor.Dense       // each slot's buffer while borrowed, else nil
	live []int                 // values of a slot alive now
	view []*tensor.Dense       // each step's last view of its slot, reused when it fits
	out  map[*tensor.Dense]int // views handed out: their slot
}

// interval is the life of the value of one step, by step index: made at
// start, freed after end (the last step that reads it, or len(steps) for
// a value kept past the run).
type interval struct{ start, end int }

func (a interval) overlaps(b interval) bool { return a.start <= b.end && b.start <= a.end }

// planSlots gives every step with a buffer a slot: steps taken from the
// largest value down, each into the smallest slot of its dtype that is
// large enough and free for its whole life, or a new slot of its size.
// Ties go to the earlier step and the lower slot, so the plan depends on
// the graph alone.
func (m *Machine) planSlots() {
	n := len(m.steps)
	life := make([]interval, n)
	var order []int
	freedAt := make([]int, len(m.nodes))
	for i := range freedAt {
		freedAt[i] = n // kept: alive past the run
	}
	for si := range m.steps {
		for _, i := range m.steps[si].free {
			freedAt[i] = si
		}
	}
	// A reshape or a slice may return a view of its input, which keeps
	// the input's buffer alive as long as itself: extend its inputs'
	// lives to its own, from the last step back so that views of views
	// carry through.
	for si := n - 1; si >= 0; si-- {
		s := &m.steps[si]
		if s.into != nil || !mayView(s.op) {
			continue
		}
		for _, i := range s.in {
			freedAt[i] = max(freedAt[i], freedAt[s.out])
		}
	}
	m.planOverwrites(freedAt)
	for si := range m.steps {
		if m.steps[si].into != nil && m.steps[si].over < 0 {
			life[si] = interval{si, freedAt[m.steps[si].out]}
			order = append(order, si)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(m.steps[b].key.bytes(), m.steps[a].key.bytes())
	})
	p := slots{of: make([]int, n), view: make([]*tensor.Dense, n), out: map[*tensor.Dense]int{}}
	for i := range p.of {
		p.of[i] = -1
	}
	var uses [][]interval // each slot's lives
	for _, si := range order {
		k, best := m.steps[si].key, -1
	search:
		for sl, sk := range p.keys {
			if sk.dt != k.dt || sk.n < k.n || (best >= 0 && sk.n >= p.keys[best].n) {
				continue
			}
			for _, u := range uses[sl] {
				if u.overlaps(life[si]) {
					continue search
				}
			}
			best = sl
		}
		if best < 0 {
			best = len(p.keys)
			p.keys = append(p.keys, k)
			uses = append(uses, nil)
		}
		p.of[si] = best
		uses[best] = append(uses[best], life[si])
	}
	p.buf = make([]*tensor.Dense, len(p.keys))
	p.live = make([]int, len(p.keys))
	m.slots = p
}

// planOverwrites marks the steps that will write their output over an
// input (Overwriter) and extends that input's life to the output's: the
// input must be the output of a step with a buffer (or itself written
// over one), of the output's dtype and size, read once by the step and by
// no later one, and not kept. Such a step has no slot of its own. From the
// last step back, so that chains carry through.
func (m *Machine) planOverwrites(freedAt []int) {
	for si := len(m.steps) - 1; si >= 0; si-- {
		s := &m.steps[si]
		ow, ok := s.op.(Overwriter)
		if s.into == nil || !ok {
			continue
		}
		k := ow.Overwrites()
		if k < 0 || k >= len(s.in) {
			continue
		}
		i := s.in[k]
		pi := i - len(m.leaves)
		if pi < 0 || m.steps[pi].into == nil || m.steps[pi].key != s.key || freedAt[i] != si || slices.Index(s.in, i) != k || slices.Index(s.in[k+1:], i) >= 0 {
			continue
		}
		s.over = k
		freedAt[i] = freedAt[s.out]
	}
}

// borrow takes from the pool the buffers of the slots not held.
func (m *Machine) borrow() {
	for sl, k := range m.slots.keys {
		if m.slots.buf[sl] == nil {
			m.slots.buf[sl] = m.pool.get(k, tensor.Shape{k.n})
		}
	}
}

// giveBack returns to the pool the buffers of the slots no value holds,
// the last slot first, so that the next borrow (the pool hands out the
// buffer freed last) gives each slot the buffer it had.
func (m *Machine) giveBack() {
	for sl := len(m.slots.buf) - 1; sl >= 0; sl-- {
		if b := m.slots.buf[sl]; b != nil && m.slots.live[sl] == 0 {
			m.pool.put(b)
			m.slots.buf[sl] = nil
		}
	}
}

// slotView returns a view of step si's slot shaped s for its value, or
// nil when the step has no slot or its slot holds a live value.
func (m *Machine) slotView(si int, s tensor.Shape) *tensor.Dense {
	p := &m.slots
	sl := p.of[si]
	if sl < 0 || p.live[sl] > 0 || p.buf[sl] == nil {
		return nil
	}
	whole, k := p.buf[sl], m.steps[si].key
	v := p.view[si]
	if v == nil || v.Uintptr() != whole.Uintptr() || !v.Shape().Eq(s) {
		if k.n == p.keys[sl].n {
			v = whole.ShallowClone()
			if err := v.Reshape(s...); err != nil {
				return nil
			}
		} else if v = view(whole, k.n, s); v == nil {
			return nil
		}
		p.view[si] = v
	}
	p.live[sl]++
	p.out[v] = sl
	return v
}

// putSlot ends the life of t if it is a slot's view, and reports whether
// it was.
func (m *Machine) putSlot(t *tensor.Dense) bool {
	sl, ok := m.slots.out[t]
	if !ok {
		return false
	}
	delete(m.slots.out, t)
	m.slots.live[sl]--
	return true
}

// forgetSlot hands t's slot buffer to whoever holds t (a caller who bound
// a kept value to an input): the slot borrows another buffer next run.
func (m *Machine) forgetSlot(t *tensor.Dense) bool {
	sl, ok := m.slots.out[t]
	if ok {
		m.putSlot(t)
		m.slots.buf[sl] = nil
	}
	return ok
}

// mayView reports whether op is one of Gorgonia's ops whose output may
// share its input's memory: Reshape (a shallow clone) and Slice (a
// contiguous slice is not copied).
func mayView(op gorgonia.Op) bool {
	switch reflect.TypeOf(op).String() {
	case "gorgonia.reshapeOp", "*gorgonia.sliceOp", "gorgonia.sliceOp":
		return true
	}
	return false
}
