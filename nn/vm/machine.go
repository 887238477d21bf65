package vm

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Machine runs an expression graph's nodes needed for some roots, on the
// CPU, reusing memory: every op writes into a buffer taken from the
// machine's pool when it can (gorgonia.UsePreallocDoer), and a value goes
// back to the pool after its last reader. It implements gorgonia.VM.
//
// After RunAll the roots (and the nodes given to WithKeep) hold their
// values until the next RunAll; any other op node's value may be
// overwritten by then. A Machine is not safe for concurrent use.
type Machine struct {
	steps  []step
	leaves []*gorgonia.Node // nodes read from their bound values, by index
	nodes  []*gorgonia.Node // every node, by index: leaves first
	index  map[*gorgonia.Node]int
	keep   []int // roots and kept nodes, by index

	vals   []gorgonia.Value // this run's values, by index
	owner  []int            // the buffer entry of each value, or -1 (a leaf's memory)
	bufs   []entry          // this run's buffer entries
	kept   []int            // entries of kept values, released at the next run
	pool   *Pool
	slots  slots            // the buffer plan (plan.go)
	live   int64            // bytes of this run's values in buffers now
	args   []gorgonia.Value // scratch for an op's inputs
	grads  map[*gorgonia.Node]*tensor.Dense
	peak   int64    // the most bytes of values in buffers seen during this machine's steps
	held   []Holder // what held this machine's buffers then
	stats  Stats
	closed bool
}

// step runs one op node.
type step struct {
	n    *gorgonia.Node
	op   gorgonia.Op
	out  int                                                                        // the node's index
	in   []int                                                                      // the inputs' indices, in order
	into func(dst gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error) // IntoDoer or UsePreallocDoer
	add  bool                                                                       // Gorgonia's addition: addInto first
	key  key                                                                        // the output's dtype and size, when pd is set
	dims tensor.Shape                                                               // the output's shape, when pd is set
	free []int                                                                      // values whose last reader this step is
	over int                                                                        // the input position written over (Overwriter, planned), or -1
}

// key is what a pooled buffer can serve: a dtype and a number of elements.
type key struct {
	dt tensor.Dtype
	n  int
}

// entry is a piece of memory values live in: a pooled buffer, or memory an
// op allocated itself (t nil), which is dropped, not pooled, when free.
type entry struct {
	t    *tensor.Dense
	refs int // values of this run that live in it and are not yet dead
}

// Stats counts what a machine did.
type Stats struct {
	Runs      int // runs so far
	Fallbacks int // op runs of the last run that allocated their own output
	PoolStats
}

// IntoDoer is an op that can compute its output into a buffer it is given
// (gnn's ops, through internal/ops/opkit): DoInto returns dst, filled, when it
// can use it, else a value of its own. dst has the output's shape and
// dtype, holds anything and is no input's memory. A Machine asks an op
// for it before gorgonia.UsePreallocDoer.
type IntoDoer interface {
	DoInto(dst gorgonia.Value, inputs ...gorgonia.Value) (gorgonia.Value, error)
}

// Overwriter is an IntoDoer that can write its output over one of its
// inputs: Overwrites returns that input's position (-1 for none), whose
// own tensor DoInto may then be given as dst when the input has the
// output's shape and dtype and no later step reads it. The Machine does so
// when its plan finds the input dead after the step, and then needs no
// buffer for the output (a loss gradient over the logits, say).
type Overwriter interface {
	IntoDoer
	Overwrites() int
}

// Option configures New.
type Option func(*Machine) error

// WithPool makes the machine take its buffers from p, which other
// machines may share: machines that run one after the other (a training
// step and an evaluation) then hold the larger of their needs, not the
// sum. The machines must not run at the same time.
func WithPool(p *Pool) Option {
	return func(m *Machine) error {
		if p == nil {
			return fmt.Errorf("vm: nil pool")
		}
		m.pool = p
		return nil
	}
}

// WithKeep keeps the values of the given nodes, as those of roots, from
// one run to the next (values a caller reads after a run).
func WithKeep(nodes ...*gorgonia.Node) Option {
	return func(m *Machine) error {
		for _, n := range nodes {
			i, ok := m.index[n]
			if !ok {
				return fmt.Errorf("vm: kept node %v is not needed for the roots", n)
			}
			m.keep = append(m.keep, i)
		}
		return nil
	}
}

