package vm

import "gorgonia.org/tensor"

// warm takes from the pool, and gives back, the buffers of the machine's
// slots (plan.go), and writes a zero into every page of the new ones (the
// operating system maps a page when it is first written): the pool then
// holds what a run needs, mapped, so that the first run, like the runs
// after it, allocates no buffer and takes no page fault. On PROTEINS
// (graphclass) the first training step took 3-10 times a steady one with
// its buffers allocated in it, most of it waiting on page faults and on
// the garbage collections of a heap growing from 11 to 127 MB. The work is
// the same, done when the machine is built; the pages touched are those
// the first run writes anyway.
func (m *Machine) warm() {
	before := m.pool.stats.Buffers
	var fresh []*tensor.Dense
	for sl, k := range m.slots.keys {
		m.slots.buf[sl] = m.pool.get(k, tensor.Shape{k.n})
		if m.pool.stats.Buffers > before {
			before = m.pool.stats.Buffers
			fresh = append(fresh, m.slots.buf[sl])
		}
	}
	m.giveBack()
	for _, t := range fresh {
		touch(t)
	}
}

// touch writes a zero into every 4 KiB page of t's memory, which holds
// zeros (a new tensor's).
func touch(t *tensor.Dense) {
	switch d := t.Data().(type) {
	case []float32:
		for i := 0; i < len(d); i += 1024 {
			d[i] = 0
		}
	case []float64:
		for i := 0; i < len(d); i += 512 {
			d[i] = 0
		}
	}
}