// New returns a machine that computes roots, all of one expression graph,
// and every node they need; no other node of the graph runs.
func New(roots gorgonia.Nodes, opts ...Option) (*Machine, error) {
	if len(roots) == 0 {
		return nil, fmt.Errorf("vm: no roots")
	}
	eg := roots[0].Graph()
	for i, r := range roots {
		if r == nil || r.Graph() != eg {
			return nil, fmt.Errorf("vm: root %d is nil or not in the graph of root 0", i)
		}
	}
	sorted, err := gorgonia.Sort(eg.SubgraphRoots(roots...))
	if err != nil {
		return nil, fmt.Errorf("vm: %w", err)
	}
	m := &Machine{index: map[*gorgonia.Node]int{}}
	// Sort puts the roots first: run in reverse, as Gorgonia's tape does.
	var ops []*gorgonia.Node
	for i := len(sorted) - 1; i >= 0; i-- {
		n := sorted[i]
		if n.Op() == nil || n.Op().Arity() == 0 {
			// Inputs, constants and random nodes: their bound values.
			m.index[n] = len(m.nodes)
			m.nodes = append(m.nodes, n)
			m.leaves = append(m.leaves, n)
		} else {
			ops = append(ops, n)
		}
	}
	for _, n := range ops {
		m.index[n] = len(m.nodes)
		m.nodes = append(m.nodes, n)
	}
	for _, r := range roots {
		m.keep = append(m.keep, m.index[r])
	}
	for _, o := range opts {
		if err := o(m); err != nil {
			return nil, err
		}
	}
	if m.pool == nil {
		m.pool = NewPool()
	}
	slices.Sort(m.keep)
	m.keep = slices.Compact(m.keep)
	if err := m.plan(ops); err != nil {
		return nil, err
	}
	m.planSlots()
	m.vals = make([]gorgonia.Value, len(m.nodes))
	m.owner = make([]int, len(m.nodes))
	m.warm()
	return m, nil
}

// plan builds the steps and the liveness of every value: the step after
// which no step reads it.
func (m *Machine) plan(ops []*gorgonia.Node) error {
	eg := m.nodes[0].Graph()
	last := make([]int, len(m.nodes))
	for i := range last {
		last[i] = -1
	}
	for si, n := range ops {
		s := step{n: n, op: n.Op(), out: m.index[n], over: -1}
		for kids := eg.From(n.ID()); kids.Next(); {
			k := kids.Node().(*gorgonia.Node)
			ki, ok := m.index[k]
			if !ok {
				return fmt.Errorf("vm: input %v of %v is not in the graph", k, n)
			}
			s.in = append(s.in, ki)
			last[ki] = si
		}
		if !n.IsScalar() && n.Shape().TotalSize() > 0 {
			switch op := s.op.(type) {
			case IntoDoer:
				s.into = op.DoInto
			case gorgonia.UsePreallocDoer:
				if overwrites(s.op) {
					s.into = op.UsePreallocDo
					s.add = isAdd(s.op)
				}
			}
			s.key, s.dims = key{n.Dtype(), n.Shape().TotalSize()}, n.Shape()
		}
		m.steps = append(m.steps, s)
	}
	for _, k := range m.keep {
		last[k] = len(ops) // never freed within a run
	}
	for i, l := range last {
		if i < len(m.leaves) {
			continue // leaves are not the machine's
		}
		if l < 0 {
			l = i - len(m.leaves) // unread: free after its own step
		}
		if l < len(ops) {
			m.steps[l].free = append(m.steps[l].free, i)
		}
	}
	return nil
}

// RunAll runs every step once. The values of the previous run, kept or
// not, are dead when it starts.
func (m *Machine) RunAll() error {
	if m.closed {
		return fmt.Errorf("vm: machine is closed")
	}
	m.stats.Runs++
	m.stats.Fallbacks = 0
	for i, n := range m.leaves {
		v := n.Value()
		if v == nil {
			return fmt.Errorf("vm: no value bound to %v", n)
		}
		m.vals[i] = v
		m.owner[i] = -1
	}
	m.release()
	// Every value of the previous run is dead now (those of a run that
	// failed half-way too).
	clear(m.slots.out)
	clear(m.slots.live)
	m.live = 0
	m.borrow()
	for i := len(m.leaves); i < len(m.owner); i++ {
		m.owner[i] = -1 // not computed in this run yet
	}
	for si := range m.steps {
		if err := m.exec(si); err != nil {
			return err
		}
	}
	for _, k := range m.keep {
		if o := m.owner[k]; o >= 0 {
			m.kept = append(m.kept, o)
		}
	}
	m.giveBack()
	return nil
}

// release returns the buffers of the previous run's kept values to the
// pool, except those a leaf's value now lies in (a caller who bound a
// kept value to an input owns it from then on).
func (m *Machine) release() {
	for _, o := range m.kept {
		e := &m.bufs[o]
		if e.t == nil {
			continue
		}
		if m.leafOverlaps(e.t) {
			if !m.forgetSlot(e.t) {
				m.pool.forget(e.t)
			}
			e.t = nil
			continue
		}
		if e.refs--; e.refs == 0 {
			m.put(e.t)
		}
	}
	m.kept = m.kept[:0]
	m.bufs = m.bufs[:0]
}

func (m *Machine) leafOverlaps(t *tensor.Dense) bool {
	for i := range m.leaves {
		if overlaps(m.vals[i], t) {
			return true
		}
	}
	return false
}

// exec runs step si: into its slot's buffer (or a pooled one) when the op
// can, else into what the op allocates; then frees the values read for the
// last time.
func (m *Machine) exec(si int) error {
	s := &m.steps[si]
	args := m.args[:0]
	for _, i := range s.in {
		args = append(args, m.vals[i])
	}
	m.args = args
	var v gorgonia.Value
	var err error
	var buf *tensor.Dense
	if s.over >= 0 {
		if t := m.overwritable(s, args); t != nil {
			if v, err = s.into(t, args...); err != nil {
				return fmt.Errorf("vm: %v: %w", s.n, err)
			}
			if sameMemory(v, t) {
				// The output lives in the input's buffer, which the
				// input's drop below leaves to it.
				o := m.owner[s.in[s.over]]
				m.bufs[o].refs++
				return m.bindOut(s, v, o)
			}
			// The op wrote elsewhere: its result is its own.
			m.stats.Fallbacks++
			m.bufs = append(m.bufs, entry{refs: 1})
			return m.bindOut(s, v, len(m.bufs)-1)
		}
	}
	if s.into != nil {
		if buf = m.slotView(si, s.dims); buf == nil {
			buf = m.pool.get(s.key, s.dims)
		}
		m.live += s.key.bytes()
		if s.add && addInto(buf, args) {
			v = buf
		} else if v, err = s.into(buf, args...); err != nil {
			v = nil
		}
	}
	if v == nil {
		if v, err = s.op.Do(args...); err != nil {
			return fmt.Errorf("vm: %v: %w", s.n, err)
		}
	}
	o := -1
	switch {
	case buf != nil && sameMemory(v, buf):
		o = len(m.bufs)
		m.bufs = append(m.bufs, entry{t: buf, refs: 1})
		buf = nil
	default:
		m.stats.Fallbacks++
		view := false
		for k, i := range s.in {
			if overlaps(v, args[k]) {
				// A view of an input (or the input itself): it lives in
				// the input's memory, as long as both.
				view, o = true, m.owner[i]
				if o >= 0 {
					m.bufs[o].refs++
				}
				break
			}
		}
		if !view {
			o = len(m.bufs)
			m.bufs = append(m.bufs, entry{refs: 1})
		}
	}
	if buf != nil {
		m.put(buf)
	}
	return m.bindOut(s, v, o)
}

// bindOut binds step s's output v, living in entry o (-1: in a leaf's
// memory), and frees the values s read for the last time.
func (m *Machine) bindOut(s *step, v gorgonia.Value, o int) error {
	if err := bind(s.n, v); err != nil {
		return fmt.Errorf("vm: %v: %w", s.n, err)
	}
	m.vals[s.out], m.owner[s.out] = v, o
	if m.live > m.peak {
		m.peak = m.live
		m.recordPeak()
	}
	for _, i := range s.free {
		m.drop(i)
	}
	return nil
}

// overwritable returns the input tensor step s may write its output over,
// or nil when it may not this run: the input is not alone in one of the
// machine's buffers (it lies in a leaf's memory, or in memory its op
// allocated and may hold on to, or a live view shares its buffer), or is
// not a dense tensor of the output's dtype and shape.
func (m *Machine) overwritable(s *step, args []gorgonia.Value) *tensor.Dense {
	o := m.owner[s.in[s.over]]
	t, ok := args[s.over].(*tensor.Dense)
	if o < 0 || m.bufs[o].t == nil || m.bufs[o].refs != 1 || !ok || t.Dtype() != s.key.dt || !t.Shape().Eq(s.dims) || t.IsView() {
		return nil
	}
	return t
}

// drop ends the life of value i in this run.
func (m *Machine) drop(i int) {
	o := m.owner[i]
	if o < 0 {
		return
	}
	e := &m.bufs[o]
	if e.refs--; e.refs == 0 && e.t != nil {
		m.put(e.t)
	}
}

// put ends the life of buffer t's value: a slot's view frees its slot for
// the plan's next value, any other buffer goes back to the pool.
func (m *Machine) put(t *tensor.Dense) {
	m.live -= key{t.Dtype(), t.Shape().TotalSize()}.bytes()
	if !m.putSlot(t) {
		m.pool.put(t)
	}
}

// Holder is a value holding a pooled buffer, and the buffer's size.
type Holder struct {
	Node  *gorgonia.Node
	Bytes int64
}

// PeakHolders returns the values that held buffers when the bytes of this
// machine's values in buffers were highest during its steps, largest first
// (a value sharing its buffer with an earlier one, a view, is left out):
// what a run's peak is made of, by node.
func (m *Machine) PeakHolders() []Holder { return slices.Clone(m.held) }

// recordPeak notes what holds the machine's buffers now.
func (m *Machine) recordPeak() {
	m.held = m.held[:0]
	seen := map[int]bool{}
	for i, v := range m.vals {
		o := m.owner[i]
		if i < len(m.leaves) || o < 0 || v == nil || seen[o] {
			continue
		}
		if e := m.bufs[o]; e.refs > 0 && e.t != nil {
			seen[o] = true
			m.held = append(m.held, Holder{m.nodes[i], key{e.t.Dtype(), e.t.Shape().TotalSize()}.bytes()})
		}
	}
	slices.SortStableFunc(m.held, func(a, b Holder) int { return cmp.Compare(b.Bytes, a.Bytes) })
}

// Reset ends the last run: the buffers of the values it kept (the roots)
// go back to the pool, where machines sharing it take them (an evaluation
// machine's logits, once read, need not stay beside the training step's
// buffers). The nodes' values must not be read after Reset, nor a kept
// value bound to an input be reset; the next run starts afresh either way.
func (m *Machine) Reset() {
	if m.closed {
		return
	}
	m.release()
	m.giveBack()
}

// Close drops the machine's buffers; the values the nodes hold stay
// readable.
func (m *Machine) Close() error {
	m.closed = true
	m.pool, m.bufs, m.kept, m.vals, m.grads = nil, nil, nil, nil, nil
	return nil
}

// Stats returns what the machine allocated so far.
func (m *Machine) Stats() Stats {
	s := m.stats
	if m.pool != nil {
		s.PoolStats = m.pool.stats
	}
	return s
}

// bind binds v to n. Gorgonia's tape binds an op's output whatever its
// shape, and some ops return a value shaped unlike their node (a slice of
// one element of a (1, 1) node is a scalar); gorgonia.UnsafeLet checks
// the shape, so such a value is bound reshaped to the node's shape (the
// ops reading it get it as the op returned it, as on the tape).
func bind(n *gorgonia.Node, v gorgonia.Value) error {
	err := gorgonia.UnsafeLet(n, v)
	if err == nil || v.Dtype() != n.Dtype() {
		return err
	}
	shape := n.Shape()
	switch x := v.(type) {
	case *tensor.Dense:
		if x.Shape().TotalSize() != shape.TotalSize() {
			return err
		}
		y := x.ShallowClone()
		if e := y.Reshape(shape...); e != nil {
			return err
		}
		return gorgonia.UnsafeLet(n, y)
	case gorgonia.Scalar:
		if shape.TotalSize() != 1 {
			return err
		}
		var back any
		switch d := x.Data().(type) {
		case float32:
			back = []float32{d}
		case float64:
			back = []float64{d}
		default:
			return err
		}
		return gorgonia.UnsafeLet(n, tensor.New(tensor.WithShape(shape...), tensor.WithBacking(back)))
	}
	return err
}

// overwrites reports whether op is one of Gorgonia's ops whose
// UsePreallocDo overwrites the buffer it is given: the element-wise binary
// ops and the matrix products (their tensor kernels with WithReuse).
// Others do not all: sliceIncrOp's adds into it, as if it were zeroed.
func overwrites(op gorgonia.Op) bool {
	switch reflect.TypeOf(op).String() {
	case "gorgonia.elemBinOp", "gorgonia.linAlgBinOp":
		return true
	}
	return false
}

// sameMemory reports whether v is a tensor starting where t does.
func sameMemory(v gorgonia.Value, t *tensor.Dense) bool {
	d, ok := v.(*tensor.Dense)
	return ok && d.Uintptr() == t.Uintptr() && d.MemSize() == t.MemSize()
}

// overlaps reports whether the memory of two values overlaps (scalars
// never do).
func overlaps(a, b gorgonia.Value) bool {
	x, ok1 := a.(tensor.Tensor)
	y, ok2 := b.(tensor.Tensor)
	if !ok1 || !ok2 || x.MemSize() == 0 || y.MemSize() == 0 {
		return false
	}
	xs, ys := x.Uintptr(), y.Uintptr()
	return xs < ys+y.MemSize() && ys < xs+x.MemSize()
}

var _ gorgonia.VM = (*Machine)(nil)

// Run computes roots once on a new machine and closes it: a forward pass
// in which every value but the roots is freed once consumed. The roots
// keep their values.
func Run(roots ...*gorgonia.Node) error {
	m, err := New(roots)
	if err != nil {
		return err
	}
	defer m.Close()
	return m.RunAll()
}
